"""Deadlines, late credit, per-student extensions and labels, and instructor overrides (issue 28).

`schedule`: the arithmetic (pure); `rules`: the course's rules as its nbgrader settings declare them;
`late_plugin`: the late-penalty plugin every grading path asks (`autograder grade`, `watch`, `regrade` and
nbgrader's own `autograde`); `exception_store`: the extensions, labels and overrides with their audit rows.
"""
