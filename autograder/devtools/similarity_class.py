"""Labelled classes for `autograder similarity`: honest students who answer each exercise on their own (from
the catalogue's correct and wrong answers, in their own style, with their own scratch cells, notes and
execution counts) and planted groups who copied, each copy disguised one way (renamed, reformatted,
reordered, re-commented, one error fixed, the whole file copied). Written as a course folder holds them:
`release/`, `submitted/<student>/<assignment>/` and the result files `autograder grade` writes, the wrong
answers' verdicts from the real graders. Used by `make bench-similarity` and the tests.

Honest students are made to look alike the way a class does: a student's chance to write the reference
answer, another correct form or a known mistake is their own and holds for every exercise, and their scratch
cells are drawn from a short list that many students type.
"""

import ast
import json
import random
import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder.devtools import similarity_disguises
from autograder.devtools.catalogue import Answer, correct_answers, solution_sources, wrong_answers
from autograder.devtools.repo import ROOT
from autograder.grader_support.exercise import run_exercise
from autograder.grader_support.student import InProcessStudent
from autograder.grading.model import CellResult, SubmissionResult
from autograder.nbgrader_glue.notebook import grade_id, is_solution
from autograder.similarity.code_tokens import NAME, tokens
from autograder.similarity.program_form import effects

# The first six are the benchmark's first (kept first: the tests' classes draw them in turn); then the disguises
# that change tokens and nothing else (`similarity_disguises`, issue 43), and all of them at once.
DISGUISES = ("renamed", "reformatted", "reordered", "recommented", "fixed", "whole-file",
             *similarity_disguises.DISGUISES, "stacked")
OWN_MISTAKE = "own-mistake"  # an answer's name for `own_mistake`: graded as the catalogue's wrong answers are
SCRATCH = ["print(np.ones((3, 2)).shape)", "print(W.shape)", "np.hstack((np.ones((3, 2)), np.ones((3, 3))))",
           "x = np.arange(6).reshape(3, 2)\nx", "help(np.concatenate)", "print('ok')"]
NOTES = ["TODO: check the shapes again", "I was not sure about the axis here, I tried both",
         "Note to self: hstack joins columns, vstack joins rows"]


@dataclass
class Student:
    name: str
    answers: dict[str, Answer]  # exercise -> the answer (its code as this student wrote it)
    notebook: dict | None = None  # built by `_notebook`; a whole-file copier's is the source's
    group: int | None = None  # planted group, None for an honest student


@dataclass
class LabelledClass:
    students: list[Student]
    planted: set[frozenset[str]] = field(default_factory=set)  # every pair inside a planted group
    groups: list[list[str]] = field(default_factory=list)


def _honest_style(rng: random.Random, code: str) -> str:
    """How one student happens to write an approach: each a coin of their own, and none changes what the
    code does (a name for the result, a list for a tuple, `axis=` spelled or not, `@` or `np.dot`, floats
    written as floats, a shape assertion)."""
    if rng.random() < 0.3:
        code = re.sub(r"^(\s*)return (.+)$", lambda m: f"{m[1]}result = {m[2]}\n{m[1]}return result", code,
                      count=1, flags=re.M)
    if rng.random() < 0.3:
        code = re.sub(r"\(\(([^()]*)\)\)", r"([\1])", code)
    if rng.random() < 0.3:
        code = re.sub(r", axis=(\d)\)", r", \1)", code)
    if rng.random() < 0.3:
        code = re.sub(r"(\w+) @ (\w+)", lambda m: f"np.{rng.choice(['dot', 'matmul'])}({m[1]}, {m[2]})", code)
    if rng.random() < 0.3:
        code = re.sub(r"\b1 ([/+])", r"1.0 \1", code)
    if rng.random() < 0.15:
        code = re.sub(r"^(\s*)return (\w+)$", lambda m: f"{m[1]}assert {m[2]}.ndim == 2\n{m[0]}", code,
                      count=1, flags=re.M)
    return code


