"""nbgrader's sanitising steps on plain notebooks (no nbgrader, no sandbox): each rule, and one that a wrong
rule would break."""

import copy

from autograder.grading.model import SourceCell, SourceNotebook
from autograder.grading.sanitise import clear_output, deduplicate_ids, overwrite_cells, sanitise
from autograder.nbgrader_glue.notebook import checksum


def cell(source: str, kind: str = "code", **nbgrader) -> dict:
    meta = {"nbgrader": nbgrader} if nbgrader else {}
    extra = {"outputs": [{"output_type": "stream", "name": "stdout", "text": "old"}], "execution_count": 7}
    return {"cell_type": kind, "source": source, "metadata": meta, **(extra if kind == "code" else {})}


def locked(source: str, gid: str) -> dict:
    c = cell(source, grade=False, solution=False, locked=True, grade_id=gid)
    c["metadata"]["nbgrader"]["checksum"] = checksum(c)
    return c


def graded(source: str, gid: str, points: float) -> dict:
    c = cell(source, grade=True, solution=False, locked=True, grade_id=gid, points=points)
    c["metadata"]["nbgrader"]["checksum"] = checksum(c)
    return c


def source_of(*cells: dict, points: dict[str, float] | None = None, solutions: tuple[str, ...] = ()) -> SourceNotebook:
    stored = [SourceCell(c["metadata"]["nbgrader"]["grade_id"], c["cell_type"], bool(c["metadata"]["nbgrader"]
                         .get("locked")), c["source"], c["metadata"]["nbgrader"].get("checksum")) for c in cells]
    return SourceNotebook("nb", stored, dict(points or {}), set(solutions))


def test_clear_output_empties_code_cells_only():
    nb = {"cells": [cell("print(1)"), cell("# text", kind="markdown")]}
    clear_output(nb)
    assert nb["cells"][0]["outputs"] == [] and nb["cells"][0]["execution_count"] is None
    assert "outputs" not in nb["cells"][1]


def test_deduplicate_ids_keeps_the_last_cell_of_an_id():
    first, second = graded("a = 1", "test_a", 2), graded("a = 2", "test_a", 2)
    nb = {"cells": [first, cell("x = 0"), second]}
    deduplicate_ids(nb)
    assert nb["cells"][0]["metadata"]["nbgrader"] == {}  # the earlier copy is a plain cell
    assert nb["cells"][2]["metadata"]["nbgrader"]["grade_id"] == "test_a"


def test_an_id_that_is_not_a_string_is_left_for_overwrite_to_drop():
    odd = cell("y = 1", grade=True, locked=True, grade_id=5, points=1)
    nb = {"cells": [odd, copy.deepcopy(odd)]}
    deduplicate_ids(nb)
    assert all(c["metadata"]["nbgrader"]["grade_id"] == 5 for c in nb["cells"])
    overwrite_cells(nb, source_of(graded("y = 1", "test_y", 1), points={"test_y": 1}))
    assert all(c["metadata"]["nbgrader"] == {} for c in nb["cells"])


def test_a_locked_cell_edited_by_the_student_gets_the_gradebook_s_text_back():
    original = locked("import numpy as np", "setup")
    edited = copy.deepcopy(original)
    edited["source"] = "import os; os.system('rm -rf ~')"
    nb = {"cells": [edited]}
    overwrite_cells(nb, source_of(original))
    assert nb["cells"][0]["source"] == "import numpy as np"


def test_points_and_flags_come_from_the_gradebook_not_the_submission():
    original = graded("check()", "test_f", 3)
    claimed = copy.deepcopy(original)
    claimed["metadata"]["nbgrader"].update(points=100, grade=True, solution=True)
    nb = {"cells": [claimed]}
    overwrite_cells(nb, source_of(original, points={"test_f": 3}))
    meta = nb["cells"][0]["metadata"]["nbgrader"]
    assert meta["points"] == 3 and meta["solution"] is False and meta["grade"] is True


def test_an_id_the_gradebook_does_not_know_makes_a_plain_cell():
    forged = graded("print('free points')", "test_forged", 50)
    nb = {"cells": [forged]}
    overwrite_cells(nb, source_of(graded("check()", "test_f", 3), points={"test_f": 3}))
    assert nb["cells"][0]["metadata"]["nbgrader"] == {}


def test_a_cell_type_changed_by_the_student_is_restored():
    original = graded("check()", "test_f", 3)
    as_markdown = {"cell_type": "markdown", "source": "check()", "metadata": copy.deepcopy(original["metadata"])}
    nb = {"cells": [as_markdown]}
    overwrite_cells(nb, source_of(original, points={"test_f": 3}))
    assert nb["cells"][0]["cell_type"] == "code" and nb["cells"][0]["outputs"] == []


def test_sanitise_copies_unless_told_not_to():
    original = locked("x = 1", "setup")
    submitted = {"cells": [original]}
    sanitised = sanitise(submitted, source_of(original), add_missing=False)
    assert sanitised["cells"][0]["outputs"] == [] and submitted["cells"][0]["outputs"] != []
    in_place = sanitise(submitted, source_of(original), add_missing=False, copy=False)
    assert in_place is submitted and submitted["cells"][0]["outputs"] == []
