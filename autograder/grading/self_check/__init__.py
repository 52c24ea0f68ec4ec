"""The trusted side of a notebook's grading, in one place: its one entry is `stage.TrustedSelfCheck`, which the
submission's stages call (made once per notebook run by `grading.submission`; `requests` for the call plan
`grading.sandbox_run` sends ahead, `verdict` for each test cell `grading.notebook_run` scores, `fresh` and
`checks` for the cells `grading.alone` judges again). Beneath it, in the one direction: `callplan` (the calls the
hidden graders and the self-checks make on a correct answer, recorded against the reference answers; a worker
records its graders' once, `callplan.prepare`, before its first submission), then `trustedcheck` (a grade
cell's visible self-check parsed and run again here, on the instructor's modules)."""
