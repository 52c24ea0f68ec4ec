"""Regrading a class after its graders change: what changed and for whom (`diff`, `table`), the
`--no-decrease` policy (`no_decrease`), a dry run on a scratch copy (`scratch`), and the audit trail of every
grading run kept in the gradebook (`audit`)."""
