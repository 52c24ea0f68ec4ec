"""A synthetic class: students who submit the reference, other correct forms, known mistakes, or nothing.

Used by the demo and the benchmark. Deterministic for a seed, so two runs grade the same class.
"""

import random
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

import nbformat

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
    kind: str  # a key of MIX, or "copied" (the demo's pair who shared work: `autograder similarity` finds them)
    answers: tuple[Answer, ...] = ()
    copied_from: str | None = None  # the student whose notebook file this one handed in, names changed

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
    return _with_a_copied_pair(assignment, plan)


def _with_a_copied_pair(assignment: str, plan: list[Submission]) -> list[Submission]:
    """The first student who wrote other correct forms hands in, instead, the answers of the first student who
    made two mistakes, with every name they chose renamed: the class's copied pair (README, "Academic integrity:
    similarity")."""
    from autograder.devtools.similarity_class import Student, copy_of

    sources = [i for i, s in enumerate(plan) if s.kind == "mistake" and len(s.answers) == 2]
    writers = [i for i, s in enumerate(plan) if s.kind == "alternative"]
    if not sources or not writers:
        return plan
    source, copier = plan[sources[0]], plan[writers[0]]
    copied = copy_of(assignment, Student(source.student, {a.exercise: a for a in source.answers}), "renamed",
                     copier.student)
    plan[writers[0]] = Submission(copier.student, "copied", tuple(copied.answers.values()), source.student)
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
    for submission in plan:
        if submission.copied_from:
            for student in (submission.copied_from, submission.student):
                _add_scratch_cell(submitted or course / "submitted", student, assignment, submission.copied_from)


def _add_scratch_cell(submitted: Path, student: str, assignment: str, author: str) -> None:
    """A cell `author` added to their notebook to try something out, with its id and output: in the copied
    pair's notebooks both, since the copier handed in the author's file."""
    path = submitted / student / assignment / f"{assignment}.ipynb"
    notebook = nbformat.read(str(path), as_version=4)
    cell = nbformat.v4.new_code_cell("print(np.ones((3, 2)).shape, 'trying the shapes')", execution_count=7,
                                     outputs=[nbformat.v4.new_output("stream", text="(3, 2) trying the shapes\n")])
    cell.id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{author}/{assignment}"))
    notebook.cells.insert(2, cell)
    nbformat.write(notebook, str(path))
