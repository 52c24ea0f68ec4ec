"""Grading on an existing Dask cluster (`autograder grade --cluster ADDRESS`, `autograder watch --cluster`).

`worker_plugin` is what each Dask worker process holds (its zygote and the graders), `executor` the client side
that the class scheduler (`grading.scheduler.grade_class`) submits jobs to in place of the local pool,
`make bench-cluster` is devtools/cluster_bench.py. Nothing here is imported unless `--cluster` is given.
"""
