"""Grading a class, one stage per module, in the order the data flows (see the docs' "How the code is
laid out"): `startup` -> `scheduler` (who is graded, the jobs in flight) -> `prepare` (a submission folder
read by `reading`, sanitised by `sanitise`, made a `model.Job` with `instructor`'s files) -> `pool` (worker
processes) -> `submission` (one submission over a sandbox; `self_check`, the trusted side behind one entry, and
`alone` beside it)
-> `recording` (`writer`'s gradebook rows and `autograded`'s folders, committed in batches).
`assignment` checks the graders and adds the assignment first; `sources` reads the instructor's notebooks
from the gradebook.
"""
