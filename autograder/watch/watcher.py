"""The watcher's loop: find submissions in nbgrader's exchange, collect, grade, release feedback.

Grading is `autograder grade`'s own (`grading.prepare`, the pool's `work`, `grading.recording` with one gradebook
writer and one pool of workers, each with its warm zygote, for the watcher's lifetime), so the gradebook rows,
`autograded/` folders and result files are the same. Submissions are graded as workers free up, not in
rounds: each one's feedback is released as soon as it is graded, whatever the others still take. A student has
at most one submission in the workers' hands (their earliest waiting one: a student's submissions are graded
in order), so a student who submits a hundred times holds up only their own; a run is handed to a free worker
only (never queued behind another), and one whose notebook sleeps in every cell is passed by on a spare worker
(`watch.slots`). What is in `inbound/` is read by `watch.inbound`; what becomes of a submission not graded now
(deferred, failed, refused) is `watch.ungraded`'s.
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
from datetime import datetime
from hashlib import sha256
from pathlib import Path

from autograder.course.settings import CourseSettings
from autograder.course.submitted import TIMESTAMP_FILE, UnsafeFile
from autograder.deadlines.schedule import DeadlineError, as_utc
from autograder.deadlines.schedule import Outcome as LateOutcome
from autograder.display.page_markup import markup, when
from autograder.display.terminal import visible
from autograder.grader_support.exercise import points_total
from autograder.grading.gradebook_db import GradebookError
from autograder.grading.instructor import instructor_files
from autograder.grading.model import RESULT_FILE, Outcome, SubmissionResult
from autograder.grading.pool import start_pool, work
from autograder.grading.prepare import AssemblyError, Prepared, prepare, unreadable_outcome
from autograder.grading.recording import Batch, record
from autograder.grading.sanitise import SourceNotebook
from autograder.grading.writer import GradebookWriter
from autograder.watch.attempt_policy import Policy
from autograder.watch.exchange import NBGRADER_TIME, SECRET_FILE, Collected, Entry, Exchange, Uncollectable
from autograder.watch.inbound import Inbound
from autograder.watch.ledger import Ledger, Record, utcnow
from autograder.watch.pages import FeedbackError, FeedbackMaker, notice, with_banner
from autograder.watch.slots import CpuMeter, room_beside
from autograder.watch.standing import Attempt, Hand, attempts_of, counted, graded_lines, superseded_lines
from autograder.watch.ungraded import Ungraded
from autograder.watch.watch_status import WRITE_SECONDS, InHand, WatchStatus

# On stop, what the workers hold is finished within this long; what is not (a notebook that sleeps in every
# cell takes its whole time budget) is left unrecorded, to be graded again when a watcher next starts: a
# stop that waits minutes on one student is killed by a service manager anyway, and by then nothing is saved.
STOP_GRACE_SECONDS = 10.0


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
    practice: bool = False  # after the student's last late deadline: feedback only (`Watcher.late_outcome`)
    aside: bool = False  # on a spare worker, beside runs that wait (`watch.slots`)


class Watcher:
    def __init__(self, settings: CourseSettings, assignments: tuple[str, ...], policy: Policy,
                 exchange: Exchange, ledger: Ledger, writer: GradebookWriter, pool: ProcessPoolExecutor,
                 jobs: int, hide: list[str], log: Callable[[str], None], aside: int = 0) -> None:
        self.settings, self.assignments, self.policy = settings, assignments, policy
        self.exchange, self.ledger, self.writer = exchange, ledger, writer
        self.pool, self.jobs, self.hide, self.log = pool, jobs, hide, log
        # Spare workers for runs started beside ones that wait (`watch.slots`), started at first need.
        self.aside, self.aside_pool, self.meter = aside, None, CpuMeter()
        self.sources: dict[str, list[SourceNotebook]] = {a: writer.source_notebooks(a) for a in assignments}
        # What the instructor's folder gives every job of an assignment, read once.
        self.instructor = {a: instructor_files(settings, self.sources[a], a) for a in assignments}
        self.pages = FeedbackMaker(settings.root, settings.coursedir, settings.coursedir.config)
        self.ungraded = Ungraded(exchange, ledger, policy, self.sources, log)
        self.inbound = Inbound(exchange, assignments, policy.check_owner, ledger, self.ungraded.refuse_junk, log)
        self.inflight: dict[Future, InFlight] = {}
        self.batch = Batch(writer)
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
            self.finish_graded(0.05 if started else self.policy.poll_seconds, refill=True)
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
        waiting = self.inbound.waiting()
        pending = Counter(self.ledger.last[e.name].state for e in waiting if e.name in self.ledger.last)
        oldest = max(((now - entry.time).total_seconds() for entry in waiting), default=0.0)
        in_hand = [InHand(f.entry.student, f.entry.assignment, round(clock - f.started, 1))
                   for f in self.inflight.values()]
        return WatchStatus(os.getpid(), now.isoformat(), list(self.assignments), in_hand, len(waiting),
                           pending["deferred"], pending["failed"], states["graded"],
                           states["refused"] + len(self.inbound.junk),
                           round(max(oldest, 0.0), 1))

    def start_due(self, finishing: frozenset[tuple[str, str]] = frozenset()) -> int:
        """Hand each student's next due submission to a free worker; the number started or refused.
        `finishing`: (assignment, student) of runs done and not yet recorded, whose next ones wait for that."""
        self.writer.refresh()
        busy = {(f.entry.assignment, f.entry.student) for f in self.inflight.values()} | finishing
        count = 0
        for entry in self.due(utcnow(), busy):
            aside = self.free_worker()
            if aside is None:
                break
            count += 1
            self.start(entry, aside)
        return count + self.ungraded.refused_this_poll

    def free_worker(self) -> bool | None:
        """Where the next run can start now: False on one of the `jobs` workers, True on a spare one beside runs
        that wait (`watch.slots.room_beside`), None nowhere (it waits for a worker: no run is queued behind
        another, which may be one that sleeps)."""
        if sum(not f.aside for f in self.inflight.values()) < self.jobs:
            return False
        if sum(f.aside for f in self.inflight.values()) >= self.aside:
            return None
        clock = time.monotonic()
        ages = [clock - f.started for f in self.inflight.values()]
        return True if room_beside(self.jobs, ages, self.meter) else None

    def due(self, now: datetime, busy: set[tuple[str, str]] = frozenset()) -> list[Entry]:
        """Each student's earliest submission not yet graded, in the order submitted, when it may be graded
        now and none of theirs is in a worker's hands (a deferred or failed one blocks the student's later
        ones: they are graded in order)."""
        due = []
        for entry in self.inbound.earliest(time.time()):
            if (entry.assignment, entry.student) in busy:
                continue
            record = self.ledger.last.get(entry.name)
            if record and record.until and now < datetime.fromisoformat(record.until):
                continue
            slot = self.policy.next_slot(self.ledger.graded_times(entry.student, entry.assignment), now)
            if slot is not None:
                self.ungraded.defer(entry, slot)
                continue
            due.append(entry)
        return due

    # one submission -------------------------------------------------------------------------------
    def start(self, entry: Entry, aside: bool = False) -> int:
        """Collect `entry` and hand it to a worker; 1 if it is now in a worker's hands, else 0 (refused, or
        unreadable and released at once)."""
        assignment, started = entry.assignment, time.monotonic()
        try:
            late = self.late_outcome(entry)
        except (GradebookError, DeadlineError) as exc:
            self.ungraded.fail(entry, str(exc))
            return 0
        if late is LateOutcome.NOT_ACCEPTED:
            self.ungraded.not_accepted(entry)
            return 0
        practice = late is LateOutcome.PRACTICE
        dest = self.settings.path("submitted", entry.student, assignment)
        try:
            got = self.exchange.collect(entry, dest, list(self.settings.coursedir.ignore))
        except (Uncollectable, UnsafeFile, OSError) as exc:
            why = str(exc) if not isinstance(exc, OSError) else f"{entry.name}: {exc}"
            self.ungraded.refuse(entry.name, why)
            self.ungraded.tell_refused(entry, why)
            return 0
        if self.keeps_attempts(assignment):
            self.keep_attempt(entry.name, entry.student, assignment)
        graded = self.graded(entry, got)
        if graded is not None:  # graded already by a watcher that stopped before it released the feedback
            self.release(entry, got, graded, time.monotonic() - started, practice)
            return 0
        try:
            prepared = self.prepared(entry.student, assignment)
        except AssemblyError as exc:  # the instructor's notebook, not the student's: no attempt, tried again later
            self.ungraded.fail(entry, f"the grader could not assemble this submission: {exc}")
            return 0
        if prepared.refused:  # its timestamp.txt, written by the collect above, changed since: collected again later
            self.ungraded.fail(entry, prepared.refused)
            return 0
        return self.submit(InFlight(entry, got, prepared, started, practice=practice, aside=aside))

    def late_outcome(self, entry: Entry) -> "LateOutcome | None":
        """Where `entry` falls by the course's late rules and the student's own due date, extension and label,
        from the time the exchange gave it; None when the assignment has no due date."""
        deadline = self.writer.deadline(entry.assignment, entry.student)
        if deadline is None:
            return None
        return deadline.credit(self.settings.late_rules, entry.assignment, as_utc(entry.time)).outcome

    def keeps_attempts(self, assignment: str) -> bool:
        """Whether each collected attempt is kept, to be graded again into the gradebook when a later one must
        not take its place there: a better one (`counts = "best"`), or any one that counts, when the assignment
        turns late work into practice."""
        after = self.settings.late_rules.schedule(assignment).after_last
        return self.policy.counts == "best" or after is LateOutcome.PRACTICE

    def prepared(self, student: str, assignment: str) -> Prepared:
        """The job for the student's collected folder; `AssemblyError` is the instructor's notebook's fault."""
        modules, preload = self.instructor[assignment]
        return prepare(self.settings, self.sources[assignment], modules, assignment, student, preload)

    def submit(self, flight: InFlight) -> int:
        if flight.prepared.job is None:  # the student's notebook cannot be read: graded as such, now
            self.finish(flight, unreadable_outcome(flight.prepared, flight.entry.assignment,
                                                   self.sources[flight.entry.assignment]))
            return 0
        if flight.aside and self.aside_pool is None:
            self.aside_pool = self.new_pool(self.aside)
        pool = self.aside_pool if flight.aside else self.pool
        self.inflight[pool.submit(work, flight.prepared.job)] = flight
        return 1

    def new_pool(self, workers: int) -> ProcessPoolExecutor:
        return start_pool(workers, self.hide, self.assignments[0], graders=self.settings.graders,
                          level=self.settings.sandbox_level)

    def pools(self) -> list[ProcessPoolExecutor]:
        """The workers' pools, to stop them: the `jobs` workers', and the spare ones' if they were started."""
        return [self.pool] + ([self.aside_pool] if self.aside_pool is not None else [])

    def finish_graded(self, timeout: float | None, refill: bool = False) -> None:
        """Record and release every submission graded within `timeout` seconds (the first one waited for);
        `refill`: the workers freed are given the next due submissions first (no run waits in a queue behind
        another, so a worker would otherwise idle while feedback is made)."""
        if not self.inflight:
            if timeout:
                time.sleep(timeout)
            return
        done, _ = wait(self.inflight, timeout=timeout, return_when=FIRST_COMPLETED)
        broken: list[InFlight] = []
        finished: list[tuple[InFlight, Outcome]] = []
        for future in done:
            flight = self.inflight.pop(future)
            try:
                finished.append((flight, future.result()))
            except BrokenProcessPool:
                broken.append(flight)
            except Exception as exc:  # a bug of ours: a fault on the grader's side, retried later
                self.ungraded.fail(flight.entry, f"internal error: {type(exc).__name__}: {exc}"[:300])
        if refill and finished and not broken:
            self.start_due(frozenset((f.entry.assignment, f.entry.student) for f, _ in finished))
        for flight, outcome in finished:
            self.finish(flight, outcome)
        if broken:
            # A worker died (its sandbox machinery, never a student's code, can cause this): every job its pool
            # held is tried once more in a fresh pool.
            asides = {flight.aside for flight in broken}
            for future, flight in list(self.inflight.items()):
                if flight.aside in asides:
                    broken.append(self.inflight.pop(future))
            if False in asides:
                self.pool.shutdown(wait=False, cancel_futures=True)
                self.pool = self.new_pool(self.jobs)
            if True in asides and self.aside_pool is not None:
                self.aside_pool.shutdown(wait=False, cancel_futures=True)
                self.aside_pool = None  # started again by the first run put there
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
                self.ungraded.fail(entry, str(exc))
            return
        if flight.got is None:  # an attempt that counts, graded again: the gradebook holds it now
            self.log(visible(f"counted attempt kept for {entry.student} {assignment} (submitted {entry.time})"))
            return
        graded = self.graded(entry, flight.got)
        if graded is None:
            self.ungraded.fail(entry, "not graded (a fault on the grader's side)")
            return
        self.release(entry, flight.got, graded, time.monotonic() - flight.started, flight.practice)
        earlier = self.counting_before(entry)
        if earlier is not None and (flight.practice or (
                self.policy.counts == "best" and (earlier.score or 0) > graded.score)):
            self.restore(assignment, earlier)

    def counting_before(self, entry: Entry) -> Record | None:
        """The attempt before `entry` that counts by the course's policy (the latest or the best), practice
        attempts passed over."""
        earlier = [r for r in self.ledger.graded(entry.student, entry.assignment)
                   if r.name != entry.name and not r.practice]
        if self.policy.counts == "best":
            return max(earlier, key=lambda r: (r.score or 0, r.time), default=None)
        return max(earlier, key=lambda r: (r.at, r.time), default=None)

    def restore(self, assignment: str, best: Record) -> None:
        """Grade the attempt that counts again, from the copy kept when it was collected, so that the gradebook
        (and what is exported and pushed from it) holds that one, not the attempt just graded: a worse one when
        the best counts, or a practice one. Its feedback is not released again: the student has it."""
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
        if prepared.refused:
            self.log(visible(f"cannot keep {best.student}'s best attempt: {prepared.refused}"))
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
        return Graded(points_total(c["score"] for c in cells), points_total(c["max_score"] for c in cells))

    # what becomes of a submission -----------------------------------------------------------------
    def release(self, entry: Entry, got: Collected, graded: Graded, seconds: float, practice: bool) -> None:
        notebooks = [source.name for source in self.sources[entry.assignment]]
        earlier = attempts_of(self.ledger.graded(entry.student, entry.assignment))
        attempt = len(earlier) + 1
        folder = self.settings.path("autograded", entry.student, entry.assignment)
        # A notebook the student's submission lacks, or one that could not be read, is graded 0 and said so on
        # its page: the student broke it, so it is never retried as a fault of ours.
        try:
            result = SubmissionResult.load(folder)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            self.ungraded.fail(entry, f"{folder / RESULT_FILE}: {exc}")
            return
        readable = [] if result.status == "unreadable" else [
            n for n in notebooks if (folder / f"{n}.ipynb").is_file()]
        try:
            pages = self.pages.generate(entry.assignment, entry.student, readable) if readable else {}
            # The attempt's time is when it was released: what the window counts, and what the banner says.
            now = utcnow()
            attempts = [*earlier, Attempt(attempt, entry.time, now, graded.score, graded.max_score, practice=practice)]
            hand = self.hand(entry)
            note = graded_lines(self.policy, attempts, now, hand)
            names = []
            for notebook in notebooks:
                page = pages.get(notebook) or notice(f"{notebook}: graded 0", [
                    markup(f"Your submission of {entry.assignment} at ", when(entry.time), " was graded, but "
                           + (f"{notebook}.ipynb could not be read ({result.message})"
                              if result.status == "unreadable" else f"it has no {notebook}.ipynb")
                           + ": every exercise in it scores 0."),
                    markup("Submit again with the notebook as you saved it in Jupyter.")])
                names.append(self.exchange.release(got.secret, notebook, with_banner(page, note)).name)
        except (FeedbackError, OSError) as exc:
            self.ungraded.fail(entry, str(exc))
            return
        self.ledger.write(Record(entry.name, "graded", now.isoformat(), entry.student, entry.assignment,
                                 entry.time.isoformat(), graded.score, graded.max_score, feedback=names,
                                 hints={c.grade_id: list(c.exercise.hints) for c in result.cells
                                        if c.exercise and c.exercise.hints}, practice=practice))
        self.ungraded.graded(entry.name)
        self.tell_superseded(earlier, attempts, hand)
        # Both times, so the log shows what a student waited (a deferred submission: from its time, too).
        waited = max((utcnow() - entry.time).total_seconds(), 0.0)
        extra = f"; {entry.time_note}" if entry.time_note else ""
        left = f"; left out: {'; '.join(got.left_out)[:200]}" if got.left_out else ""
        self.log(visible(f"graded {entry.student} {entry.assignment} (submitted {entry.time:%Y-%m-%d %H:%M:%S} "
                         f"UTC, attempt {attempt}{', practice' if practice else ''}): "
                         f"{graded.score:g}/{graded.max_score:g}, feedback released "
                         f"{seconds:.2f} s after it was collected, {waited:.1f} s after it was submitted{extra}{left}"))

    def hand(self, entry: Entry) -> Hand | None:
        """What the student's grade adds to the attempt's autograded points (answers graded by hand), for the
        banner; None when the gradebook cannot say (the banner then gives the autograded points alone)."""
        try:
            found = self.writer.counted_score(entry.assignment, entry.student)
        except GradebookError:
            return None
        return None if found is None else Hand(found.max_score, found.pending_points)

    def tell_superseded(self, earlier: list[Attempt], attempts: list[Attempt], hand: Hand | None = None) -> None:
        """The attempt that counted until now, when the new one takes its place: its pages say so, so that
        every feedback entry of the Assignments panel tells which attempt counts (fetching feedback again
        fetches every submission's page)."""
        before = counted(self.policy, earlier)
        if before is None or counted(self.policy, attempts) is before:
            return
        for name in before.pages:
            try:
                self.exchange.replace(name, with_banner(self.exchange.released(name),
                                                        superseded_lines(self.policy, before, hand)))
            except OSError as exc:  # a courtesy: the new attempt's own page says what counts
                self.log(f"could not update the feedback page {name} of an earlier attempt: {exc}")

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
