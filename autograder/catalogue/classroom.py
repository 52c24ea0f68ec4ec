"""A synthetic class: students who submit the reference, other correct forms, known mistakes, or nothing.

Used by the demo and the benchmark. Deterministic for a seed, so two runs grade the same class.
"""

import random
import shutil
from dataclasses import dataclass
from pathlib import Path

from autograder.catalogue import Answer, correct_answers, solution_sources, write_submission, wrong_answers

# Share of each kind of submission in a class.
MIX = {"reference": 0.15, "alternative": 0.35, "mistake": 0.40, "blank": 0.10}


@dataclass(frozen=True)
class Submission:
    student: str
    kind: str  # a key of MIX
    answers: tuple[Answer, ...] = ()

    @property
    def description(self) -> str:
        if self.kind in ("reference", "blank"):
            return self.kind
        names = ", ".join(a.label for a in self.answers)
        return f"{self.kind}: {names}" if self.kind == "mistake" else f"{len(self.answers)} alternative forms"


def plan_class(assignment: str, size: int, seed: int = 2026, prefix: str = "s") -> list[Submission]:
    """`size` students, kinds drawn in the MIX proportions (exact counts, shuffled)."""
    rng = random.Random(f"{seed}-{assignment}")
    counts = {kind: int(share * size) for kind, share in MIX.items()}
    counts["alternative"] += size - sum(counts.values())
    kinds = [kind for kind, count in counts.items() for _ in range(count)]
    rng.shuffle(kinds)
    correct: dict[str, list[Answer]] = {}
    for answer in correct_answers(assignment):
        correct.setdefault(answer.exercise, []).append(answer)
    wrong = wrong_answers(assignment)
    plan = []
    for index, kind in enumerate(kinds, start=1):
        answers: tuple[Answer, ...] = ()
        if kind == "alternative":
            answers = tuple(rng.choice(options) for options in correct.values())
        elif kind == "mistake":
            first = rng.choice(wrong)
            others = [a for a in wrong if a.exercise != first.exercise]
            answers = (first, rng.choice(others)) if rng.random() < 0.3 and others else (first,)
        plan.append(Submission(f"{prefix}{index:03d}", kind, answers))
    return plan


def write_class(course: Path, assignment: str, plan: list[Submission]) -> None:
    """Each planned submission as nbgrader expects it: submitted/<student>/<assignment>/ with a timestamp."""
    release = course / "release" / assignment
    exercises = set(solution_sources(assignment))
    for submission in plan:
        folder = course / "submitted" / submission.student / assignment
        if folder.exists():
            shutil.rmtree(folder)
        answers = [a for a in submission.answers if a.exercise in exercises]
        write_submission(assignment, folder, answers, blank=submission.kind == "blank", release=release)
        for extra in release.iterdir():
            if extra.suffix != ".ipynb":
                shutil.copy(extra, folder / extra.name)
        (folder / "timestamp.txt").write_text("2026-11-20 12:00:00.000000 UTC")
