"""Where nbgrader meets the framework: a notebook's cells as nbgrader marks them (`notebook`), the hidden half of a
grade cell run in the kernel (`kernel`: `from autograder.nbgrader_glue.kernel import grade`), the formgrader's
Autograde button through the sandboxed engine (`formgrader`).
"""
