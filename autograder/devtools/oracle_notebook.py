"""The oracle attack's (`devtools.oracle`) notebook: mallory's submission, with `oracle_student`'s code and a
plan in a cell of its own, the attacking target and dependent, and at the end a target that answers from a
table of what the attack read.
"""

import base64
import shutil
from pathlib import Path

import nbformat

from autograder.devtools import oracle_student as student_side
from autograder.devtools.catalogue import write_submission
from autograder.devtools.oracle_bound import graded_calls
from autograder.devtools.oracle_plan import ASSIGNMENT, DEPENDENT, STUDENT, TARGET, Stream
from autograder.grader_support.exercise import reference_function
from autograder.nbgrader_glue.notebook import grade_id


def attack_cell(plan: dict) -> str:
    """The student's side: `oracle_student`'s text with this submission's plan."""
    return Path(student_side.__file__).read_text() + f"\nPLAN.update({plan!r})\n"


def raise_at(who: str) -> str:
    """A function raising at line 1 + v of its cell for v: put first in an attacking function's cell."""
    lines = [f"def raise_at_{who}(v, E, text):"]
    lines += [f"    if v == {value}: raise E(text)" for value in range(1 << student_side.LINE_BITS)]
    return "\n".join(lines) + "\n\n\n"


TARGET_CODE = raise_at("E") + f"""def {TARGET}(*args, **kwargs):
    return attack_target(args)


MINE["{TARGET}"] = {TARGET}"""

DEPENDENT_CODE = raise_at("D") + f"""def {DEPENDENT}(w_hh, w_hx, h_t_prev, x_t, b_h, formula=1, g=sigmoid):
    def honest():
        return g((formula_1 if formula == 1 else formula_2)(w_hh, w_hx, h_t_prev, x_t) + b_h)

    return attack_dependent(honest, {TARGET})"""


def lookup_code(table: dict[bytes, tuple[bytes, str, tuple]]) -> str:
    """A target answering from a table of what the attack read (arguments -> answer, dtype, shape): no
    formula in it."""
    entries = {base64.b64encode(k).decode(): (base64.b64encode(v).decode(), d, s) for k, (v, d, s) in table.items()}
    return f"""import base64 as _b64
_TABLE = {entries!r}


def {TARGET}(*args, **kwargs):
    key = _b64.b64encode(serial(args)).decode()
    data, dtype, shape = _TABLE[key]
    return np.frombuffer(_b64.b64decode(data), dtype=dtype).reshape(shape).astype(float)"""


def write_attack(course: Path, plan: dict | None, target_code: str = TARGET_CODE) -> None:
    from autograder.devtools.catalogue import Answer

    folder = course / "submitted" / STUDENT / ASSIGNMENT
    shutil.rmtree(folder, ignore_errors=True)
    answers = [Answer(TARGET, "attack", target_code), Answer(DEPENDENT, "attack", DEPENDENT_CODE)]
    path = write_submission(ASSIGNMENT, folder, answers, blank=True, release=course / "release" / ASSIGNMENT)
    shutil.copy(course / "release" / ASSIGNMENT / "selfcheck.py", folder)
    nb = nbformat.read(str(path), as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if grade_id(c) == "imports") + 1
    nb.cells.insert(at, nbformat.v4.new_code_cell(attack_cell(plan or {})))
    after = next(i for i, c in enumerate(nb.cells) if grade_id(c) == f"test_{TARGET}") + 1
    nb.cells.insert(after, nbformat.v4.new_code_cell("print(printed())"))
    nbformat.write(nb, str(path))


def lookup_table(inputs: list[Stream], expected: Stream) -> str:
    """The target as a table from what was read: arguments (as sent) to answers (as sent)."""
    import numpy as np

    calls = graded_calls(ASSIGNMENT, TARGET)
    reference = reference_function(ASSIGNMENT, TARGET)
    expected_bits = "".join(b or "0" for b in expected.known)
    table, cursor = {}, 0
    for k, (_, args, _) in enumerate(calls):
        key_bits = "".join(b or "0" for b in inputs[k].known)
        key = int(key_bits, 2).to_bytes(len(key_bits) // 8, "big")
        answer = np.asarray(reference(*args))  # only its shape and dtype: the values come from what was read
        size = 4 * answer.size
        data = int(expected_bits[8 * cursor:8 * (cursor + size)], 2).to_bytes(size, "big")
        cursor += size
        table[key] = (data, "<f4" if answer.dtype.kind == "f" else "<i4", answer.shape)
    return lookup_code(table)
