"""A hub user's server, as that user: first every released assignment of their courses not yet in their home is
fetched (nbgrader's own fetch, the one the Assignments panel's Fetch button runs; open_assignment.py, where an LTI
launch lands, fetches one released later); then JupyterHub's single-user JupyterLab, in this process.

Run by path by the spawner (autograder/hub/spawner.py), with the system's Python where the hub's is private: it
imports nbgrader and JupyterHub only, never the `autograder` package. A failed fetch is logged and the server starts
anyway (the student can press Fetch).
"""

import logging
import os
import sys
from pathlib import Path

from open_assignment import FETCH_VARIABLE, fetch_released  # beside this file (run by path)


def main() -> None:
    log = logging.getLogger("autograder.hub.user_server")
    handler = logging.StreamHandler()  # this logger's own: the server's loggers keep their levels
    handler.setFormatter(logging.Formatter("[autograder %(levelname)s %(asctime)s] %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    home = Path(os.environ.get("HOME") or Path.cwd())
    courses = os.environ.get(FETCH_VARIABLE, "").split()
    if courses:
        os.chdir(home)  # nbgrader reads the user's config from the working folder too
        try:
            log.info("fetched %s", ", ".join(fetch_released(home, courses, log)) or "nothing new")
        except Exception:  # never keep a student from their server: the Fetch button is still there
            log.exception("fetching the released assignments failed")
    from jupyterhub.singleuser import main as singleuser

    sys.argv[0] = "jupyterhub-singleuser"
    sys.exit(singleuser())


if __name__ == "__main__":
    main()
