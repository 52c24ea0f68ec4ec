"""Each student's answer read from their autograded notebook (autograder/by_question/class_answers.py): the files
are the students', so a link, a file that is not JSON, a missing cell or a huge answer each give a one-line answer
saying so, and the class is still read."""

import json
import os

from autograder.by_question.class_answers import MAX_ANSWER_CHARS, MISSING, read_answers


def notebook(source, grade_id="q") -> str:
    return json.dumps({"cells": [{"cell_type": "markdown", "id": "c1", "source": source,
                                  "metadata": {"nbgrader": {"grade_id": grade_id, "grade": True}}}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_hostile_files_give_answers_that_say_so_and_the_class_is_read(tmp_path):
    def put(student: str, text: str) -> None:
        folder = tmp_path / student / "a"
        folder.mkdir(parents=True)
        (folder / "nb.ipynb").write_text(text)

    put("ok", notebook(["Because ", "the blocks line up."]))
    put("junk", "{not json")
    put("other", notebook("x", grade_id="another"))
    put("huge", notebook("w " * MAX_ANSWER_CHARS))
    (tmp_path / "link" / "a").mkdir(parents=True)
    os.symlink(tmp_path / "ok" / "a" / "nb.ipynb", tmp_path / "link" / "a" / "nb.ipynb")
    found = {a.student: a.text for a in read_answers(tmp_path, "a", "nb", "q",
                                                     ["ok", "junk", "other", "huge", "link", "absent"])}
    assert found["ok"] == "Because the blocks line up."
    assert found["other"] == MISSING
    assert found["link"].startswith("(this notebook could not be read: nb.ipynb: a link")
    assert found["junk"].startswith("(this notebook could not be read:") and "\n" not in found["junk"]
    assert found["absent"].startswith("(this notebook could not be read:")
    assert len(found["huge"]) < MAX_ANSWER_CHARS + 100 and found["huge"].endswith("more characters)")
