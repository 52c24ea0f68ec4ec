"""Terminal tables: aligned plain text off a terminal or under NO_COLOR, colour only on a real terminal."""

import io
import os
import pty
import re
import subprocess
import sys

import pytest

from autograder.display.terminal import decimals_for, exercise_table, make_console, score_table, summary_table, visible

ESC = "\x1b["
EXERCISES = [("concat_weights", 6.0), ("sigmoid", 7.0), ("hidden_state", 15.0)]
ROWS = [
    ("alice", [6.0, 7.0, 15.0]),
    ("bob", [0.0, 3.5, None]),
    ("[x]", [None, None, None]),  # markup-like id, and a student with no score at all
    ("dave", [6.0, 0.0, 1.0]),
]


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def render(table, file: io.StringIO | None = None) -> str:
    file = file if file is not None else io.StringIO()
    make_console(file).print(table)
    return file.getvalue()


def table_lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def test_plain_when_not_a_terminal(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    text = render(score_table(EXERCISES, ROWS, title="scores"))
    assert ESC not in text
    assert "[x]" in text  # printed as it is, not eaten as rich markup


def test_score_columns_are_right_aligned():
    lines = table_lines(render(score_table(EXERCISES, ROWS)))
    body = [line for line in lines if line.split()[0] in {"alice", "bob", "dave", "mean", "[x]"}]
    assert len(body) == 5
    # Each number column is right-aligned: its k-th value ends at the same offset on every line.
    ends = [[m.end() for m in re.finditer(r"\S+", line)][1:] for line in body]
    assert all(len(e) == 4 for e in ends), body
    assert all(len({e[k] for e in ends}) == 1 for k in range(4)), body


def test_totals_and_means():
    lines = table_lines(render(score_table(EXERCISES, ROWS)))
    rows = {line.split()[0]: line.split()[1:] for line in lines}
    assert rows["alice"] == ["6.0", "7.0", "15.0", "28.0"]
    assert rows["bob"] == ["0.0", "3.5", "—", "3.5"]  # a missing exercise counts as nothing, shown as —
    assert rows["[x]"] == ["—", "—", "—", "—"]
    # Means cover the students who have a score: concat_weights (6+0+6)/3, total (28+3.5+7)/3.
    assert rows["mean"] == ["4.0", "3.5", "8.0", "12.8"]
    header = " ".join(lines[:2])
    assert "/ 6" in header and "/ 15" in header and "/ 28" in header  # maxima under the names


def test_max_rows_lists_the_first_and_keeps_the_class_mean():
    text = render(score_table(EXERCISES, ROWS, max_rows=2))
    assert "dave" not in text and "… 2 more" in text
    mean = next(line for line in table_lines(text) if line.startswith("mean")).split()
    assert mean[-1] == "12.8"


def test_integer_scores_print_without_decimals():
    lines = table_lines(render(score_table([("a", 6.0)], [("s", [6.0]), ("t", [0.0])])))
    assert [line.split() for line in lines[-4:-2]] == [["s", "6", "6"], ["t", "0", "0"]]
    assert decimals_for([1.0, 2.0]) == 0 and decimals_for([0.5]) == 1 and decimals_for([1 / 3]) == 2


def test_colour_on_a_terminal_and_none_under_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert ESC in render(score_table(EXERCISES, ROWS), FakeTTY())
    monkeypatch.setenv("NO_COLOR", "1")
    plain = render(score_table(EXERCISES, ROWS), FakeTTY())
    assert ESC not in plain
    assert table_lines(plain) == table_lines(render(score_table(EXERCISES, ROWS)))


def test_summary_and_exercise_tables_are_plain_and_aligned():
    summary = table_lines(render(summary_table([("students", 4), ("mean score", "14.8 / 28")])))
    assert summary == ["students     4", "mean score   14.8 / 28"]
    lines = table_lines(render(exercise_table([("concat_weights", 6, 4.0, 0.5, "wrong_axis (2)"),
                                               ("sigmoid", 7, None, None, "")])))
    assert lines[0].split() == ["exercise", "points", "mean", "full", "marks", "most", "common", "misconception"]
    assert lines[2].split() == ["concat_weights", "6", "4.0", "50%", "wrong_axis", "(2)"]
    assert lines[3].split() == ["sigmoid", "7", "—", "—", "—"]


SNIPPET = (
    "from autograder.display.terminal import make_console, score_table\n"
    "make_console().print(score_table([('a', 1.0)], [('s', [1.0])]))\n"
)


def run_in_pty(env: dict[str, str]) -> str:
    """Run SNIPPET with stdout on a real pseudo-terminal and return what it wrote."""
    leader, follower = pty.openpty()
    try:
        subprocess.run([sys.executable, "-c", SNIPPET], stdout=follower, stderr=subprocess.PIPE,
                       env=env, check=True, timeout=60)
    finally:
        os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the writer is gone and everything has been read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return b"".join(chunks).decode()


@pytest.mark.parametrize("no_color", [None, "1"])
def test_real_terminal_and_pipe(no_color):
    env = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "FORCE_COLOR", "TERM"}}
    env["TERM"] = "xterm-256color"
    if no_color:
        env["NO_COLOR"] = no_color
    on_terminal = run_in_pty(env)
    assert (ESC in on_terminal) is (no_color is None)
    piped = subprocess.run([sys.executable, "-c", SNIPPET], capture_output=True, text=True, env=env,
                           check=True).stdout
    assert ESC not in piped
    assert re.search(r"^s\s+1\s+1$", piped, re.M)


