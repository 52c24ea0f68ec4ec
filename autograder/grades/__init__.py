"""One grade, the same everywhere (issue 39): `arithmetic` computes every number a person sees of a grade from the
gradebook's facts, which `facts` reads; `settle` is the one path by which a change of those facts reaches the
stored late penalties, the LMS outbox and the students' feedback pages."""
