"""`autograder similarity`: evidence that students shared work, each feature weighed by its rarity in the
class. `winnowing` fingerprints code, `notebook_work` reads what one notebook holds, `class_work` reads a
course's class, `evidence` indexes the features and scores pairs, `similarity_csv` writes the export.
It flags evidence for an instructor to look at; it never decides that anyone copied."""

from pathlib import Path

from autograder.similarity.class_work import SimilarityError, read_class
from autograder.similarity.evidence import Comparison, Pair, Weights, compare

__all__ = ["Comparison", "Pair", "SimilarityError", "Weights", "compare", "compare_class", "read_class"]


def compare_class(course: Path, assignment: str) -> Comparison:
    """The course folder's class of `assignment`, compared."""
    works, names, refused = read_class(course, assignment)
    return compare(assignment, works, names, refused)
