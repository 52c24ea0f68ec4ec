"""`autograder similarity`: a labelled class written as a course holds it (release, submitted notebooks built
from the release with answers spliced in, result files with the real graders' verdicts on the wrong answers;
no nbgrader run), compared through the command's own reading path.

The class: honest students answering on their own (`devtools.similarity_class.plan`), textbook students who
write the reference everywhere, a pair who copied with renamed variables and reformatted code, a ring of
three, two students of whom one pasted a cell the other created, and hostile notebooks.
"""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.devtools import similarity_class as sc
from autograder.devtools.catalogue import correct_answers, wrong_answers
from autograder.similarity import compare_class, read_class
from autograder.similarity.evidence import bits, explain, threshold

A = "hidden_state_activation"
HONEST = 150
TEXTBOOK = [f"tb{i}" for i in range(30)]  # a fifth of the class writes the reference, as printed, everywhere


def _answer(label: str):
    return next(a for a in correct_answers(A) + wrong_answers(A) if a.label == label)


# A source with answers few would write: a loop, a preallocation, a known mistake.
RARE = {a.exercise: a for a in map(_answer, ["concat_weights/preallocate", "concat_state_input/preallocate",
                                             "formula_1/loops", "sigmoid/in-place", "hidden_state/dict-dispatch"])}

RING = {a.exercise: a for a in map(_answer, ["concat_weights/column-loop", "concat_state_input/row-list",
                                             "formula_1/swapped-consistently", "formula_2/float-result",
                                             "sigmoid/tanh", "hidden_state/1-d-bias"])}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    course = tmp_path_factory.mktemp("similarity")
    labelled = sc.plan(A, HONEST, seed=11)
    students = labelled.students
    students += [sc.textbook(A, name) for name in TEXTBOOK]
    ana = sc.Student("ana", {**students[0].answers, **RARE})
    bob = sc.copy_of(A, sc.copy_of(A, ana, "renamed", "x"), "reformatted", "bob")
    cat = sc.Student("cat", {**students[1].answers, **RING})
    dan = sc.copy_of(A, cat, "recommented", "dan")
    eli = sc.copy_of(A, cat, "reordered", "eli")
    hal, ian = sc.textbook(A, "hal"), sc.textbook(A, "ian")  # nothing rare in their answers
    students += [ana, bob, cat, dan, eli, hal, ian]
    sc.write(course, A, labelled)
    # ian pasted a cell hal created (its id with it) into his notebook; both keep the release's own cells.
    notebook = lambda who: course / "submitted" / who / A / f"{A}.ipynb"  # noqa: E731
    hal_nb, ian_nb = json.loads(notebook("hal").read_text()), json.loads(notebook("ian").read_text())
    hal_nb["cells"].insert(3, {"cell_type": "code", "id": "4f2a9c1e-hal", "metadata": {}, "source": "w.shape",
                               "outputs": [], "execution_count": None})
    ian_nb["cells"].insert(5, dict(hal_nb["cells"][3]))
    notebook("hal").write_text(json.dumps(hal_nb))
    notebook("ian").write_text(json.dumps(ian_nb))
    # The ring passed one notebook file around, each disguising the code in it: a cell cat added went with it.
    for who in ("cat", "dan", "eli"):
        nb = json.loads(notebook(who).read_text())
        nb["cells"].insert(4, {"cell_type": "markdown", "id": "9b1d77c0-cat", "metadata": {},
                               "source": "Scratch: trying the loops first"})
        notebook(who).write_text(json.dumps(nb))
    _hostile(course)
    return course


HOSTILE = {
    "junk": b'{"cells": [ this is not JSON',
    "latin1": '{"cells": [], "note": "caf\xe9"}'.encode("latin-1"),
    "alist": b"[1, 2, 3]",
    "manycells": json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": "x", "outputs": [],
         "execution_count": None} for i in range(10_000)]}).encode(),
}


