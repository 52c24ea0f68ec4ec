"""`autograder similarity ASSIGNMENT [--exports DIR]`: pairs of students whose notebooks share more than
students who work alone do, with the evidence in words, as a table, `exports/similarity_<assignment>.csv`
and a section of the class report (`autograder report`).

It flags evidence for a person to look at; it never decides that anyone copied. Run in the course folder:
it reads `release/`, `submitted/` and the result files `autograder grade` wrote (docs, "Academic
integrity: similarity").
"""

import argparse
from pathlib import Path

from autograder.cli import UserError, add_command

SHOWN_EVIDENCE = 3  # items of evidence a pair's row shows in the terminal; the CSV and the report have all


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(subparsers, "similarity", run, "flag pairs of students whose work shares rare features",
                         __doc__)
    parser.add_argument("assignment", help="the assignment's name, as in release/")
    parser.add_argument("--exports", type=Path, default=Path("exports"), metavar="DIR",
                        help="folder for similarity_<assignment>.csv (default: exports/)")


def run(args: argparse.Namespace) -> int:
    from rich import box
    from rich.table import Table

    from autograder.display.terminal import cell, count, make_console, summary_table, visible
    from autograder.lms.errors import LmsError
    from autograder.similarity import SimilarityError, compare_class
    from autograder.similarity.similarity_csv import write_csv

    try:
        comparison = compare_class(Path.cwd(), args.assignment)
        path = write_csv(comparison, args.exports)
    except (SimilarityError, LmsError) as exc:
        raise UserError(visible(exc)) from None
    console = make_console()
    for line in comparison.refused:
        console.print(visible(f"left out: {line}"), soft_wrap=True, markup=False)
    for line in comparison.unparsed:
        console.print(visible(f"compared in part on its text: {line}"), soft_wrap=True, markup=False)
    table = Table(title=cell(f"{comparison.assignment}: pairs at or above {comparison.threshold:g} bits"),
                  box=box.SIMPLE_HEAD, title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("students", no_wrap=True)
    table.add_column("score", justify="right")
    table.add_column("evidence (strongest first)")
    for pair in comparison.pairs:
        shown = "; ".join(e.text for e in pair.evidence[:SHOWN_EVIDENCE])
        more = len(pair.evidence) - SHOWN_EVIDENCE
        table.add_row(cell(f"{pair.a} + {pair.b}"), f"{pair.score:.1f}",
                      cell(shown + (f"; and {more} more" if more > 0 else "")))
    if comparison.pairs:
        console.print(table)
    rings = [group for group in comparison.groups if len(group) > 2]
    console.print(summary_table([
        ("compared", count(comparison.compared, "student")),
        ("left out", str(len(comparison.refused))),
        ("threshold", f"{comparison.threshold:g} bits (about what chance gives the likeliest pair of the class)"),
        ("flagged", f"{count(len(comparison.pairs), 'pair')} in {count(len(comparison.groups), 'group')}"),
        ("groups of three or more", "; ".join(", ".join(g) for g in rings) or "none"),
    ]))
    console.print("Evidence to look at, not a finding: students who work alone can share a rare answer.",
                  markup=False)
    console.print(visible(f"csv: {path}"), soft_wrap=True, markup=False)
    return 0
