"""The watcher stays fair under attack and on a small host (issue 40): a flood of folders one student makes in
another's name, read by the folders' owner, costs the victim nothing; a notebook that sleeps in its cells does
not hold a one-worker watcher's only slot."""

import os
import shutil
import time

import pytest

from autograder.watch.exchange import SECRET_FILE, Exchange
from autograder.watch.inbound import NAMES_PER_POLL, Inbound
from autograder.watch.ledger import Ledger
from autograder.watch.slots import ASIDE_SECONDS, tree_cpu_seconds
from autograder.watch.watch_status import STATE_FOLDER, WatchStatus
from tests.grading_course import ASSIGNMENT
from tests.students import students
from tests.watching import (
    COURSE_ID,
    IN_MEMORY,
    OWNERLESS,
    SLOW,
    copy_watched,
    feedback_of,
    hand_in,
    make_template,
    new_exchange,
    wait_for,
    watching,
)

# As many as starved the victim before (read by the name they claim, 500 a poll, each looked at again every
# 5 s as "unfinished": more come due than a poll reads), made by a real OS user in the victim's name.
FLOOD = 20_000
# A graded submission's feedback takes about 1 s; what "within seconds" allows on a loaded 2-core host.
FEEDBACK_SECONDS = 10


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return make_template(tmp_path_factory.mktemp("fair-template"))


def status(watched) -> WatchStatus | None:
    return WatchStatus.read(watched.course / STATE_FOLDER)


def test_a_flood_of_folders_in_another_students_name_costs_that_student_nothing(template, tmp_path):
    watched = copy_watched(template, tmp_path, exchange_in=IN_MEMORY)  # nbgrader's owner check on, as by default
    with students(2, watched.exchange, COURSE_ID) as (attacker, victim):
        with watching(watched.course) as watcher:
            # The attacker's own submission first, graded as any (and the watcher past its first one's start-up).
            own = hand_in(watched, attacker.name, owner=attacker.name)
            wait_for(lambda: feedback_of(watched, own).is_file(), 60, "the attacker's own feedback", watcher.log)
            made = attacker.run("-c", f"import os\nos.chdir({str(watched.inbound)!r})\nfor i in range({FLOOD}):\n"
                                      f"    os.mkdir(f'{victim.name}+{ASSIGNMENT}+0-{{i:05d}}+x', 0o700)")
            assert made.returncode == 0, made.stderr
            honest = hand_in(watched, victim.name, owner=victim.name)
            handed = time.monotonic()
            wait_for(lambda: feedback_of(watched, honest).is_file(), FEEDBACK_SECONDS,
                     "the victim's feedback within seconds", watcher.log)
            waited = time.monotonic() - handed
            # Every junk folder refused (the status counts them), by its owner, not the name it claims...
            wait_for(lambda: (now := status(watched)) and now.refused == FLOOD, 60, "the flood refused", watcher.log)
            # ...and then never read again: the watcher idles with 20,000 names in inbound/.
            before = tree_cpu_seconds(watcher.process.pid)
            time.sleep(3)
            idle = (tree_cpu_seconds(watcher.process.pid) - before) / 3
    log = watcher.log()
    assert f"graded {victim.name} " in log
    assert f"owned by {attacker.name}, not by {victim.name}" in log and "not finished" not in log
    assert [record["name"] for record in watched.ledger] == [own.name, honest.name]  # junk costs the ledger nothing
    assert idle < 0.1, f"the watcher used {idle:.0%} of a core idle beside the flood"
    print(f"victim's feedback {waited:.1f} s after hand-in; watcher idle at {idle:.1%} of a core")


def test_inbound_is_read_by_owner_and_junk_is_forgotten_when_it_leaves(tmp_path):
    """`watch.inbound` alone: the victim's submission is read in the first poll beside twice a poll's worth of
    folders in their name (a budget shared by the name claimed would read the junk first: it sorts first), each
    junk folder refused once without a ledger line, and forgotten once removed."""
    exchange = Exchange(new_exchange(IN_MEMORY), COURSE_ID)
    exchange.inbound.mkdir(parents=True)
    ledger = Ledger(tmp_path / "ledger.jsonl")
    junk_lines: list[str] = []
    with students(2, exchange.root, COURSE_ID) as (attacker, victim):
        junk = [exchange.inbound / f"{victim.name}+{ASSIGNMENT}+0-{i:05d}+x" for i in range(2 * NAMES_PER_POLL)]
        for folder in junk:
            folder.mkdir(mode=0o700)
            shutil.chown(folder, attacker.name, attacker.name)
        honest = exchange.inbound / f"{victim.name}+{ASSIGNMENT}+2026-01-01 00:00:00.000000 UTC+abc"
        honest.mkdir()
        (honest / SECRET_FILE).write_text("ab" * 64)
        for path in (honest / SECRET_FILE, honest):
            shutil.chown(path, victim.name, victim.name)
        os.chmod(honest, 0o777)  # nbgrader submit's last step
        inbound = Inbound(exchange, (ASSIGNMENT,), True, ledger, junk_lines.extend, print)
        assert [entry.name for entry in inbound.earliest(time.time())] == [honest.name]
        assert len(junk_lines) == NAMES_PER_POLL - 1  # the rest of the poll's budget: the attacker's turn
        while inbound.unread:
            inbound.earliest(time.time())
        assert len(inbound.junk) == len(junk) and not inbound.unfinished, "refused at once, never waited for"
        assert all(f"owned by {attacker.name}, not by {victim.name}" in line for line in junk_lines)
        assert len(junk_lines) == len(junk)  # each refused once
        inbound.earliest(time.time())
        assert len(junk_lines) == len(junk)  # and never read again
        for folder in junk:
            folder.rmdir()
        time.sleep(0.1)  # past the spacing between listings
        assert [entry.name for entry in inbound.earliest(time.time())] == [honest.name]
        assert not inbound.junk and inbound.listed == {honest.name}  # memory follows what inbound/ holds
    ledger.close()
    assert ledger.path.read_text() == ""  # junk is not the ledger's


def test_a_notebook_that_sleeps_does_not_hold_a_one_worker_watcher(template, tmp_path):
    watched = copy_watched(template, tmp_path, f"{OWNERLESS}\nc.Execute.timeout = 4")
    with watching(watched.course, "--jobs", "1") as watcher:
        slow = hand_in(watched, "sam", [SLOW])  # its calls sleep: it holds its run for about 35 s, using no CPU
        wait_for(lambda: (now := status(watched)) and [h.student for h in now.in_hand] == ["sam"], 30,
                 "the sleeping one in hand", watcher.log)
        honest = hand_in(watched, "oz")
        handed = time.monotonic()
        wait_for(lambda: feedback_of(watched, honest).is_file(), ASIDE_SECONDS + FEEDBACK_SECONDS,
                 "the other student's feedback", watcher.log)
        waited = time.monotonic() - handed
        assert not feedback_of(watched, slow).exists(), "the other student waited for the sleeping one"
        wait_for(lambda: feedback_of(watched, slow).is_file(), 90, "the sleeping one's feedback", watcher.log)
    assert watcher.code == 0
    print(f"the other student's feedback {waited:.1f} s after hand-in, beside the sleeping one")
