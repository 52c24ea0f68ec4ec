"""An autograder command loads the nbgrader modules it uses, never nbgrader's Jupyter server extensions
(`grading.startup.nbgrader_without_server_extensions`, called by the console script): nbgrader's own `__init__`
would load jupyter_server, the exchange and nbconvert, about 0.7 CPU-seconds at the start of every command."""

import os
import re
import subprocess

from tests.grading_course import ASSIGNMENT, CLI, make_course


def test_a_command_reads_the_gradebook_through_nbgrader_without_its_server_extensions(tmp_path):
    course = make_course(tmp_path / "course")
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}  # Python lists every module it imports on stderr
    done = subprocess.run([CLI, "history", ASSIGNMENT], cwd=course, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "no grading run recorded yet" in done.stdout, done.stdout + done.stderr[-2000:]
    imported = set(re.findall(r"^import time:.*\|\s*([\w.]+)$", done.stderr, re.M))
    assert {"nbgrader.coursedir", "nbgrader.api"} <= imported  # the course and its gradebook, read by nbgrader's
    assert not {m for m in imported if m.split(".")[0] in ("jupyter_server", "nbconvert")}
    assert not {m for m in imported if m.startswith(("nbgrader.server_extensions", "nbgrader.exchange"))}
