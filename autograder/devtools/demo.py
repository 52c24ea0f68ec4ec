"""`make demo`: a whole class graded end to end, in its own folder `demo/` (never the repository's course).

Releases both assignments with nbgrader, synthesises a class (correct answers written many ways, every
known mistake, blank notebooks, a few adversarial submissions) handed in through Canvas (imports its roster,
then its "Download Submissions" archive with `autograder collect`), grades it with the sandboxed
`autograder grade`, generates nbgrader feedback, imports an LMS roster and writes a Canvas CSV with a
dry-run push, writes the class report, and ends with a summary and the paths of what it wrote.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from nbgrader.api import Gradebook

from autograder.course.nbgrader_cli import CourseError, nbgrader
from autograder.course.settings import read_course
from autograder.devtools.catalogue import catalogued
from autograder.devtools.catalogue.classroom import plan_class, write_class
from autograder.devtools.demo_lms_step import canvas_download, demo_step, roster_step
from autograder.devtools.repo import ROOT, available_assignments, new_course
from autograder.display.terminal import make_console, score_table, summary_table
from autograder.nbgrader_glue.notebook import exercise_label

DEMO = ROOT / "demo"
# The demo's endless-loop students would each hold a worker for several 30 s cell limits while the rest
# of the class is long done; a demo course can afford a tighter limit than a real one.
DEMO_CELL_SECONDS = 10
LATE = ["s002"]  # handed in late on Canvas: its archive marks the file LATE, and the import table says so


def step(console, label: str, action: Callable[[], object]) -> object:
    start = time.perf_counter()
    with console.status(label):
        result = action()
    console.print(f"[green]✔[/] {label} [dim]({time.perf_counter() - start:.1f} s)[/]")
    return result


def autograder(course: Path, *args: str) -> None:
    """Run an `autograder` command as an instructor would, its progress bar and tables on this terminal."""
    command = [str(Path(sys.executable).parent / "autograder"), *args]
    if subprocess.run(command, cwd=course, env=dict(os.environ)).returncode != 0:
        raise CourseError(f"`autograder {' '.join(args)}` failed in {course}")


def class_scores(course: Path, assignment: str) -> tuple[list[tuple[str, float]], list[tuple[str, list]]]:
    with Gradebook(read_course(course).db_url) as gradebook:
        cells = [(c.name, c.max_score) for c in gradebook.find_notebook(assignment, assignment).grade_cells]
        rows = []
        for submission in sorted(gradebook.assignment_submissions(assignment), key=lambda s: s.student_id):
            grades = {g.name: g.score for g in submission.notebooks[0].grades}
            rows.append((submission.student_id, [grades.get(name) for name, _ in cells]))
    return [(exercise_label(name), points) for name, points in cells], rows


def run(students: int, course: Path = DEMO) -> int:
    console = make_console()
    started = time.perf_counter()
    if course.exists():
        shutil.rmtree(course)
    course = new_course(course)
    with (course / "nbgrader_config.py").open("a") as config:
        config.write(f"\n# make demo: a tighter cell limit than a real course needs\n"
                     f"c.Execute.timeout = {DEMO_CELL_SECONDS}\n")
    assignments = list(catalogued(available_assignments()))
    kinds: Counter[str] = Counter()
    plans = {assignment: plan_class(assignment, students) for assignment in assignments}
    for assignment in assignments:
        step(console, f"{assignment}: release (nbgrader generate_assignment)",
             lambda a=assignment: nbgrader(course, "generate_assignment", a, "--force"))
    roster = sorted({submission.student for plan in plans.values() for submission in plan})
    step(console, f"LMS roster: {len(roster)} students (autograder roster import)",
         lambda: roster_step(course, roster, out=lambda _: None))
    for assignment, plan in plans.items():
        kinds.update(submission.kind for submission in plan)
        # The class hands in through the LMS: its notebooks come as Canvas's "Download Submissions" archive.
        uploads = course / "lms_downloads" / "uploads"
        archive = step(console, f"{assignment}: {students} submissions in Canvas "
                                f"({', '.join(f'{n} {k}' for k, n in Counter(s.kind for s in plan).most_common())})",
                       lambda a=assignment, p=plan, u=uploads: (write_class(course, a, p, submitted=u),
                                                                 canvas_download(course, a, u, late=LATE[:1]))[1])
        console.rule(f"{assignment}: autograder collect (Canvas archive)")
        autograder(course, "collect", assignment, str(archive), "--from", "canvas")
    grading_started = time.perf_counter()
    for assignment in assignments:
        console.rule(f"{assignment}: autograder grade")
        autograder(course, "grade", assignment)
    grading = time.perf_counter() - grading_started
    for assignment in assignments:
        step(console, f"{assignment}: student feedback (nbgrader generate_feedback)",
             lambda a=assignment: nbgrader(course, "generate_feedback", a, "--force"))
    console.rule("LMS: roster, Canvas CSV, dry-run push")
    lms_files = demo_step(course, assignments, out=console.print)
    for assignment in assignments:
        console.rule(f"{assignment}: class report")
        autograder(course, "report", assignment)

    console.rule("scores")
    for assignment in assignments:
        exercises, rows = class_scores(course, assignment)
        console.print(score_table(exercises, rows, title=f"{assignment}: scores per exercise (first 12)",
                                  max_rows=12))
    console.print(summary_table([
        ("class", f"{students} students x {len(assignments)} assignments"),
        ("submissions", ", ".join(f"{n} {k}" for k, n in kinds.most_common())),
        ("grading (autograder grade)", f"{grading:.1f} s for {students * len(assignments)} submissions "
                                       f"(cell limit {DEMO_CELL_SECONDS} s in the demo course)"),
        ("whole demo", f"{time.perf_counter() - started:.0f} s"),
        ("course folder", course),
        ("gradebook", course / "gradebook.db"),
        ("feedback", course / "feedback"),
        *[("report", course / "reports" / f"{a}.html") for a in assignments],
        *[("LMS", path) for path in lms_files],
    ], title="demo done"))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200, help="class size per assignment")
    parser.add_argument("--course", type=Path, default=DEMO, help="folder to (re)create the demo course in")
    args = parser.parse_args()
    try:
        return run(args.students, args.course.resolve())
    except CourseError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
