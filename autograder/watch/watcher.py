"""The watcher's loop: find submissions in nbgrader's exchange, collect, grade, release feedback.

Grading is `autograder grade`'s own (`grading.prepare`, the pool's `work`, `grading.recording` with one gradebook
writer and one pool of workers, each with its warm zygote, for the watcher's lifetime), so the gradebook rows,
`autograded/` folders and result files are the same. Submissions are graded as workers free up, not in
rounds: each one's feedback is released as soon as it is graded, whatever the others still take. A student has
at most one submission in the workers' hands (their earliest waiting one: a student's submissions are graded
in order), so a student who submits a hundred times, or whose notebook sleeps in every cell, holds up only
their own. New names in `inbound/` are read a bounded number per poll, shared out among the students they
name: a flood of entries is read a slice at a time, and costs first the student it names.
"""

import gc
import json
import os
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import UTC, datetime
from hashlib import sha256
from pathlib import Path

from autograder.course.settings import CourseSettings
from autograder.course.submitted import TIMESTAMP_FILE, UnsafeFile
from autograder.grading.gradebook_db import GradebookError
from autograder.grading.instructor import instructor_files
from autograder.grading.model import RESULT_FILE, Outcome, SubmissionResult
from autograder.grading.pool import start_pool, work
from autograder.grading.prepare import AssemblyError, Prepared, prepare, unreadable_outcome
from autograder.grading.recording import Batch, record
from autograder.grading.sanitise import SourceNotebook
from autograder.grading.writer import GradebookWriter
from autograder.terminal import visible
from autograder.watch.exchange import (
    NBGRADER_TIME,
    SECRET_FILE,
    Collected,
    Entry,
    Exchange,
    Uncollectable,
    Unfinished,
)
from autograder.watch.ledger import Ledger, Record
from autograder.watch.pages import FeedbackError, FeedbackMaker, notice, when, with_banner
from autograder.watch.policy import Policy
from autograder.watch.status import WRITE_SECONDS, InHand, WatchStatus

# A fault on our side (the sandbox did not start, a worker died, the gradebook was locked) is retried
# after this long, then twice as long each time, up to the maximum.
RETRY_SECONDS = 5.0
RETRY_MAX_SECONDS = 300.0
# A folder `nbgrader submit` has not finished after this long is refused (a submit that died half-way, or
# a folder made by hand); until then it is looked at again this often, not at every poll.
UNFINISHED_SECONDS = 300.0
UNFINISHED_RECHECK_SECONDS = 5.0
# New names in inbound/ read per poll, shared out among the students they name (a name's first part).
NAMES_PER_POLL = 500
# Refusals named one by one in the log per poll; the rest are counted in one line (all are in the ledger).
REFUSALS_LOGGED = 20
# On stop, what the workers hold is finished within this long; what is not (a notebook that sleeps in every
# cell takes its whole time budget) is left unrecorded, to be graded again when a watcher next starts: a
# stop that waits minutes on one student is killed by a service manager anyway, and by then nothing is saved.
STOP_GRACE_SECONDS = 10.0


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass
class Graded:
    score: float
    max_score: float


@dataclass
class InFlight:
    """A submission in a worker's hands: what it is, what was collected, and what the writer needs."""

    entry: Entry
    got: Collected | None  # None: a best attempt graded again into the gradebook, its feedback not released
    prepared: Prepared
    started: float  # time.monotonic() when it was collected
    tries: int = 0


