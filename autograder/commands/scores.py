"""`autograder scores ASSIGNMENT [--csv]`: every student's score per exercise and their total, from the gradebook.

The scores are read as `autograder export` reads them (`lms.gradebook.read_gradesheet`): every student in the
gradebook, a blank for one who submitted nothing. The total is the sum of the exercises, before any late
penalty (a line says whose it would lower). `--csv` writes the same table to stdout as CSV, its cells kept
from running as spreadsheet formulas as every CSV the project writes.
"""

import argparse
import sys
from pathlib import Path

from autograder.cli import UserError, add_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "scores", run, "print an assignment's scores: students by exercises, with totals",
                         __doc__)
    parser.add_argument("assignment", help="the assignment's name, as in the gradebook")
    parser.add_argument("--csv", action="store_true", help="write the table to stdout as CSV")


def run(args: argparse.Namespace) -> int:
    from autograder.display.terminal import visible
    from autograder.lms.errors import LmsError
    from autograder.lms.gradebook import course_rules, find_course, open_gradebook, read_gradesheet

    try:
        course = find_course(Path.cwd())
        with open_gradebook(course) as gradebook:
            sheet = read_gradesheet(gradebook, [args.assignment], course_rules(course))
    except LmsError as exc:
        raise UserError(visible(exc)) from None
    info = sheet.assignments[0]
    columns = _column_names(info.exercises)
    rows = [(person.id, [e.score for e in sheet.grade(info.name, person.id).exercises]) for person in sheet.people]
    if args.csv:
        sys.stdout.write(_csv(columns, rows))
        return 0
    from autograder.display.terminal import make_console, score_table

    console = make_console()
    exercises = [(name, e.max_score) for name, e in zip(columns, info.exercises, strict=True)]
    console.print(score_table(exercises, rows, title=f"{info.name}: scores"))
    late = [p.id for p in sheet.people if sheet.grade(info.name, p.id).late_penalty]
    if late:
        print(visible(f"totals before late penalties; {len(late)} student(s) have one: {', '.join(late)} "
                      f"(`autograder export {info.name} --to csv` applies them)"))
    return 0


def _column_names(exercises: tuple) -> list[str]:
    """The exercises' names; where two notebooks have a grade cell of the same name, with the notebook's."""
    labels = [e.label for e in exercises]
    if len(set(labels)) == len(labels):
        return labels
    return [f"{e.notebook}/{e.label}" for e in exercises]


def _csv(columns: list[str], rows: list[tuple[str, list[float | None]]]) -> str:
    from autograder.lms.table import Table, score_cell

    table = Table(["student", *columns, "total"])
    for student, scores in rows:
        given = [s for s in scores if s is not None]
        table.rows.append([student, *map(score_cell, scores), score_cell(sum(given) if given else None)])
    return table.to_csv()
