"""`make hub`: the whole loop on this machine: the course on JupyterHub beside the demo LMS (demo_loop.py), in its
own folder `demo-hub/` (recreated each run; the repository's course is never touched): a scratch copy of the course
with both assignments generated and released into its own exchange (demo-hub/exchange), then the hub on
http://127.0.0.1:8000 and the demo LMS on http://127.0.0.1:8001 until Ctrl-C, the hub's state in demo-hub/state. It
prints the one URL to open: the demo LMS's course page, whose links launch into the hub by LTI 1.3.

Each assignment has a due date and the course a late schedule, so the feedback's deadline line and late credit can
be tried: the first assignment is due in a day (on time), the others were due an hour ago (late: 80% credit for
48 hours, 50% until 7 days, then practice).
"""

import argparse
import os
import shutil
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.repo import ROOT, available_assignments, new_course

FOLDER = ROOT / "demo-hub"
LATE_SCHEDULE = [["48h", 0.8], ["7d", 0.5]]  # c.LateCredit.schedule (docs/instructors/deadlines.md)
ON_TIME, LATE = timedelta(days=1), timedelta(hours=-1)  # the first assignment's due date from now, the others'


def build(folder: Path) -> Path:
    """The demo course, every assignment released into the demo's exchange; its folder."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    os.chmod(folder, 0o755)  # the students' and instructors' servers pass through it
    course = new_course(folder / "course")
    with open(course / "nbgrader_config.py", "a") as config:
        config.write(f'\n# make hub: the demo\'s own exchange and late rule\n'
                     f'c.Exchange.root = "{folder / "exchange"}"\n'
                     f"c.LateCredit.schedule = {LATE_SCHEDULE!r}\nc.LateCredit.after = \"practice\"\n")
    now = datetime.now(UTC).replace(microsecond=0)
    for number, assignment in enumerate(available_assignments()):
        due = now + (ON_TIME if number == 0 else LATE)
        nbgrader(course, "db", "assignment", "add", assignment, f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC")
        nbgrader(course, "generate_assignment", assignment, "--force")
        nbgrader(course, "release_assignment", assignment)
        print(f"released {assignment}, due {due:%Y-%m-%d %H:%M} UTC", flush=True)
    return course


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--folder", type=Path, default=FOLDER)
    args = parser.parse_args()
    course = build(args.folder.resolve())
    os.execv(sys.executable, [sys.executable, "-m", "autograder.devtools.demo_loop", str(course), "--port",
                              str(args.port), "--state", str(args.folder.resolve() / "state")])
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main())
