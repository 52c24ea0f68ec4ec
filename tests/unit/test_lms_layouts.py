"""Reading who a file of an LMS archive belongs to (`autograder.collect.layouts` and `.roster`), without a
course: the LMS's part of each name read from where the LMS writes it, look-alike names never matched.

The names are built as each LMS writes them (the sources are cited in autograder/collect/layouts.py):
Canvas `{sortable name}_{LATE_}{user id}_{attachment id}_{file}`, Moodle `{Full Name}_{participant
id}_assignsubmission_file`, Blackboard `{Assignment}_{username}_attempt_{date}_{file}`."""

import pytest

from autograder.collect.importer import NAME_BYTES, _safe_name
from autograder.collect.layouts import Claim, canvas_readings
from autograder.collect.student_match import Roster
from autograder.course.submitted import printable
from autograder.lms.identity import Person

PEOPLE = [Person("ada", "Ada", "Lovelace", lms_user_id="1001", login_id="ada"),
          Person("bob", "Bob", "Babbage", lms_user_id="1002", login_id="bob"),
          Person("yui", "結衣", "山田", lms_user_id="1005", login_id="yui")]


@pytest.mark.parametrize("name, reading", [
    ("lovelaceada_1001_5001_hsa.ipynb", ("lovelaceada", False, "1001", 5001, "hsa.ipynb")),
    ("babbagebob_LATE_1002_5003_hsa-1.ipynb", ("babbagebob", True, "1002", 5003, "hsa-1.ipynb")),
    ("lovelaceada_1001_5001_week_1_2.ipynb", ("lovelaceada", False, "1001", 5001, "week_1_2.ipynb")),
    ("lovelaceada_1001_5001_my work (2).ipynb", ("lovelaceada", False, "1001", 5001, "my work (2).ipynb")),
    ("lovelaceada_1001_text.html", ("lovelaceada", False, "1001", 0, "text.html")),
    ("山田結衣_1005_5009_課題.ipynb", ("山田結衣", False, "1005", 5009, "課題.ipynb")),
    ("_1001_5001_x.ipynb", ("", False, "1001", 5001, "x.ipynb")),
    ("anon_AB12c_5001_x.ipynb", ("", False, "anon_AB12c", 5001, "x.ipynb")),
])
def test_canvas_names_read_one_way(name, reading):
    assert canvas_readings(name) == [reading]


@pytest.mark.parametrize("name, users", [
    # bob (1002) set his sortable name to `x_1001`: Canvas's own reader would take 1001, ada's id.
    ("x_1001_1002_5009_hsa.ipynb", ["1001", "1002"]),
    # someone off the roster (9999) named like ada, with her id behind: her name and id, then theirs.
    ("lovelaceada_1001_9999_5009_hsa.ipynb", ["1001", "9999"]),
    # honest file names with `_<digits>_<digits>_` read the same ways (a name part can end in `_<digits>`
    # and, sanitised, even hold `_<digits>_`): refused too, and said so.
    ("lovelaceada_1001_5001_2024_05_hw.ipynb", ["1001", "5001"]),
    ("lovelaceada_1001_5001_week_1_2_x.ipynb", ["1001", "1"]),
])
def test_canvas_names_that_read_two_ways_are_not_attributed(name, users):
    assert [user for _, _, user, _, _ in canvas_readings(name)] == users


@pytest.mark.parametrize("name", ["hsa.ipynb", "lovelace ada_1001_5001_x.ipynb", "x_１００１_5001_y.ipynb",
                                  "x_01001_5001_y.ipynb", "x_1001_5001_"])
def test_names_canvas_does_not_write_read_no_way(name):
    assert canvas_readings(name) == []  # a space in the name part, full-width or zero-led ids, no file


def test_canvas_reading_is_linear_in_the_name():
    import time

    start = time.monotonic()
    assert len(canvas_readings("1_" * 30_000 + "x")) == 2
    assert canvas_readings("a" * 60_000) == []
    assert time.monotonic() - start < 2


def test_a_name_matches_as_written_case_and_any_space_aside():
    roster = Roster(PEOPLE)
    assert roster.find(Claim("name", "ADA  lovelace"))[0].id == "ada"
    assert roster.find(Claim("name", "Lovelace, Ada"))[0].id == "ada"
    # The ideographic space of Japanese names is a space: the roster's `山田 結衣` is matched.
    assert roster.find(Claim("name", "山田\u3000結衣"))[0].id == "yui"
    assert roster.find(Claim("username", "BOB"))[0].id == "bob"


def test_a_look_alike_name_is_refused_never_matched():
    roster = Roster(PEOPLE)
    person, why = roster.find(Claim("name", "Ａｄａ Lovelace"))  # full-width letters
    assert person is None and "ada's name only once look-alike characters are folded" in why
    person, why = roster.find(Claim("username", "ａｄａ"))
    assert person is None and "look-alike" in why
    person, why = roster.find(Claim("name", "Аda Lovelace"))  # a Cyrillic А: no fold makes it Latin
    assert person is None and why == "no student on the roster has this name"


def test_a_name_that_folds_to_two_students_matches_neither():
    roster = Roster([*PEOPLE, Person("ada2", "Ａｄａ", "Lovelace")])
    person, why = roster.find(Claim("name", "Ada Lovelace"))
    assert person is None
    assert why == "2 students on the roster have this name once look-alike characters are folded: ada, ada2"


def test_a_blackboard_username_without_receipt_is_found_at_the_end_of_the_name():
    roster = Roster([*PEOPLE, Person("cyd", login_id="cyd_c"), Person("c", login_id="c")])
    assert roster.find(Claim("username_tail", "Lab_2_bob"))[0].id == "bob"
    person, why = roster.find(Claim("username_tail", "Lab_2_cyd_c"))  # `cyd_c` and `c` both end it
    assert person is None and "2 students" in why


def test_names_kept_aside_are_bounded_in_bytes():
    long = "漢" * 100 + ".txt"  # 104 characters, 304 bytes: past the 255 bytes of a file name
    name = _safe_name(long, b"x")
    assert name.startswith("file-") and name.endswith(".txt") and len(name.encode()) <= NAME_BYTES
    assert _safe_name("notes.pdf", b"x") == "notes.pdf"
    assert _safe_name("a/b/.c", b"x") == "a_b_.c"


@pytest.mark.parametrize("text, ok", [("山田\u3000太郎", True), ("a\u00a0b", True), ("a\u2003b", True),
                                      ("a\x1bb", False), ("a\u202eb", False), ("a\u2028b", False),
                                      ("a\u200bb", False), ("a\x85b", False)])
def test_spaces_of_every_script_are_text_control_and_bidi_characters_are_not(text, ok):
    assert printable(text) is ok