class Watcher:
    def __init__(self, settings: CourseSettings, assignments: tuple[str, ...], policy: Policy,
                 exchange: Exchange, ledger: Ledger, writer: GradebookWriter, pool: ProcessPoolExecutor,
                 jobs: int, hide: list[str], log: Callable[[str], None]) -> None:
        self.settings, self.assignments, self.policy = settings, assignments, policy
        self.exchange, self.ledger, self.writer = exchange, ledger, writer
        self.pool, self.jobs, self.hide, self.log = pool, jobs, hide, log
        self.sources: dict[str, list[SourceNotebook]] = {a: writer.source_notebooks(a) for a in assignments}
        # What the instructor's folder gives every job of an assignment, read once.
        self.instructor = {a: instructor_files(settings, self.sources[a], a) for a in assignments}
        self.pages = FeedbackMaker(settings.root, settings.coursedir, settings.coursedir.config)
        self.parsed: dict[str, Entry | None] = {}  # names seen in inbound/, parsed once
        self.unfinished: dict[str, float] = {}  # names `nbgrader submit` had not finished: when to look again
        self.failures: dict[str, int] = {}  # faults on our side so far, by submission
        self.unreachable = False  # inbound/ could not be listed last time
        self.inflight: dict[Future, InFlight] = {}
        self.batch = Batch(writer)
        self.refused_this_poll = 0
        self.abandoned = False  # stopped with submissions still being graded (`run`)

    # the loop -----------------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """Poll, start what is due, release what is graded, until `stop` is set; what is in the workers'
        hands then is finished first, for at most STOP_GRACE_SECONDS (nothing is left half done: the rest is
        not recorded at all, `self.abandoned` says so)."""
        written = 0.0
        while not stop.is_set():
            started = self.start_due()
            if time.monotonic() - written >= WRITE_SECONDS:
                self.status().write(self.ledger.path.parent)
                written = time.monotonic()
            self.finish_graded(0.05 if started else self.policy.poll_seconds)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while self.inflight and (left := deadline - time.monotonic()) > 0:
            self.finish_graded(left)
        if self.inflight:
            self.abandoned = True
            names = ", ".join(sorted(f"{f.entry.student} {f.entry.assignment}" for f in self.inflight.values()))
            self.log(f"stopping with {len(self.inflight)} submissions still being graded ({names}): not "
                     "recorded, graded again when a watcher next starts")
        self.status().write(self.ledger.path.parent)

    def status(self) -> WatchStatus:
        """What the watcher is doing now (`autograder status`)."""
        now, clock = utcnow(), time.monotonic()
        states = Counter(record.state for record in self.ledger.last.values())
        waiting = [entry for name, entry in self.parsed.items() if entry is not None and not self.ledger.final(name)]
        pending = Counter(self.ledger.last[e.name].state for e in waiting if e.name in self.ledger.last)
        oldest = max(((now - entry.time).total_seconds() for entry in waiting), default=0.0)
        in_hand = [InHand(f.entry.student, f.entry.assignment, round(clock - f.started, 1))
                   for f in self.inflight.values()]
        return WatchStatus(os.getpid(), now.isoformat(), list(self.assignments), in_hand, len(waiting),
                           pending["deferred"], pending["failed"], states["graded"], states["refused"],
                           round(max(oldest, 0.0), 1))

    def start_due(self) -> int:
        """Hand each student's next due submission to the workers (a few per worker at most); the number
        started or refused."""
        self.writer.refresh()
        busy = {(f.entry.assignment, f.entry.student) for f in self.inflight.values()}
        room = 2 * self.jobs - len(self.inflight)
        count = 0
        for entry in self.due(utcnow(), busy):
            if room <= 0:
                break
            count += 1
            room -= self.start(entry)
        return count + self.refused_this_poll

    def due(self, now: datetime, busy: set[tuple[str, str]] = frozenset()) -> list[Entry]:
        """Each student's earliest submission not yet graded, in the order submitted, when it may be graded
        now and none of theirs is in a worker's hands (a deferred or failed one blocks the student's later
        ones: they are graded in order)."""
        earliest: dict[tuple[str, str], Entry] = {}
        try:
            names = self.exchange.names()
        except OSError as exc:  # the exchange unmounted or moved: said once, and watched for again
            if not self.unreachable:
                self.log(visible(f"cannot list {self.exchange.inbound}: {exc.strerror}; trying again"))
            self.unreachable = True
            return []
        if self.unreachable:
            self.log(visible(f"{self.exchange.inbound} can be listed again"))
            self.unreachable = False
        self.read_new(names, time.time())
        for name in names:
            entry = self.parsed.get(name)
            if entry is None or self.ledger.final(name):
                continue
            key = (entry.assignment, entry.student)
            if key not in earliest or (entry.time, entry.name) < (earliest[key].time, earliest[key].name):
                earliest[key] = entry
        due = []
        for entry in sorted(earliest.values(), key=lambda e: (e.time, e.name)):
            if (entry.assignment, entry.student) in busy:
                continue
            record = self.ledger.last.get(entry.name)
            if record and record.until and now < datetime.fromisoformat(record.until):
                continue
            slot = self.policy.next_slot(self.ledger.graded_times(entry.student, entry.assignment), now)
            if slot is not None:
                self.defer(entry, slot)
                continue
            due.append(entry)
        return due

    def read_new(self, names: list[str], now: float) -> None:
        """Parse the names not seen yet, at most NAMES_PER_POLL, taken in turn from each student they name, so
        that one student's flood of entries delays the reading of their own."""
        by_owner: dict[str, list[str]] = {}
        for name in names:
            if name in self.parsed or self.ledger.final(name) or self.unfinished.get(name, 0) > now:
                continue
            by_owner.setdefault(name.split("+", 1)[0], []).append(name)
        turn = [sorted(group, reverse=True) for group in by_owner.values()]
        refusals: list[Record] = []
        budget = NAMES_PER_POLL
        while turn and budget > 0:
            for group in list(turn):
                if budget <= 0:
                    break
                name = group.pop()
                if not group:
                    turn.remove(group)
                budget -= 1
                try:
                    self.parsed[name] = self.exchange.parse(name, self.assignments, self.policy.check_owner)
                    self.unfinished.pop(name, None)
                except Uncollectable as exc:
                    refusals.append(self.refusal(name, str(exc)))
                except Unfinished as exc:
                    if now - exc.since > UNFINISHED_SECONDS:
                        refusals.append(self.refusal(name, f"{exc} after {UNFINISHED_SECONDS:g} s"))
                    else:
                        self.unfinished[name] = now + UNFINISHED_RECHECK_SECONDS
        self.refuse_all(refusals)

    # one submission -------------------------------------------------------------------------------
    def start(self, entry: Entry) -> int:
        """Collect `entry` and hand it to a worker; 1 if it is now in a worker's hands, else 0 (refused, or
        unreadable and released at once)."""
        assignment, started = entry.assignment, time.monotonic()
        dest = self.settings.path("submitted", entry.student, assignment)
        try:
            got = self.exchange.collect(entry, dest, list(self.settings.coursedir.ignore))
        except (Uncollectable, UnsafeFile, OSError) as exc:
            why = str(exc) if not isinstance(exc, OSError) else f"{entry.name}: {exc}"
            self.refuse(entry.name, why)
            self.tell_refused(entry, why)
            return 0
        if self.policy.counts == "best":
            self.keep_attempt(entry.name, entry.student, assignment)
        graded = self.graded(entry, got)
        if graded is not None:  # graded already by a watcher that stopped before it released the feedback
            self.release(entry, got, graded, time.monotonic() - started)
            return 0
        try:
            prepared = self.prepared(entry.student, assignment)
        except AssemblyError as exc:  # the instructor's notebook, not the student's: no attempt, tried again later
            self.fail(entry, f"the grader could not assemble this submission: {exc}")
            return 0
        return self.submit(InFlight(entry, got, prepared, started))

    def prepared(self, student: str, assignment: str) -> Prepared:
        """The job for the student's collected folder; `AssemblyError` is the instructor's notebook's fault."""
        modules, preload = self.instructor[assignment]
        return prepare(self.settings, self.sources[assignment], modules, assignment, student, preload)

    def submit(self, flight: InFlight) -> int:
        if flight.prepared.job is None:  # the student's notebook cannot be read: graded as such, now
            self.finish(flight, unreadable_outcome(flight.prepared, flight.entry.assignment,
                                                   self.sources[flight.entry.assignment]))
            return 0
        self.inflight[self.pool.submit(work, flight.prepared.job)] = flight
        return 1

    def finish_graded(self, timeout: float | None) -> None:
        """Record and release every submission graded within `timeout` seconds (the first one waited for)."""
        if not self.inflight:
            if timeout:
                time.sleep(timeout)
            return
        done, _ = wait(self.inflight, timeout=timeout, return_when=FIRST_COMPLETED)
        broken: list[InFlight] = []
        for future in done:
            flight = self.inflight.pop(future)
            try:
                outcome = future.result()
            except BrokenProcessPool:
                broken.append(flight)
                continue
            except Exception as exc:  # a bug of ours: a fault on the grader's side, retried later
                self.fail(flight.entry, f"internal error: {type(exc).__name__}: {exc}"[:300])
                continue
            self.finish(flight, outcome)
        if broken:
            # A worker died (its sandbox machinery, never a student's code, can cause this): every job the pool
            # held is tried once more in a fresh pool.
            for future in list(self.inflight):
                broken.append(self.inflight.pop(future))
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = start_pool(self.jobs, self.hide, self.assignments[0], graders=self.settings.graders,
                                   level=self.settings.sandbox_level)
            for flight in broken:
                if flight.tries >= 1:
                    result = SubmissionResult(flight.prepared.student, flight.entry.assignment,
                                              message="grading crashed twice")
                    result.limits_hit = ["crash"]
                    self.finish(flight, Outcome(result))
                else:
                    flight.tries += 1
                    self.submit(flight)
            gc.collect()

    def finish(self, flight: InFlight, outcome: Outcome) -> None:
        """Record one outcome in the gradebook and autograded/, then release its feedback."""
        entry, assignment = flight.entry, flight.entry.assignment
        if self.writer.audit is not None:  # one run of the audit trail per submission recorded
            self.writer.audit.new_run()
        try:
            record(self.batch, self.settings, assignment, flight.prepared, outcome)
            self.batch.commit()
        except GradebookError as exc:
            self.batch.discard()
            if flight.got is not None:
                self.fail(entry, str(exc))
            return
        if flight.got is None:  # a best attempt graded again: the gradebook holds it now
            self.log(visible(f"best attempt kept for {entry.student} {assignment} (submitted {entry.time})"))
            return
        graded = self.graded(entry, flight.got)
        if graded is None:
            self.fail(entry, "not graded (a fault on the grader's side)")
            return
        self.release(entry, flight.got, graded, time.monotonic() - flight.started)
        if self.policy.counts == "best":
            best = self.best_before(entry)
            if best is not None and (best.score or 0) > graded.score:
                self.restore(assignment, best)

    def best_before(self, entry: Entry) -> Record | None:
        earlier = [r for r in self.ledger.graded(entry.student, entry.assignment) if r.name != entry.name]
        return max(earlier, key=lambda r: (r.score or 0, r.time), default=None)

    def restore(self, assignment: str, best: Record) -> None:
        """`counts = "best"`: grade the student's best attempt again, from the copy kept when it was collected,
        so that the gradebook (and what is exported and pushed from it) holds that one. Its feedback is not
        released again: the student has it."""
        from autograder.grading.autograded import swap_in

        kept = self.attempts_folder(best.name, best.student, assignment)
        dest = self.settings.path("submitted", best.student, assignment)
        if not kept.is_dir():
            self.log(visible(f"cannot keep {best.student}'s best attempt: no copy of it in {kept}"))
            return
        build = Path(tempfile.mkdtemp(prefix=f".{assignment}-best-", dir=dest.parent))
        shutil.copytree(kept, build / "x", symlinks=True)
        swap_in(build / "x", dest)
        shutil.rmtree(build, ignore_errors=True)
        entry = Entry(best.name, best.student, assignment, datetime.fromisoformat(best.time))
        try:
            prepared = self.prepared(best.student, assignment)
        except AssemblyError as exc:
            self.log(visible(f"cannot keep {best.student}'s best attempt: {exc}"))
            return
        self.submit(InFlight(entry, None, prepared, time.monotonic()))

    def graded(self, entry: Entry, got: Collected) -> Graded | None:
        """The grade `autograded/` holds for exactly this submission (its time and secret), or None: not
        graded yet, or graded by a run that crashed (which never counts)."""
        folder = self.settings.path("autograded", entry.student, entry.assignment)
        try:
            stamp = (folder / TIMESTAMP_FILE).read_text().strip()
            secret = (folder / SECRET_FILE).read_text().strip()
            result = json.loads((folder / RESULT_FILE).read_text())
        except (OSError, ValueError):
            return None
        if stamp != entry.time.strftime(NBGRADER_TIME) or secret != got.secret or "crash" in result["limits_hit"]:
            return None
        cells = result.get("cells", [])
        return Graded(round(sum(c["score"] for c in cells), 6), round(sum(c["max_score"] for c in cells), 6))

    # what becomes of a submission -----------------------------------------------------------------
    def release(self, entry: Entry, got: Collected, graded: Graded, seconds: float) -> None:
        notebooks = [source.name for source in self.sources[entry.assignment]]
        attempt = len(self.ledger.graded(entry.student, entry.assignment)) + 1
        note = self.attempt_line(entry, attempt)
        folder = self.settings.path("autograded", entry.student, entry.assignment)
        # A notebook the student's submission lacks, or one that could not be read, is graded 0 and said so on
        # its page: the student broke it, so it is never retried as a fault of ours.
        try:
            result = SubmissionResult.load(folder)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            self.fail(entry, f"{folder / RESULT_FILE}: {exc}")
            return
        readable = [] if result.status == "unreadable" else [
            n for n in notebooks if (folder / f"{n}.ipynb").is_file()]
        try:
            pages = self.pages.generate(entry.assignment, entry.student, readable) if readable else {}
            for notebook in notebooks:
                page = pages.get(notebook) or notice(f"{notebook}: graded 0", [
                    f"Your submission of {entry.assignment} at {when(entry.time)} was graded, but "
                    + (f"{notebook}.ipynb could not be read ({result.message})" if result.status == "unreadable"
                       else f"it has no {notebook}.ipynb") + ": every exercise in it scores 0.",
                    "Submit again with the notebook as you saved it in Jupyter."])
                self.exchange.release(got.secret, notebook, with_banner(page, note))
        except (FeedbackError, OSError) as exc:
            self.fail(entry, str(exc))
            return
        self.ledger.write(Record(entry.name, "graded", utcnow().isoformat(), entry.student, entry.assignment,
                                 entry.time.isoformat(), graded.score, graded.max_score))
        self.failures.pop(entry.name, None)
        # Both times, so the log shows what a student waited (a deferred submission: from its time, too).
        waited = max((utcnow() - entry.time).total_seconds(), 0.0)
        extra = f"; {entry.time_note}" if entry.time_note else ""
        left = f"; left out: {'; '.join(got.left_out)[:200]}" if got.left_out else ""
        self.log(visible(f"graded {entry.student} {entry.assignment} (submitted {entry.time:%Y-%m-%d %H:%M:%S} "
                         f"UTC, attempt {attempt}): {graded.score:g}/{graded.max_score:g}, feedback released "
                         f"{seconds:.2f} s after it was collected, {waited:.1f} s after it was submitted{extra}{left}"))

    def attempt_line(self, entry: Entry, attempt: int) -> str:
        counts = ("the best graded attempt counts for your grade" if self.policy.counts == "best"
                  else "your latest graded attempt counts for your grade")
        if not self.policy.attempts:
            return f"Graded attempt {attempt}; {counts}."
        hours = self.policy.window.total_seconds() / 3600
        return f"Graded attempt {attempt}: {self.policy.attempts} graded attempts per {hours:g} hours; {counts}."

    def defer(self, entry: Entry, slot: datetime) -> None:
        record = self.ledger.last.get(entry.name)
        if record and record.state == "deferred" and record.until == slot.isoformat():
            return
        hours = self.policy.window.total_seconds() / 3600
        try:
            secret = self.exchange.secret(entry)
            page = notice("Submission received: waiting to be graded", [
                f"Your submission of {entry.assignment} at {when(entry.time)} is kept.",
                f"You have used your {self.policy.attempts} graded attempts for the last {hours:g} hours; "
                f"it will be graded at {when(slot)}, and this page will then show its feedback."])
            for source in self.sources[entry.assignment]:
                self.exchange.release(secret, source.name, page)
        except (Uncollectable, OSError) as exc:
            self.refuse(entry.name, str(exc))
            return
        self.ledger.write(Record(entry.name, "deferred", utcnow().isoformat(), entry.student, entry.assignment,
                                 entry.time.isoformat(), until=slot.isoformat()))
        self.log(visible(f"deferred {entry.student} {entry.assignment} (submitted {entry.time:%H:%M:%S} UTC): "
                         f"over {self.policy.attempts} graded attempts per {hours:g} hours, graded at {when(slot)}"))

    def fail(self, entry: Entry, why: str) -> None:
        """A fault on our side: not an attempt; tried again later."""
        tries = self.failures[entry.name] = self.failures.get(entry.name, 0) + 1
        wait = min(RETRY_SECONDS * 2 ** (tries - 1), RETRY_MAX_SECONDS)
        until = datetime.fromtimestamp(time.time() + wait, UTC).replace(tzinfo=None)
        try:
            secret = self.exchange.secret(entry)
            page = notice("Submission received: grading will be retried", [
                f"Your submission of {entry.assignment} at {when(entry.time)} could not be graded because of a "
                "fault on the grader's side (not in your work). It does not count as an attempt.",
                "It will be graded again in a few seconds; fetch your feedback again then."])
            for source in self.sources[entry.assignment]:
                self.exchange.release(secret, source.name, page)
        except (Uncollectable, OSError):
            pass  # the notice is a courtesy; the retry is what matters
        self.ledger.write(Record(entry.name, "failed", utcnow().isoformat(), entry.student, entry.assignment,
                                 entry.time.isoformat(), until=until.isoformat(), note=why[:300]))
        self.log(visible(f"NOT GRADED {entry.student} {entry.assignment}: {why}; retried in {wait:g} s"))

    def tell_refused(self, entry: Entry, why: str) -> None:
        """The student's page says why their submission was not graded, where its secret can still be read (a
        folder changed after it was submitted, a file that is a link): they can submit again."""
        try:
            secret = self.exchange.secret(entry)
            page = notice("Submission not graded", [
                f"Your submission of {entry.assignment} at {when(entry.time)} was not graded: "
                f"{why.removeprefix(entry.name).lstrip(': ')}.",
                "It does not count as an attempt: submit again with nbgrader (or the Assignments tab)."])
            for source in self.sources[entry.assignment]:
                self.exchange.release(secret, source.name, page)
        except (Uncollectable, OSError):
            pass  # no usable secret: nowhere to put a page the student could fetch

    def refuse(self, name: str, why: str) -> None:
        self.refuse_all([self.refusal(name, why)])

    @staticmethod
    def refusal(name: str, why: str) -> Record:
        return Record(name, "refused", utcnow().isoformat(), note=why[:300])

    def refuse_all(self, refusals: list[Record]) -> None:
        """Refusals go to the ledger together (one sync to disk); the log names the first few of a poll and
        counts the rest."""
        self.refused_this_poll = len(refusals)
        if not refusals:
            return
        self.ledger.write_many(refusals)
        for refused in refusals[:REFUSALS_LOGGED]:
            self.log(visible(f"refused {refused.note}"))
        if len(refusals) > REFUSALS_LOGGED:
            self.log(f"refused {len(refusals) - REFUSALS_LOGGED} more entries in {self.exchange.inbound} "
                     "(each is in the ledger)")

    def keep_attempt(self, name: str, student: str, assignment: str) -> None:
        """`counts = "best"`: keep a copy of the collected submission, so the best one can be graded again
        into the gradebook from what was collected (the student can still change the exchange's copy)."""
        submitted = self.settings.path("submitted", student, assignment)
        copy = self.attempts_folder(name, student, assignment)
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(submitted, copy, symlinks=True)

    def attempts_folder(self, name: str, student: str, assignment: str) -> Path:
        digest = sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        return self.ledger.path.parent / "attempts" / assignment / student / digest