def _hostile(course: Path) -> None:
    """Bad notebooks beside the class; and notebooks odd but readable: one cell of a megabyte, no cell ids
    (nbformat 4.4), a cell id crafted to be one of the release's."""
    for student, data in HOSTILE.items():
        folder = course / "submitted" / student / A
        folder.mkdir(parents=True)
        (folder / f"{A}.ipynb").write_bytes(data)
    linked = course / "submitted" / "linker" / A
    linked.mkdir(parents=True)
    (linked / f"{A}.ipynb").symlink_to(course / "submitted" / "ana" / A / f"{A}.ipynb")
    release = json.loads((course / "release" / A / f"{A}.ipynb").read_text())
    huge = json.loads(json.dumps(release))
    answer = next(c for c in huge["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "concat_weights")
    answer["source"] = "def concat_weights(w_hh, w_hx):\n" + "    x = 1 + 2 * 3\n" * 60_000
    no_ids = json.loads(json.dumps(release))
    no_ids["nbformat_minor"] = 4
    for cell in no_ids["cells"]:
        cell.pop("id", None)
    crafted = json.loads(json.dumps(release))
    crafted["cells"].insert(2, {**crafted["cells"][3], "id": release["cells"][0]["id"]})
    for student, nb in (("huge", huge), ("noids", no_ids), ("crafted", crafted)):
        folder = course / "submitted" / student / A
        folder.mkdir(parents=True)
        (folder / f"{A}.ipynb").write_text(json.dumps(nb))


@pytest.fixture(scope="module")
def comparison(course):
    return compare_class(course, A)


def pairs_of(comparison) -> dict[frozenset, object]:
    return {frozenset((p.a, p.b)): p for p in comparison.pairs}


def test_a_copy_with_renamed_variables_and_reformatting_is_flagged(comparison):
    pair = pairs_of(comparison).get(frozenset(("ana", "bob")))
    assert pair is not None and pair.score >= comparison.threshold
    same = [e for e in pair.evidence if e.kind == "code" and "100% of the code they wrote is the same" in e.text]
    assert len(same) >= 2
    together = next(e for e in pair.evidence if e.kind == "together")
    assert together.text.startswith("6 exercises answered alike as a whole")


def test_students_who_write_the_textbook_answer_are_not_flagged(course, comparison):
    flagged = {name for p in comparison.pairs for name in (p.a, p.b)}
    assert not flagged & set(TEXTBOOK)
    works = {w.student: w for w in read_class(course, A)[0]}
    assert works["tb0"].answers == works["tb1"].answers  # they did write the same: it is just common


def test_a_rare_shared_wrong_answer_raises_the_score(course):
    works, names, _ = read_class(course, A)
    before = explain(works, "hal", "ian", names).score
    by_name = {w.student: w for w in works}
    by_name["hal"].wrong["formula_2"] = by_name["ian"].wrong["formula_2"] = "a wrong answer only they gave"
    after_pair = explain(works, "hal", "ian", names)
    assert after_pair.score == pytest.approx(before + bits(2, len(works)), abs=0.11)
    assert f"same wrong answer to formula_2 (the graders found the same failures), given by 2 of {len(works)} " \
           "students" in after_pair.summary


def test_a_shared_created_cell_id_is_evidence_and_release_ids_are_not(course):
    works, names, _ = read_class(course, A)
    shared = explain(works, "hal", "ian", names)
    ids = [e for e in shared.evidence if e.kind == "cell_id"]
    assert len(ids) == 1 and ids[0].text.startswith("cell id 4f2a9c1e… added by both (“w.shape”)")
    assert ids[0].bits == pytest.approx(bits(2, len(works)))
    # Every notebook keeps the release's ids, and "crafted" gave a new cell a release id: none is evidence.
    for other in ("crafted", "noids", "tb0"):
        assert not any(e.kind == "cell_id" for e in explain(works, "hal", other, names).evidence)
    release = json.loads((course / "release" / A / f"{A}.ipynb").read_text())
    crafted = explain(works, "crafted", "tb1", names)
    assert not any(f"cell id {cell['id'][:8]}…" in crafted.summary for cell in release["cells"])


def test_a_ring_of_three_forms_one_group(comparison):
    assert ["cat", "dan", "eli"] in comparison.groups
    assert all(frozenset(pair) in pairs_of(comparison) for pair in (("cat", "dan"), ("cat", "eli")))


def test_hostile_notebooks_are_left_out_with_one_line_each_and_the_rest_compared(comparison):
    refused = {line.split(":")[0].strip("'"): line for line in comparison.refused}
    assert set(refused) == {"junk", "latin1", "alist", "manycells", "linker"}
    assert all("\n" not in line and f"{A}.ipynb" in line for line in refused.values())
    assert "not UTF-8" in refused["latin1"] and "10000 cells" in refused["manycells"]
    assert "a link" in refused["linker"] and "not a notebook" in refused["alist"]
    compared = HONEST + len(TEXTBOOK) + 7 + 3  # the class, and the odd but readable notebooks
    assert comparison.compared == compared
    flagged = {name for p in comparison.pairs for name in (p.a, p.b)}
    assert not flagged & {"huge", "noids", "crafted"}


def test_the_command_writes_the_csv_and_prints_a_table(course, comparison):
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "similarity", A], cwd=course, text=True,
                          capture_output=True, env={**os.environ, "COLUMNS": "200"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "ana + bob" in done.stdout and "Evidence to look at, not a finding" in done.stdout
    assert done.stdout.count("left out: ") == 5
    text = (course / "exports" / f"similarity_{A}.csv").read_text()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["student_a", "student_b", "score", "evidence"]
    assert [(r["student_a"], r["student_b"]) for r in rows] == [(p.a, p.b) for p in comparison.pairs]
    assert all(float(r["score"]) >= comparison.threshold for r in rows)
    ana_bob = next(r for r in rows if {r["student_a"], r["student_b"]} == {"ana", "bob"})
    assert "6 exercises answered alike as a whole" in ana_bob["evidence"]
    assert comparison.threshold == pytest.approx(threshold(comparison.compared), abs=0.06)


def test_the_report_section_renders_and_passes_axe(comparison, tmp_path):
    from datetime import datetime

    from playwright.sync_api import sync_playwright

    from autograder.report import charts, html
    from autograder.report.data import ClassData, Exercise, Submission
    from tests.axe import serious_violations
    from tests.browser import CHROMIUM, CHROMIUM_FLAGS

    students = sorted(comparison.works)
    data = ClassData(A, "course", [Exercise(A, "test_formula_1", 6.0, "formula_1")], students,
                     [Submission(s, 6.0, {"formula_1": 6.0}) for s in students], similarity=comparison)
    page_file = tmp_path / "report.html"
    page_file.write_text(html.render(data, charts(data), datetime(2026, 11, 26, 7, 0)))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            page.goto(page_file.as_uri())
            assert serious_violations(page) == []
            assert "accuses nobody" in page.inner_text("[data-metric=similarity-caveat]")
            pair = page.locator('section[data-pair="ana bob"]')
            assert pair.locator("mark").count() >= 2  # the shared code, highlighted on both sides
            assert pair.locator("[data-exercise-pair]").first.locator("figure").count() == 2  # side by side
            # In words, what was seen through: bob renamed and reformatted ana's answers.
            seen = pair.locator("[data-seen-through]").all_inner_texts()
            assert seen and all("the same program once" in line and "layout" in line for line in seen)
            assert any("names" in line for line in seen)
            assert page.locator('[data-group="cat dan eli"]').count() == 1
            assert page.evaluate("document.documentElement.scrollWidth") <= 1000
            pair.scroll_into_view_if_needed()
            page.screenshot(path="/tmp/page-similarity.png")
        finally:
            browser.close()
