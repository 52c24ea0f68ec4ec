"""Students' nbgrader: installed as {sys.prefix}/etc/jupyter-student/nbgrader_config.py, first on the
JUPYTER_CONFIG_PATH of students' JupyterLab (docs, "Setting it up"). Self-contained: a student's Python need not
import the `autograder` package.

`nbgrader submit` copies the assignment without what `CourseDirectory.ignore` names (Jupyter's `.ipynb_checkpoints`
among them), but its check for missing and extra notebooks lists every notebook under the folder, so each Submit
from JupyterLab (which keeps a checkpoint of every notebook opened) logs an "EXTRA" warning for a file that is
never submitted. This submit runs that check on the notebooks it really copies.
"""

import os

from nbgrader.exchange.default.submit import ExchangeSubmit
from nbgrader.utils import find_all_notebooks


class SubmitWithoutIgnored(ExchangeSubmit):
    def check_filename_diff(self):
        ignore = set(self.coursedir.ignore)

        def copied(path):  # nbgrader's copy leaves out any file under a folder whose name matches `ignore`
            from fnmatch import fnmatch

            return not any(fnmatch(part, pattern) for part in path.split(os.sep) for pattern in ignore)

        released = find_all_notebooks(self.release_path)
        submitted = [path for path in find_all_notebooks(self.src_path) if copied(path)]
        if released != submitted:  # a notebook really missing or extra: nbgrader's own warning, as it words it
            super().check_filename_diff()


c = get_config()  # noqa: F821 - given by traitlets when it loads this file
c.ExchangeFactory.submit = SubmitWithoutIgnored
