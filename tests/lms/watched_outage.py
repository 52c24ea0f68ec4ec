"""The watcher grading while the LTI platform is down, and the outbox's sender following: shared by the test
(tests/lms/test_lms_outbox_watch.py, an outage of a few seconds) and `make bench-lms` (tests/lms/outbox_bench.py,
a minute).

Everything on the grading side is real: student notebooks (the catalogue's answers) handed into nbgrader's
exchange as `nbgrader submit` leaves them (tests/watching.py), `autograder watch` grading them in its sandbox
and committing each grade with its outbox row; `outbox_sender.follow` (the loop of `autograder push --follow`)
sends them to the loopback platform with faults (tests/lms/nrps_platform.py, lti1p3platform behind strict checks).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from autograder.devtools.catalogue import Answer, wrong_answers
from autograder.grades.outbox import PENDING, OutboxRow, history, latest
from autograder.lms.outbox_sender import follow, open_outbox
from tests.grading_course import ASSIGNMENT
from tests.lms.nrps_platform import AdvantagePlatform
from tests.watching import COURSE_ID, OWNERLESS, Watched, copy_watched, hand_in, wait_for

LINE = "1"  # the first line item the platform makes: the assignment's, made by the first score sent


def _wrong(exercise: str) -> Answer:
    return next(a for a in wrong_answers(ASSIGNMENT) if a.exercise == exercise and a.hint)


# A student's attempts get better one exercise at a time, so that each scores differently from the one before
# (the last one is the reference solution): the attempt `n` of a student is ATTEMPTS[n % len(ATTEMPTS)].
_MISTAKES = [_wrong(exercise) for exercise in ("concat_weights", "concat_state_input", "formula_2", "sigmoid")]
ATTEMPTS: tuple[tuple[Answer, ...], ...] = tuple(tuple(_MISTAKES[:len(_MISTAKES) - n])
                                                 for n in range(len(_MISTAKES) + 1))


def lms_course(template: Watched, folder: Path, on_roster: list[str]) -> Watched:
    """The watcher's course (a copy of `template`) with `on_roster` imported from the LMS's roster, each with
    an LTI user id `lti-<id>`; any other student who submits is one the LMS does not know."""
    from nbgrader.api import Gradebook

    from autograder.lms.roster_import import import_roster

    # No limit on graded attempts (the course's own allows 3 a day): a student's every submission is graded.
    watched = copy_watched(template, folder, f"{OWNERLESS}\nc.AutograderWatch.attempts = 0")
    roster = folder / "roster.csv"
    roster.write_text("id,first_name,last_name,email,lms_user_id,lti_user_id\n" + "".join(
        f"{s},S,{s},{s}@uni.example,{2000 + n},lti-{s}\n" for n, s in enumerate(on_roster)))
    with Gradebook(f"sqlite:///{watched.course / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        import_roster(gb, roster, "plain")
    return watched


@contextlib.contextmanager
def following(watched: Watched, lms: AdvantagePlatform) -> Iterator[list[str]]:
    """`outbox_sender.follow` sending the course's outbox to `lms` (polling as lms.toml says), in a thread
    stopped on leaving; what it printed."""
    stop = threading.Event()
    printed: list[str] = []
    sender = threading.Thread(target=follow, args=(watched.course, lms.settings, lms.tool_key, stop),
                              kwargs={"scan_seconds": 3600, "out": printed.append}, daemon=True)
    sender.start()
    try:
        yield printed
    finally:
        stop.set()
        sender.join(30)


def graded(watched: Watched) -> int:
    return sum(record["state"] == "graded" for record in watched.ledger)


def hand_in_all(watched: Watched, submissions: list[tuple[str, int]], log,
                spacing: float = 0.0) -> list[tuple[str, float]]:
    """Each (student, attempt) handed in, in that order, `spacing` seconds apart; returns once the watcher has
    graded them all: each student with the time (`time.time()`) of their hand-in."""
    before = graded(watched)
    handed = []
    for student, attempt in submissions:
        hand_in(watched, student, ATTEMPTS[attempt % len(ATTEMPTS)])
        handed.append((student, time.time()))
        time.sleep(spacing)
    wait_for(lambda: graded(watched) >= before + len(submissions), 60 + 5 * len(submissions),
             f"{len(submissions)} submissions graded", log)
    return handed


def down_while_graded(watched: Watched, lms: AdvantagePlatform, submissions: list[tuple[str, int]], log,
                      down_seconds: float, spacing: float = 0.0) -> list[tuple[str, float]]:
    """`hand_in_all` with the platform down from just before the first hand-in until the watcher has graded
    them all and `down_seconds` have passed: every score is made, and waits, while the LMS is down."""
    went_down = time.monotonic()
    lms.down_until = float("inf")
    try:
        handed = hand_in_all(watched, submissions, log, spacing)
        time.sleep(max(0.0, went_down + down_seconds - time.monotonic()))
    finally:
        lms.down_until = 0.0
    return handed


def outbox(watched: Watched) -> list[OutboxRow]:
    """The assignment's outbox rows, oldest change first."""
    with open_outbox(watched.course) as db:
        return history(db, ASSIGNMENT)


def newest(watched: Watched) -> dict[str, OutboxRow]:
    """Each student's newest outbox row of the assignment."""
    with open_outbox(watched.course) as db:
        return latest(db, ASSIGNMENT)


def settled(watched: Watched) -> bool:
    """Nothing left to send: no student's newest row of the outbox is pending."""
    rows = newest(watched)
    return bool(rows) and all(row.state != PENDING for row in rows.values())
