"""What `make install` leaves out of the environment, on purpose."""

import importlib.util
import subprocess
import sys


def test_nbformat_imports_without_the_iri_parsers():
    # Each nbgrader, autograder and Jupyter process imports nbformat; with rfc3987-syntax installed that costs
    # 2.5 CPU-seconds (Makefile, `install`).
    assert importlib.util.find_spec("rfc3987_syntax") is None, "run make install (it uninstalls rfc3987-syntax)"
    done = subprocess.run([sys.executable, "-c", "import sys, nbformat; print('lark' in sys.modules)"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
