"""Issue 39, item 4: the time of a submission is the exchange's, on every path. Students (real OS users) write
their folders straight into the exchange's inbound/, as `nbgrader submit` does, one with a `timestamp.txt`, a
name and modification times set days back, one with an entry whose name claims a future time beside a newer real
one. Collected by `nbgrader collect` and graded by `autograder grade`, or collected by the formgrader's Collect
(`NbGraderAPI.collect`) and graded by `nbgrader autograde`: late by the exchange's clock, as the course's rules
say, and the newer real entry collected. A `timestamp.txt` reading `whenever` in submitted/ is refused by
`autograder grade`, one line, and what was graded before stays as it was."""

import os
import pwd
import secrets
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import write_submission
from tests.grading_course import ASSIGNMENT, exchange_course, grade, submit
from tests.students import students
from tests.test_deadlines import RULES  # credit 0.8 up to 48 h late, 0.5 up to 7 days, then practice (0)
from tests.test_formgrader_autograde import formgrader_api

COURSE_ID = "rnn101"
NOW = datetime.now(UTC).replace(tzinfo=None, microsecond=0)
DUE = NOW - timedelta(days=4)  # the real submissions arrive now: 4 days late, half credit
CLAIMED = DUE - timedelta(days=1)  # what the late student's files and folder name say: on time, full credit
NBGRADER_TIME = "%Y-%m-%d %H:%M:%S.%f UTC"


def hand_in(student, inbound: Path, staged: Path, claimed: datetime, marker: str) -> Path:
    """As the student's OS user: the staged files copied into a new inbound entry named for `claimed`, with a
    `timestamp.txt` and modification times saying `claimed`, made writable by all (nbgrader submit's last step)."""
    text = claimed.strftime(NBGRADER_TIME)
    entry = inbound / f"{student.name}+{ASSIGNMENT}+{text}+{secrets.token_urlsafe(9)}"
    epoch = int(claimed.replace(tzinfo=UTC).timestamp())
    done = student.shell(f"""set -e
        mkdir '{entry}'
        cp -r '{staged}'/. '{entry}'/
        printf '%s' '{text}' > '{entry}/timestamp.txt'
        printf '%s' '{secrets.token_hex(64)}' > '{entry}/submission_secret.txt'
        printf '%s' '{marker}' > '{entry}/marker.txt'
        touch -d @{epoch} '{entry}'/* '{entry}'
        chmod 777 '{entry}'""")
    assert done.returncode == 0, done.stderr
    info = entry.stat()
    assert info.st_uid == pwd.getpwnam(student.name).pw_uid
    assert int(info.st_mtime) == epoch and (entry / f"{ASSIGNMENT}.ipynb").stat().st_mtime == epoch
    return entry


@pytest.fixture(scope="module")
def handed_in(tmp_path_factory):
    """The course before any collect: a due date, the late rules, three entries in inbound/ by two students, and
    `whenever`'s folder put in submitted/ by hand. Yields (scratch, course, {role: student name}, before, after),
    `before`/`after` bracketing the times the real entries were written."""
    scratch, course = exchange_course("exchange-collect-", COURSE_ID, RULES)
    inbound = scratch / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    os.chmod(inbound.parent, 0o755)
    os.chmod(inbound, 0o733)  # as nbgrader's release makes it: students write entries, list none
    staged = scratch / "staged"
    write_submission(ASSIGNMENT, staged, release=course / "release" / ASSIGNMENT)
    os.chmod(staged, 0o755)
    try:
        with students(2, scratch / "exchange", COURSE_ID) as (late, liar):
            with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
                gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
                for name in (late.name, liar.name, "whenever"):
                    gb.add_student(name)
            before = time.time_ns()
            hand_in(late, inbound, staged, CLAIMED, "late")
            # An old entry whose name (and files) claim a time years ahead, then a newer real one named as on time:
            # nbgrader's collect takes the one its name dates last.
            hand_in(liar, inbound, staged, datetime(2099, 1, 1), "old")
            time.sleep(0.05)  # past the kernel's clock tick: the newer entry has a later change time
            hand_in(liar, inbound, staged, CLAIMED, "new")
            after = time.time_ns()
            # Entries that are not a student's folder: a name that would climb out of submitted/, a link.
            shutil.copytree(staged, inbound / f"..+{ASSIGNMENT}+2020-01-01 00:00:00.000000 UTC")
            (inbound / f"mallory+{ASSIGNMENT}+2020-01-01 00:00:00.000000 UTC").symlink_to(staged)
            submit(course, "whenever")
            (course / "submitted" / "whenever" / ASSIGNMENT / "timestamp.txt").write_text("whenever")
            yield scratch, course, {"late": late.name, "liar": liar.name}, before, after
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def arrived(folder: Path) -> datetime:
    from nbgrader.utils import parse_utc

    return parse_utc((folder / "timestamp.txt").read_text())