# A student id as a folder name can hold: clear the screen and go home (ESC[2J ESC[H), return to the start of
# the line (CR), a new line, a C1 CSI, a right-to-left override and an isolate, and rich markup.
HOSTILE = "eve\x1b[2J\x1b[H\rALL GRADED\n\x9b31m\u202etxt.exe\u2066[red]x[/red]"
HOSTILE_SHOWN = "eve\\x1b[2J\\x1b[H\\rALL GRADED\\n\\x9b31m\\u202etxt.exe\\u2066[red]x[/red]"
UNSAFE = ["\x1b", "\r", "\n", "\x9b", "\u202e", "\u2066"]


def test_visible_writes_out_every_control_and_direction_character():
    assert visible(HOSTILE) == HOSTILE_SHOWN
    for char, shown in [("\x00", "\\x00"), ("\t", "\\t"), ("\x7f", "\\x7f"), ("\x85", "\\x85"),
                        ("\u061c", "\\u061c"), ("\u200f", "\\u200f"), ("\u2028", "\\u2028"),
                        *[(chr(c), f"\\u{c:04x}") for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]]]:
        assert visible(f"a{char}b") == f"a{shown}b"
    # Ordinary text, accents, other scripts and emoji pass as they are.
    assert visible("Zoë Ångström, 李雷 [x] 🙂") == "Zoë Ångström, 李雷 [x] 🙂"


@pytest.mark.parametrize("tty", [False, True])
def test_tables_show_student_text_escaped_and_never_as_markup(monkeypatch, tty):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "400")  # a wide terminal: no cell is folded onto two lines
    file = FakeTTY() if tty else io.StringIO()
    console = make_console(file)
    console.print(score_table([(HOSTILE, 1.0)], [(HOSTILE, [1.0])], title=HOSTILE))
    console.print(summary_table([(HOSTILE, HOSTILE)], title=HOSTILE))
    console.print(exercise_table([(HOSTILE, 1, 1.0, 1.0, HOSTILE)], title=HOSTILE))
    text = file.getvalue()
    assert ("\x1b[" in text) is tty  # on a terminal rich colours the tables with its own SGR codes ...
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    # ... and they are the only escape codes written; the only newlines are the tables' own.
    assert not any(char in plain for char in UNSAFE if char != "\n")
    # Three titles, an exercise column, a student, a label, a value, an exercise, a misconception: each
    # shown whole, on one line, as text.
    assert sum(line.count(HOSTILE_SHOWN) for line in plain.splitlines()) == 9