def _renamed(rng: random.Random, code: str, kept: frozenset[str]) -> str:
    """Every name a student chose renamed, consistently; not the parameters of the functions the cell defines:
    the exercise fixes them, and the graders call with them by name (`formula=2`), so renaming them would
    change what the answer does."""
    try:
        kept |= {a.arg for node in ast.walk(ast.parse(code)) if isinstance(node, ast.FunctionDef)
                 for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    except SyntaxError:
        pass  # an answer that does not parse: every name renamed
    mapping: dict[str, str] = {}
    out, last = [], 0
    for token in tokens(code, kept):
        original = code[token.start:token.end]
        line = code[:token.start].rsplit("\n", 1)[-1]
        keyword_argument = (re.match(r"\s*=(?!=)", code[token.end:]) and code[:token.start].rstrip()[-1:] in ("(", ",")
                            and line.count("(") > line.count(")") and not line.lstrip().startswith("def "))
        if token.text == NAME and not keyword_argument:
            mapping.setdefault(original, f"{rng.choice(['a', 'my', 'tmp', 'val'])}_{len(mapping)}")
            out.append(code[last:token.start] + mapping[original])
            last = token.end
    return "".join(out) + code[last:]


def _reformatted(code: str) -> str:
    """Spaces taken out after commas and around operators, and the first call's arguments on a line of
    their own, as a formatter or another hand lays them out."""
    code = re.sub(r"(?<=[\w)\]]) ([-+*/@]) (?=[\w(])", r"\1", code.replace(", ", ","))
    return re.sub(r"^(\s+\S[^(\n]*)\(", lambda m: m[1] + "(\n" + " " * 12, code, count=1, flags=re.M)


def _reordered(code: str) -> str:
    """The first two adjacent assignments of a function's body swapped when neither reads or writes what the other
    writes (`program_form.effects`), their lines moved as written."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    lines = code.split("\n")
    for node in ast.walk(tree):
        body = node.body if isinstance(node, ast.FunctionDef) else []
        for first, second in zip(body, body[1:], strict=False):
            if not (isinstance(first, ast.Assign | ast.AugAssign) and isinstance(second, ast.Assign | ast.AugAssign)):
                continue
            (r1, w1), (r2, w2) = effects(first), effects(second)
            if w1 & (r2 | w2) or w2 & r1:
                continue
            a = lines[first.lineno - 1:first.end_lineno]
            b = lines[second.lineno - 1:second.end_lineno]
            return "\n".join(lines[:first.lineno - 1] + b + a + lines[second.end_lineno:])
    return "# same order: the body has no two independent statements\n" + code


def _recommented(code: str) -> str:
    lines = [line for line in code.splitlines() if not line.strip().startswith("#")]
    return "\n".join(line + ("  # my own working" if line.strip().startswith("return") else "") for line in lines)


def disguise(how: str, answers: dict[str, Answer], rng: random.Random, kept: frozenset[str],
             reference: dict[str, str], wrong_labels: set[str]) -> dict[str, Answer]:
    """The answers as a copier disguises them (`how`: one of DISGUISES)."""
    if how == "fixed":  # one of the source's mistakes put right (a copy with nothing to fix stays as it was)
        wrong = [e for e, a in answers.items() if a.label in wrong_labels]
        fixed = dict(answers)
        for exercise in wrong[:1]:
            fixed[exercise] = Answer(exercise, "reference", reference[exercise])
        return fixed
    change = {"renamed": lambda c: _renamed(rng, c, kept), "reformatted": _reformatted, "reordered": _reordered,
              "recommented": _recommented,
              # renamed, then every disguise of `similarity_disguises` (the text-level ones above would cut a
              # docstring that `ast.unparse` put on one line)
              "stacked": lambda c: similarity_disguises.disguised("stacked", _renamed(rng, c, kept)),
              }.get(how, lambda c: similarity_disguises.disguised(how, c) if how in similarity_disguises.DISGUISES
                    else c)
    return {e: Answer(e, a.name, change(a.code), a.hint) for e, a in answers.items()}


def copy_of(assignment: str, source: Student, how: str, name: str, seed: int = 7) -> Student:
    """A student who copied `source`'s answers, disguised `how` (one of DISGUISES); a whole-file copier hands
    in the source's notebook file itself."""
    rng = random.Random(f"{seed}-{name}")
    reference = solution_sources(assignment)
    kept = frozenset(reference) | {"np", "numpy"}
    answers = disguise(how, source.answers, rng, kept, reference, {a.label for a in wrong_answers(assignment)})
    return Student(name, answers, notebook=source if how == "whole-file" else None, group=source.group)


def textbook(assignment: str, name: str) -> Student:
    """A student who writes the reference answer to every exercise, as printed."""
    return Student(name, {e: Answer(e, "reference", code) for e, code in solution_sources(assignment).items()})


def own_mistake(code: str) -> str:
    """The answer with a mistake of the student's own, which no catalogue answer makes: its returned value halved."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and node.value is not None:
            node.value = ast.BinOp(ast.Constant(0.5), ast.Mult(), node.value)
    return ast.unparse(ast.fix_missing_locations(tree))


def plan(assignment: str, size: int, seed: int = 7, groups: int = 0, rings: int = 0, one_style: bool = False,
         rare: int = 0) -> LabelledClass:
    """`size` students: honest ones, then `groups` planted pairs and `rings` planted groups of three, each
    copier disguised one of DISGUISES' ways (in turn; a copier who fixes a mistake copies a student who made
    one), then `rare` planted pairs who share two wrong answers of their own (`own_mistake`, renamed by the
    copier) and nothing else: the rest of the copier's answers are their own. With `one_style`, an honest
    student's style (`_honest_style`'s coins) is the same in every exercise, as a person's habits are: honest
    students then share whole sets of answers more often, the harder class for precision."""
    rng = random.Random(f"{seed}-{assignment}")
    reference = solution_sources(assignment)
    correct: dict[str, list[Answer]] = {}
    wrong: dict[str, list[Answer]] = {}
    for answer in correct_answers(assignment):
        correct.setdefault(answer.exercise, []).append(answer)
    for answer in wrong_answers(assignment):
        wrong.setdefault(answer.exercise, []).append(answer)
    honest = size - groups - 2 * rings - rare  # a pair has one copier, a ring two

    def answers_alone() -> dict[str, Answer]:
        p_reference, p_wrong = rng.uniform(0.15, 0.6), rng.uniform(0.0, 0.3)
        habit = rng.getrandbits(64) if one_style else 0  # drawn only then: the default classes stay as they were
        answers = {}
        for exercise, code in reference.items():
            style = random.Random(habit) if one_style else rng
            draw = rng.random()
            if draw < p_wrong and wrong.get(exercise):
                answers[exercise] = rng.choice(wrong[exercise])
            elif draw < p_wrong + p_reference:
                answers[exercise] = Answer(exercise, "reference", _honest_style(style, code))
            else:
                pick = rng.choice(correct[exercise])
                answers[exercise] = Answer(exercise, pick.name, _honest_style(style, pick.code))
        return answers

    students = [Student(f"h{index:03d}", answers_alone()) for index in range(honest)]
    result = LabelledClass(students)
    wrong_labels = {a.label for answers in wrong.values() for a in answers}
    turn = 0
    sources = rng.sample(students, groups + rings)
    for number, source in enumerate(sources):
        hows = [DISGUISES[(turn + k) % len(DISGUISES)] for k in range(2 if number >= groups else 1)]
        turn += len(hows)
        if "fixed" in hows and not any(a.label in wrong_labels for a in source.answers.values()):
            source = rng.choice([s for s in students if s not in sources and s.group is None
                                 and any(a.label in wrong_labels for a in s.answers.values())] or [source])
        source.group = number
        members = [source.name]
        for how in hows:
            copier = copy_of(assignment, source, how, f"c{len(result.students):03d}-{how}", seed)
            result.students.append(copier)
            members.append(copier.name)
        result.groups.append(members)
        result.planted |= {frozenset((a, b)) for a in members for b in members if a < b}
    for number, source in enumerate(rng.sample([s for s in students if s.group is None], rare), groups + rings):
        source.group = number
        copier = Student(f"c{len(result.students):03d}-rare-wrong", answers_alone(), group=number)
        kept = frozenset(reference) | {"np", "numpy"}
        for exercise in rng.sample(sorted(reference), 2):
            mistake = Answer(exercise, OWN_MISTAKE, own_mistake(reference[exercise]))
            source.answers[exercise] = mistake
            copier.answers[exercise] = Answer(exercise, OWN_MISTAKE, _renamed(rng, mistake.code, kept))
        result.students.append(copier)
        result.groups.append([source.name, copier.name])
        result.planted.add(frozenset((source.name, copier.name)))
    return result


def semantics_checked(assignment: str, labelled: LabelledClass) -> tuple[int, list[str]]:
    """Every disguised answer of the planted copies run against its original (`similarity_disguises.
    same_behaviour`: the graders' verdict, value for value), but the copier who fixed an error on purpose (and of
    a rare-wrong copier, only the mistakes copied): how
    many were checked, and one line for each that behaves otherwise (none, or the disguise is broken)."""
    by_name = {student.name: student for student in labelled.students}
    checked, broken = 0, []
    for group in labelled.groups:
        source = by_name[group[0]]
        for name in group[1:]:
            if name.endswith("-fixed"):
                continue
            for exercise, answer in by_name[name].answers.items():
                if name.endswith("-rare-wrong") and answer.name != OWN_MISTAKE:
                    continue  # the rare-wrong copier's own answer
                original = source.answers[exercise].code
                if answer.code != original:
                    checked += 1
                    if not similarity_disguises.same_behaviour(assignment, exercise, original, answer.code):
                        broken.append(f"{name}: {exercise} ({source.answers[exercise].label}) behaves otherwise")
    return checked, broken


def _notebook(release: dict, student: Student, rng: random.Random) -> dict:
    """The release with the student's answers, their scratch cells and notes, and their execution counts."""
    nb = json.loads(json.dumps(release))
    cells = nb["cells"]
    for cell in cells:
        if is_solution(cell) and grade_id(cell) in student.answers:
            cell["source"] = student.answers[grade_id(cell)].code
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        source = rng.choice(SCRATCH)
        output = {"output_type": "stream", "name": "stdout", "text": "(3, 5)\n" if "shape" in source else "ok\n"}
        cells.insert(rng.randrange(1, len(cells)), {"cell_type": "code", "id": str(uuid.UUID(int=rng.getrandbits(128))),
                                                   "metadata": {}, "source": source, "outputs": [output],
                                                   "execution_count": None})
    if rng.random() < 0.3:
        own = f"My answer: {' '.join(rng.sample(NOTES, 2))} {rng.random():.6f}"  # a student's own words
        note = rng.choice(NOTES) if rng.random() < 0.5 else own
        cells.insert(rng.randrange(1, len(cells)), {"cell_type": "markdown", "id": uuid.uuid4().hex[:8],
                                                   "metadata": {}, "source": note})
    code = [c for c in cells if c["cell_type"] == "code"]
    if rng.random() < 0.3:
        counts = list(range(1, len(code) + 1))  # Restart and Run All
    else:
        counts, n = [], 0
        for _ in code:
            n += rng.choice([1, 1, 2, 3])
            counts.append(n if rng.random() < 0.9 else None)
    for cell, count in zip(code, counts, strict=True):
        cell["execution_count"] = count
    return nb


