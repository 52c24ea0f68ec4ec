"""One safe name per person (`autograder.lms.identity_names`): whatever an LMS sends, a valid POSIX user name, never a
user or group of this machine, never another person's, the same for the same person."""

import pwd

from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.course.submitted import valid_student_id
from autograder.lms.identity_names import POSIX_NAME, is_posix_name, on_system, readable, safe_name

HOSTILE = st.one_of(
    st.text(max_size=300),
    st.sampled_from(["", " ", "@", "'\"", "root", "ROOT", "nobody", "daemon", "0day", "-rf", "..", "a" * 300,
                     "José Núñez", "山田 太郎", "o'brien@uni.edu", 'x"; rm -rf /', "\u202eevil", "ａｄａ"]),
)
KEY_PART = st.text(min_size=1, max_size=300)
SYSTEM_NAMES = {p.pw_name for p in pwd.getpwall()}


def assign(people: list[tuple[str, tuple[str, str, str]]]) -> list[str]:
    """Names given one person after another, each checked against those already given (as the gradebook is)."""
    given_names: list[str] = []
    for hint, key in people:
        given_names.append(safe_name(hint, key, given_names.__contains__))
    return given_names


@settings(max_examples=300, deadline=None)
@given(hint=HOSTILE, key=st.tuples(KEY_PART, KEY_PART, KEY_PART))
def test_any_hint_and_key_give_a_posix_name_that_is_no_system_user_and_the_same_each_time(hint, key):
    name = safe_name(hint, key, lambda n: False)
    assert POSIX_NAME.fullmatch(name) and len(name) <= 32
    assert not on_system(name) and name not in SYSTEM_NAMES
    assert valid_student_id(name)  # and so a name every command takes as a student id (course/submitted.py)
    assert safe_name(hint, key, lambda n: False) == name


@settings(max_examples=150, deadline=None)
@given(people=st.lists(st.tuples(HOSTILE, st.tuples(KEY_PART, KEY_PART, KEY_PART)), min_size=2, max_size=12,
                       unique_by=lambda p: p[1]))
def test_different_people_never_share_a_name(people):
    names = assign(people)
    assert len(set(names)) == len(names)
    assert all(is_posix_name(n) for n in names)


@given(user_id=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=40)
       .filter(lambda s: s.upper() != s))
def test_two_ids_that_differ_only_by_case_are_two_people(user_id):
    names = assign([("Same Name", ("iss", "dep", user_id)), ("Same Name", ("iss", "dep", user_id.upper()))])
    assert names[0] != names[1]


def test_names_are_readable_where_they_can_be():
    assert readable("José Núñez") == "jose-nunez"
    assert readable("o'brien@uni.edu") == "o-brien"
    assert readable("山田 太郎") == ""
    assert safe_name("山田 太郎", ("i", "d", "u"), lambda n: False).startswith("student")
    assert readable("0day") == "day" and readable("-rf") == "rf"
    assert len(readable("a" * 300)) == 16


def test_a_system_user_s_name_is_never_given():
    assert safe_name("root@uni.edu", ("i", "d", "u"), lambda n: False).startswith("root-")
    assert safe_name("nobody", ("i", "d", "u"), lambda n: False) != "nobody"


def test_every_digest_length_taken_still_gives_a_name():
    taken = {safe_name("ada", ("i", "d", "u"), lambda n: False)}
    for _ in range(5):
        taken.add(safe_name("ada", ("i", "d", "u"), taken.__contains__))
    assert len(taken) == 6 and all(is_posix_name(n) for n in taken)
