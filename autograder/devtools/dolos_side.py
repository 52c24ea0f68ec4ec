"""Dolos beside `autograder similarity` in `make bench-similarity`: the same labelled class handed to Dolos
(npm `@dodona/dolos-lib`, pinned in dolos/ beside this module, installed into build/dolos by the Makefile's bench
target only, run by its `pairs.mjs`) as an instructor would hand it in: one Python file per student holding their
notebook's code cells (what `jupyter nbconvert --to script` gives), and the release's code cells as Dolos's
template, whose code no pair is credited for. Not our answer regions: Dolos is measured as it is used, with
its own tokeniser and nothing of our feature extraction.

Dolos's template option is experimental (dodona-edu/dolos#1524): in 3.5.1 a pair's similarity leaves the
template's fingerprints out of what two files share but subtracts fewer of them from the files' totals, so
a whole copied notebook scores about 0.37, not 1 (and a file of six template functions and one of its own,
copied, 0.16). So the benchmark runs Dolos both ways, with the template and without.
"""

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from autograder.devtools.repo import ROOT
from autograder.nbgrader_glue.notebook import read_notebook

FOLDER = ROOT / "build" / "dolos"  # where make bench-similarity installs and runs it
# Dolos's web report starts its cut-off at 0.75 and then guesses one from each class's similarities, which
# its authors describe as "generally quite high (between 0.6 and 0.85)" (dolos web/src/api/utils/cutoff.ts):
# the similarity above which a pair is shown as suspect.
USUAL_THRESHOLD = 0.75


class DolosError(Exception):
    """Dolos could not be run or said something unreadable; the message is one line."""


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    flagged: int


def notebook_code(notebooks: list[Path]) -> str:
    """Every code cell of the notebooks, in order, as one Python file."""
    cells = [cell.source for path in sorted(notebooks) for cell in read_notebook(path).cells
             if cell.cell_type == "code"]
    return "\n\n".join(cells) + "\n"


def write_files(course: Path, assignment: str, folder: Path) -> tuple[dict[str, str], Path]:
    """Each student's code as `folder/<student>.py` and the release's as the template: (path -> student,
    template path)."""
    template = folder / "_release.py"
    template.write_text(notebook_code(list((course / "release" / assignment).glob("*.ipynb"))))
    students: dict[str, str] = {}
    for child in sorted((course / "submitted").iterdir()):
        path = folder / f"{child.name}.py"
        path.write_text(notebook_code(list((child / assignment).glob("*.ipynb"))))
        students[str(path)] = child.name
    return students, template


def parse_pairs(text: str, students: dict[str, str]) -> dict[frozenset[str], float]:
    """pairs.mjs's output as {pair of students: similarity}."""
    try:
        rows = json.loads(text)
        return {frozenset((students[left], students[right])): float(similarity) for left, right, similarity in rows}
    except (ValueError, TypeError, KeyError) as exc:
        raise DolosError(f"{FOLDER / 'pairs.mjs'}: unreadable output ({type(exc).__name__}: {exc})"[:200]) from None


def run(students: dict[str, str], template: Path | None) -> dict[frozenset[str], float]:
    """Dolos's similarity of every pair of the files (absent: 0), with the template's code ignored if given."""
    if not (FOLDER / "node_modules").is_dir():
        raise DolosError(f"{FOLDER}: Dolos is not installed (`make bench-similarity` runs npm ci there)")
    done = subprocess.run(["node", str(FOLDER / "pairs.mjs")], input=json.dumps(
        {"files": list(students), "template": template and str(template)}), capture_output=True, text=True, cwd=FOLDER)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise DolosError(f"{FOLDER / 'pairs.mjs'} failed ({done.returncode}): {last}"[:200])
    return parse_pairs(done.stdout, students)


def score(similarity: dict[frozenset[str], float], planted: set[frozenset[str]], threshold: float) -> Score:
    """Precision and recall of the planted pairs among those at or above `threshold`."""
    flagged = {pair for pair, s in similarity.items() if s >= threshold}
    hits = len(flagged & planted)
    return Score(hits / max(1, len(flagged)), hits / max(1, len(planted)), len(flagged))


def threshold_for(similarity: dict[frozenset[str], float], planted: set[frozenset[str]], precision: float) -> float:
    """The lowest threshold (so the highest recall) whose precision is at least `precision`; above the top
    similarity when none reaches it."""
    best, hits, flagged = max(similarity.values(), default=0.0) + 1e-9, 0, 0
    ranked = sorted(similarity.items(), key=lambda item: -item[1])
    for index, (pair, s) in enumerate(ranked):
        hits += pair in planted
        flagged += 1
        tied = index + 1 < len(ranked) and ranked[index + 1][1] == s  # a threshold takes all of a tie or none
        if not tied and hits / flagged >= precision:
            best = s
    return best
