"""Tables a person reads in a terminal: scores per student and exercise, a class summary, exercise stats.

Shared by the CLI commands and the demo so that every table looks the same. Colour is decoration only:
it appears when stdout is a terminal and NO_COLOR is unset; piped or redirected output (a log, CI, a
file) gets plain, aligned text with no escape codes, so it greps and diffs cleanly.
"""

import math
import os
import re
import sys
from collections.abc import Sequence
from typing import IO

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

# Piped output has no terminal to measure; rich would assume 80 columns and fold wide tables, which
# makes logs harder to read than one long line.
PLAIN_WIDTH = 240

# What could drive a terminal or change what it shows, rather than be shown: C0 controls (ESC starts the
# sequences that move the cursor, erase and recolour; CR and LF let one field overwrite or add lines), DEL,
# C1 controls (0x9b is a one-byte CSI to some terminals), and Unicode's invisible direction controls (the
# bidi embeddings, overrides and isolates, the LRM/RLM/ALM marks) and line/paragraph separators, which
# reorder or break a line without showing themselves.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    """`text` made safe to print: every character of `_UNSAFE` written out as Python writes it (`\\x1b`,
    `\\r`, `\\u202e`), so text from a student shows as what it is, on one line, and cannot erase, fake or
    reorder what the terminal shows around it. Rich markup is not this function's concern: text printed
    through rich goes in a `Text` (see `cell`), never as a markup string."""
    return _UNSAFE.sub(_escaped, str(text))


def cell(text: object, style: str = "") -> Text:
    """A table cell or title of text that may come from a student: escaped, and never read as rich markup."""
    return Text(visible(text), style=style)


def wants_colour(file: IO[str]) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set to anything non-empty (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(file, "isatty", None)
    return bool(isatty and isatty())


def make_console(file: IO[str] | None = None) -> Console:
    """A rich Console that writes styled text to a terminal and plain text anywhere else."""
    file = file if file is not None else sys.stdout
    if wants_colour(file):
        return Console(file=file, highlight=False, emoji=False)
    # color_system=None makes rich drop every style (bold too), not just colours.
    width = None if os.environ.get("COLUMNS") else PLAIN_WIDTH
    return Console(file=file, color_system=None, force_terminal=False, width=width,
                   highlight=False, emoji=False)


def decimals_for(values: Sequence[float]) -> int:
    """How many decimals show every value exactly (0, 1 or 2), so one column shares one format."""
    for places in (0, 1):
        if all(math.isclose(v * 10**places, round(v * 10**places), abs_tol=1e-9) for v in values):
            return places
    return 2


def number(value: float | None, places: int) -> str:
    return "—" if value is None else f"{value:.{places}f}"


def count(n: int, noun: str, plural: str = "") -> str:
    """"1 submission", "2 submissions"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def percent(fraction: float | None) -> str:
    return "—" if fraction is None else f"{100 * fraction:.0f}%"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _score_style(score: float | None, maximum: float) -> str:
    if score is None:
        return "dim"
    if score >= maximum:
        return "green"
    return "red" if score <= 0 else "yellow"


def _title(title: str | None) -> Text | None:
    return None if title is None else cell(title)


def _title_width(title: str | None) -> int | None:
    """A table is at least as wide as its title: rich wraps a title to the table's width, and a narrow table
    (one exercise, a short summary) would break its title over lines."""
    return None if title is None else cell(title).cell_len


def score_table(exercises: Sequence[tuple[str, float]],
                rows: Sequence[tuple[str, Sequence[float | None]]], *,
                title: str | None = None, max_rows: int | None = None) -> Table:
    """Students down, exercises across, a total column and a mean row.

    `exercises` is (name, max points) in column order; each row is (student, scores in that order), None
    where the student has no score for an exercise. With `max_rows`, only the first rows are listed and
    a line says how many more there are; the means still cover every student who has a score.
    """
    maximum = sum(points for _, points in exercises)
    totals = [sum(s for s in scores if s is not None) if any(s is not None for s in scores) else None
              for _, scores in rows]
    shown = list(zip(rows, totals, strict=True))[:max_rows]  # [:None] keeps every row
    places = decimals_for([s for (_, scores), _t in shown for s in scores if s is not None]
                          + [p for _, p in exercises])

    column_means = [_mean([scores[i] for _, scores in rows if scores[i] is not None])
                    for i in range(len(exercises))]
    total_mean = _mean([t for t in totals if t is not None])

    # The mean row is the footer, so a rule sets it apart from the students.
    table = Table(title=_title(title), box=box.SIMPLE, show_footer=True, footer_style="bold",
                  title_justify="left", show_edge=False, pad_edge=False, min_width=_title_width(title))
    table.add_column("student", footer="mean", no_wrap=True)
    for (name, points), mean in zip(exercises, column_means, strict=True):
        table.add_column(cell(name) + f"\n/ {points:g}", footer=number(mean, 1), justify="right", no_wrap=True)
    table.add_column(f"total\n/ {maximum:g}", footer=number(total_mean, 1), justify="right", no_wrap=True)

    for ((student, scores), total) in shown:
        cells = [Text(number(s, places), style=_score_style(s, p))
                 for s, (_, p) in zip(scores, exercises, strict=True)]
        table.add_row(cell(student), *cells,
                      Text(number(total, places), style="bold " + _score_style(total, maximum)))
    if max_rows is not None and len(rows) > max_rows:
        table.add_row(f"… {len(rows) - max_rows} more", *[""] * (len(exercises) + 1), style="dim")
    return table


def summary_table(items: Sequence[tuple[str, object]], *, title: str | None = None) -> Table:
    """Label / value pairs, one a line: the closing summary of a command or the demo."""
    table = Table(title=_title(title), box=box.SIMPLE, show_header=False, title_justify="left",
                  show_edge=False, pad_edge=False, min_width=_title_width(title))
    table.add_column("what", style="bold", no_wrap=True)
    table.add_column("value")
    for label, value in items:
        table.add_row(cell(label), cell(value))
    return table


def exercise_table(rows: Sequence[tuple[str, float, float | None, float | None, str]], *,
                   title: str | None = None) -> Table:
    """One line per exercise: (name, max points, mean score, pass rate, most common misconception)."""
    table = Table(title=_title(title), box=box.SIMPLE_HEAD, title_justify="left", show_edge=False,
                  pad_edge=False, min_width=_title_width(title))
    table.add_column("exercise", no_wrap=True)
    table.add_column("points", justify="right")
    table.add_column("mean", justify="right")
    table.add_column("full marks", justify="right")
    table.add_column("most common misconception")
    for name, points, mean, pass_rate, misconception in rows:
        style = "green" if (pass_rate or 0) >= 0.8 else "yellow" if (pass_rate or 0) >= 0.5 else "red"
        table.add_row(cell(name), f"{points:g}", number(mean, 1), Text(percent(pass_rate), style=style),
                      cell(misconception or "—"))
    return table