def graded(course: Path) -> dict[str, tuple[datetime | None, float, float]]:
    """Each student's (time, score, late penalty), as nbgrader's API reads the gradebook."""
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gb:
        return {s.student_id: (s.timestamp, s.score, s.late_submission_penalty)
                for s in gb.assignment_submissions(ASSIGNMENT)}


def check_collected(course: Path, who: dict[str, str], before: int, after: int) -> None:
    """The exchange's time in submitted/, the student's nowhere; the newer real entry taken."""
    lowest, highest = datetime.fromtimestamp(before / 1e9, UTC), datetime.fromtimestamp(after / 1e9, UTC)
    for student in who.values():
        folder = course / "submitted" / student / ASSIGNMENT
        when = arrived(folder).replace(tzinfo=UTC)
        assert lowest - timedelta(milliseconds=10) <= when <= highest + timedelta(milliseconds=10), when
    assert (course / "submitted" / who["liar"] / ASSIGNMENT / "marker.txt").read_text() == "new"


def check_late(course: Path, student: str) -> None:
    when, score, penalty = graded(course)[student]
    assert score == 46.0 and when > DUE + timedelta(days=3), (when, score)
    assert penalty == pytest.approx(score * 0.5)  # 4 days late: half credit, as RULES say


def test_nbgrader_collect_then_autograder_grade(handed_in, tmp_path):
    scratch, base, who, before, after = handed_in
    course = tmp_path / "course"
    shutil.copytree(base, course)
    done = nbgrader(course, "collect", ASSIGNMENT)
    assert "cheating" not in done.stderr, done.stderr  # each entry is its own student's, by its OS owner
    assert "Traceback" not in done.stderr and "not a valid student id" in done.stderr, done.stderr
    assert "'mallory+" in done.stderr and ": not a folder" in done.stderr
    assert sorted(p.name for p in (course / "submitted").iterdir()) == sorted([*who.values(), "whenever"])
    assert not (course / ASSIGNMENT).exists()
    check_collected(course, who, before, after)
    run = grade(course)
    assert run.returncode == 0, run.stderr
    rows = graded(course)
    check_late(course, who["late"])
    assert "whenever" not in rows  # never graded, on time or otherwise
    refusal = [line for line in run.stdout.splitlines() if "whenever" in line]
    assert len(refusal) == 1 and refusal[0].strip() == (
        f"not graded: whenever: submitted/whenever/{ASSIGNMENT}/timestamp.txt: 'whenever' is not a date between "
        "1970 and 2200; no usable submission time (collect the submission again)"), run.stdout
    assert "refused 1 (" in run.stdout

    # Graded already, then its time made unusable: forced again, refused, and its grade stays as it was.
    late = course / "submitted" / who["late"] / ASSIGNMENT
    first = arrived(late)
    (late / "timestamp.txt").write_text("whenever")
    again = grade(course, "--force", "--student", who["late"])
    assert again.returncode == 0 and "Traceback" not in again.stdout + again.stderr, again.stderr
    assert [line for line in again.stdout.splitlines() if "not graded" in line] == [
        f"  not graded: {who['late']}: submitted/{who['late']}/{ASSIGNMENT}/timestamp.txt: 'whenever' is not a "
        "date between 1970 and 2200; no usable submission time (collect the submission again)"]
    assert graded(course) == rows

    # Collected again with --update: the unusable time is replaced by the exchange's, the same as before.
    nbgrader(course, "collect", "--update", ASSIGNMENT)
    assert arrived(late) == first


def test_formgrader_collect_then_nbgrader_autograde(handed_in, tmp_path, monkeypatch):
    scratch, base, who, before, after = handed_in
    course = tmp_path / "course"
    shutil.copytree(base, course)
    monkeypatch.chdir(course)  # the formgrader's server runs in the course folder
    done = formgrader_api(course).collect(ASSIGNMENT)
    assert done["success"], done.get("error")
    check_collected(course, who, before, after)
    nbgrader(course, "autograde", ASSIGNMENT, "--student", who["late"])
    check_late(course, who["late"])
