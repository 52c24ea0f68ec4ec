"""Reading a submitted notebook's bytes: what is taken, and what is refused in one line that says why."""

import codecs
import json

import pytest

from autograder.grading.reading import read_fast
from autograder.nbgrader_glue.notebook import NotebookError

NOTEBOOK = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": "code", "metadata": {}, "source": ["x = 1\n", "y = 2"], "outputs": [],
                       "execution_count": None, "id": "a"}]}


def test_a_notebook_reads_with_its_lines_joined() -> None:
    nb = read_fast(json.dumps(NOTEBOOK).encode(), "n.ipynb")
    assert nb["cells"][0]["source"] == "x = 1\ny = 2"


def test_a_byte_order_mark_from_an_editor_does_not_cost_the_notebook() -> None:
    nb = read_fast(codecs.BOM_UTF8 + json.dumps(NOTEBOOK).encode(), "n.ipynb")
    assert nb["cells"][0]["source"] == "x = 1\ny = 2"


@pytest.mark.parametrize("text, kind", [("[1, 2]", "a list"), ("null", "null"), ('"text"', "a string"),
                                        ("3", "a number"), ("true", "true or false")])
def test_json_that_is_not_an_object_is_refused_plainly(text: str, kind: str) -> None:
    with pytest.raises(NotebookError) as refused:
        read_fast(text.encode(), "n.ipynb")
    assert str(refused.value) == f"n.ipynb: not a notebook (its JSON is {kind}, not an object with cells)"


@pytest.mark.parametrize("data", [b"", b"{", "{}".encode("utf-16"), b'{"nbformat": 4, "cells": 5}',
                                  json.dumps({**NOTEBOOK, "cells": [{"cell_type": "code", "source": [1]}]}).encode()])
def test_what_is_not_a_notebook_is_refused_in_one_line(data: bytes) -> None:
    with pytest.raises(NotebookError) as refused:
        read_fast(data, "n.ipynb")
    assert str(refused.value).startswith("n.ipynb: not a readable notebook (") and "\n" not in str(refused.value)
