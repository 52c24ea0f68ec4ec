"""nbgrader's rules for a grade cell's score, as its autograde applies them after running the cell."""

import re
from typing import Any


def kept_streams(chunks: list[tuple[str, str]], ignore: str | None) -> list[dict[str, Any]]:
    """The cell's printed output as nbformat streams; nbgrader's IgnorePattern drops the stderr outputs it
    matches before scoring, so they neither show nor zero the cell."""
    out = []
    for name, text in chunks:
        if name == "stderr" and ignore and re.search(ignore, text):
            continue
        out.append({"output_type": "stream", "name": name, "text": text})
    return out


def stderr_problem(outputs: list[dict[str, Any]]) -> str | None:
    """nbgrader's rule: any stderr output in a grade cell scores it 0. Why this cell does, None if it does not."""
    stderr = "".join(o["text"] for o in outputs if o.get("name") == "stderr")
    return f"the cell wrote to stderr: {stderr[:300]}" if stderr else None


def visible_test_score(result: str | None, points: float) -> float:
    """A test cell without hidden graders that ran without error: full marks, or the value it ends with when
    that is a number from 0 up (partial credit, at most the cell's points)."""
    if result is None:
        return points
    try:
        value = float(result)
    except ValueError:
        return points
    return min(value, points) if value >= 0 else points


def graders_score(earned: float, graders_max: float, points: float) -> float:
    """What the hidden graders earned, kept between 0 and both their total and the cell's points."""
    return float(min(max(earned, 0.0), graders_max, points))
