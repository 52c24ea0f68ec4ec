"""A synthetic class: students who submit the reference, other correct forms, known mistakes, or nothing.

Used by the demo and the benchmark. Deterministic for a seed, so two runs grade the same class.
"""

import random
import shutil
from dataclasses import dataclass
from pathlib import Path

from autograder.devtools.catalogue import Answer, correct_answers, solution_sources, write_submission, wrong_answers

# Share of each kind of submission in a class.
MIX = {"reference": 0.15, "alternative": 0.33, "mistake": 0.40, "blank": 0.10, "adversarial": 0.02}

# Misbehaving answers for the first exercise: `{def}` is its def line, `{wrong}` a known wrong answer.
ADVERSARIAL = {
    "patches-numpy": (
        "import numpy as np\nnp.allclose = lambda *a, **k: True\nnp.array_equal = lambda *a, **k: True\n{wrong}"
    ),
    "infinite-loop": "{def}\n    while True:\n        pass",
    "kills-its-process": "import os\n{def}\n    os._exit(0)",
    "reads-the-gradebook": "{def}\n    return open('../../../gradebook.db', 'rb').read()",
    "floods-output": "{def}\n    while True:\n        print('spam ' * 1000)",
}


def adversarial_answers(assignment: str) -> list[Answer]:
    exercise, source = next(iter(solution_sources(assignment).items()))
    definition = next(line for line in source.splitlines() if line.startswith("def "))
    wrong = next(a.code for a in wrong_answers(assignment) if a.exercise == exercise)
    return [Answer(exercise, name, code.replace("{def}", definition).replace("{wrong}", wrong))
            for name, code in ADVERSARIAL.items()]


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
        return f"{self.kind}: {names}" if self.kind != "alternative" else f"{len(self.answers)} alternative forms"


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
    attacks = adversarial_answers(assignment)
    plan = []
    for index, kind in enumerate(kinds, start=1):
        answers: tuple[Answer, ...] = ()
        if kind == "alternative":
            answers = tuple(rng.choice(options) for options in correct.values())
        elif kind == "mistake":
            first = rng.choice(wrong)
            others = [a for a in wrong if a.exercise != first.exercise]
            answers = (first, rng.choice(others)) if rng.random() < 0.3 and others else (first,)
        elif kind == "adversarial":
            answers = (attacks[sum(p.kind == kind for p in plan) % len(attacks)],)
        plan.append(Submission(f"{prefix}{index:03d}", kind, answers))
    return plan


def write_class(course: Path, assignment: str, plan: list[Submission], submitted: Path | None = None) -> None:
    """Each planned submission as nbgrader expects it: submitted/<student>/<assignment>/ with a timestamp,
    under the course's `submitted/` or the folder `submitted` names."""
    release = course / "release" / assignment
    exercises = set(solution_sources(assignment))
    for submission in plan:
        folder = (submitted or course / "submitted") / submission.student / assignment
        if folder.exists():
            shutil.rmtree(folder)
        answers = [a for a in submission.answers if a.exercise in exercises]
        write_submission(assignment, folder, answers, blank=submission.kind == "blank", release=release)
        for extra in release.iterdir():
            if extra.suffix != ".ipynb":
                shutil.copy(extra, folder / extra.name)
        (folder / "timestamp.txt").write_text("2026-11-20 12:00:00.000000 UTC")
