"""`make demo`: a course graded end to end, in its own folder `demo/` (never the repository's course).

Release both assignments with nbgrader, synthesise a class, grade it, generate feedback, export grades,
and print the score table with the paths of what was written.
"""

import argparse
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

from nbgrader.api import Gradebook

from autograder.catalogue.classroom import plan_class, write_class
from autograder.course import ROOT, CourseError, available_assignments, nbgrader, new_course
from autograder.lms.demo import demo_step
from autograder.terminal import make_console, score_table, summary_table

DEMO = ROOT / "demo"


def step(console, label: str, action: Callable[[], object]) -> object:
    start = time.perf_counter()
    with console.status(label):
        result = action()
    console.print(f"[green]✔[/] {label} [dim]({time.perf_counter() - start:.1f} s)[/]")
    return result


def score_rows(course: Path, assignment: str) -> tuple[list[tuple[str, float]], list[tuple[str, list]]]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        cells = [(c.name, c.max_score) for c in gradebook.find_notebook(assignment, assignment).grade_cells]
        rows = []
        for submission in sorted(gradebook.assignment_submissions(assignment), key=lambda s: s.student_id):
            grades = {g.name: g.score for g in submission.notebooks[0].grades}
            rows.append((submission.student_id, [grades.get(name) for name, _ in cells]))
    return [(name.removeprefix("test_"), points) for name, points in cells], rows


def run(students: int, course: Path = DEMO) -> int:
    console = make_console()
    started = time.perf_counter()
    if course.exists():
        shutil.rmtree(course)
    course = new_course(course)
    assignments = available_assignments()
    for assignment in assignments:
        step(console, f"{assignment}: release (nbgrader generate_assignment)",
             lambda a=assignment: nbgrader(course, "generate_assignment", a, "--force"))
        step(console, f"{assignment}: {students} synthetic submissions",
             lambda a=assignment: write_class(course, a, plan_class(a, students)))
        step(console, f"{assignment}: grade (nbgrader autograde)",
             lambda a=assignment: nbgrader(course, "autograde", a, "--force"))
        step(console, f"{assignment}: feedback (nbgrader generate_feedback)",
             lambda a=assignment: nbgrader(course, "generate_feedback", a, "--force"))
    step(console, "export grades (nbgrader export)", lambda: nbgrader(course, "export"))
    console.rule("LMS: roster, Canvas CSV, dry-run push")
    lms_files = demo_step(course, list(assignments), out=console.print)

    for assignment in assignments:
        exercises, rows = score_rows(course, assignment)
        console.print(score_table(exercises, rows, title=f"{assignment}: scores per exercise"))
    console.print(summary_table([
        ("course folder", course),
        ("gradebook", course / "gradebook.db"),
        ("feedback", course / "feedback"),
        ("grades CSV", course / "grades.csv"),
        *[("LMS", path) for path in lms_files],
        ("run time", f"{time.perf_counter() - started:.0f} s"),
    ], title="demo done"))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20, help="class size per assignment")
    parser.add_argument("--course", type=Path, default=DEMO, help="folder to (re)create the demo course in")
    args = parser.parse_args()
    try:
        return run(args.students, args.course.resolve())
    except CourseError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