def _graded(assignment: str, answers: list[Answer], cache: dict) -> dict[str, CellResult]:
    """The graders' verdict on the reference with each wrong answer in turn (cached by answer): a student's
    failing exercises are those any of their wrong answers breaks, as the real graders see it."""
    found: dict[str, CellResult] = {}
    for answer in answers:
        if answer.label not in cache:
            namespace = {"np": np, "__name__": "__main__"}
            for code in solution_sources(assignment).values():
                exec(code, namespace)  # noqa: S102 - the catalogue's own answers
            exec(answer.code, namespace)  # noqa: S102
            cache[answer.label] = {}
            for exercise in solution_sources(assignment):
                verdict = run_exercise(assignment, exercise, InProcessStudent(namespace))
                if verdict.score < verdict.max_score:
                    cache[answer.label][exercise] = CellResult(f"test_{exercise}", verdict.max_score, verdict.score,
                                                              exercise=verdict)
        for exercise, cell in cache[answer.label].items():
            found.setdefault(exercise, cell)
    return found


def write(course: Path, assignment: str, labelled: LabelledClass, seed: int = 7) -> None:
    """The class as files in `course` (made if missing): release, submitted notebooks, result files."""
    rng = random.Random(seed)
    release_folder = course / "release" / assignment
    if not release_folder.exists():
        shutil.copytree(ROOT / "release" / assignment, release_folder)
    release = json.loads((release_folder / f"{assignment}.ipynb").read_text())
    built: dict[str, dict] = {}
    cache: dict = {}
    wrong_labels = {a.label for a in wrong_answers(assignment)} | {
        a.label for student in labelled.students for a in student.answers.values() if a.name == OWN_MISTAKE}
    for student in labelled.students:
        source = student.notebook
        if isinstance(source, Student):
            nb = json.loads(json.dumps(built[source.name]))
        else:
            nb = _notebook(release, student, rng)
        built[student.name] = nb
        folder = course / "submitted" / student.name / assignment
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{assignment}.ipynb").write_text(json.dumps(nb))
        wrong = [a for a in student.answers.values() if a.label in wrong_labels]
        cells = _graded(assignment, wrong, cache)
        result = SubmissionResult(student.name, assignment, cells=[
            cells.get(e) or CellResult(f"test_{e}", 1.0, 1.0) for e in solution_sources(assignment)])
        graded = course / "autograded" / student.name / assignment
        graded.mkdir(parents=True, exist_ok=True)
        result.save(graded)
