"""Points as an LMS is sent them: a number's text, and the one-line per-exercise comment. Plain functions with
no import of ours, so the gradebook writer can queue a grade (`outbox`) without loading the LMS readers."""

from __future__ import annotations

from collections.abc import Iterable


def fmt(value: float) -> str:
    """Points as an LMS shows them: `6`, `4.5`, `3.33` (two decimals at most, no trailing zeros)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def exercise_text(exercises: Iterable[tuple[str, float | None, float]], late_penalty: float, score: float,
                  max_score: float) -> str:
    """`concat_weights 6/6, sigmoid 3.5/7; late penalty -4; total 40/46` from (label, points, points possible);
    points None: an answer not graded by hand yet (`explain to be graded/2`), never shown as a 0."""
    text = ", ".join(f"{label} {'to be graded' if got is None else fmt(got)}/{fmt(most)}"
                     for label, got, most in exercises)
    if late_penalty:
        text += f"; late penalty -{fmt(late_penalty)}"
    return f"{text}; total {fmt(score)}/{fmt(max_score)}"
