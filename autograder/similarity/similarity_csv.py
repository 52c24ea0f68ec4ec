"""`exports/similarity_<assignment>.csv`: one row per flagged pair, `student_a,student_b,score,evidence`,
written as every CSV of the project is (`lms.table`: spreadsheet formulas neutralised, control characters
written out; the evidence quotes students' own cells) and atomically (a reader never sees half of it)."""

from pathlib import Path

from autograder.lms.table import Table, write_atomic
from autograder.similarity.evidence import Comparison

HEADER = ["student_a", "student_b", "score", "evidence"]


def csv_text(comparison: Comparison) -> str:
    rows = [[pair.a, pair.b, f"{pair.score:.1f}", pair.summary] for pair in comparison.pairs]
    return Table(HEADER, rows).to_csv()


def write_csv(comparison: Comparison, folder: Path) -> Path:
    path = folder / f"similarity_{comparison.assignment}.csv"
    write_atomic(path, csv_text(comparison))
    return path
