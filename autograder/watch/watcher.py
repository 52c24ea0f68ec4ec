"""The watcher's loop: find submissions in nbgrader's exchange, collect, grade, release feedback.

Grading is `autograder grade`'s own (`grading.scheduler.start_class` and `grade_class` with one gradebook writer
and one pool of workers, each with its warm zygote, for the watcher's lifetime), so the gradebook rows,
`autograded/` folders and result files are the same. Each round takes at most one submission per student
(their earliest waiting one): a student's submissions are graded in order, and a student who submits a
hundred times waits their turn behind everyone else's next one.
"""

import gc
import json
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from hashlib import sha256
from pathlib import Path

from autograder.course.settings import CourseSettings
from autograder.course.submitted import TIMESTAMP_FILE, UnsafeFile
from autograder.grading.model import RESULT_FILE
from autograder.grading.sanitise import SourceNotebook
from autograder.grading.scheduler import grade_class, start_class
from autograder.grading.writer import GradebookError, GradebookWriter
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

# A fault on our side (the sandbox did not start, a worker died, the gradebook was locked) is retried
# after this long, then twice as long each time, up to the maximum.
RETRY_SECONDS = 5.0
RETRY_MAX_SECONDS = 300.0
# A folder `nbgrader submit` has not finished after this long is refused (a submit that died half-way, or
# a folder made by hand).
UNFINISHED_SECONDS = 300.0


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass
class Graded:
    score: float
    max_score: float


class Watcher:
    def __init__(self, settings: CourseSettings, assignments: tuple[str, ...], policy: Policy,
                 exchange: Exchange, ledger: Ledger, writer: GradebookWriter, pool: ProcessPoolExecutor,
                 jobs: int, hide: list[str], log: Callable[[str], None]) -> None:
        self.settings, self.assignments, self.policy = settings, assignments, policy
        self.exchange, self.ledger, self.writer = exchange, ledger, writer
        self.pool, self.jobs, self.hide, self.log = pool, jobs, hide, log
        self.sources: dict[str, list[SourceNotebook]] = {a: writer.source_notebooks(a) for a in assignments}
        self.pages = FeedbackMaker(settings.root, settings.coursedir, settings.coursedir.config)
        self.parsed: dict[str, Entry | None] = {}  # names seen in inbound/, parsed once
        self.failures: dict[str, int] = {}  # faults on our side so far, by submission
        self.unreachable = False  # inbound/ could not be listed last time

    # the loop -----------------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """Rounds until `stop` is set; a round in progress is finished first (nothing is left half done)."""
        while not stop.is_set():
            if not self.round():
                stop.wait(self.policy.poll_seconds)

    def round(self) -> int:
        """Grade every student's next due submission; the number graded or refused."""
        self.writer.refresh()
        due = self.due(utcnow())
        for assignment in self.assignments:
            if due.get(assignment):
                self.grade(assignment, due[assignment])
        return sum(map(len, due.values()))

    def due(self, now: datetime) -> dict[str, list[Entry]]:
        """For each assignment, each student's earliest submission not yet graded, when it may be graded now
        (a deferred or failed one blocks the student's later ones: they are graded in order)."""
        earliest: dict[tuple[str, str], Entry] = {}
        try:
            names = self.exchange.names()
        except OSError as exc:  # the exchange unmounted or moved: said once, and watched for again
            if not self.unreachable:
                self.log(visible(f"cannot list {self.exchange.inbound}: {exc.strerror}; trying again"))
            self.unreachable = True
            return {}
        if self.unreachable:
            self.log(visible(f"{self.exchange.inbound} can be listed again"))
            self.unreachable = False
        for name in names:
            if self.ledger.final(name):
                continue
            if name not in self.parsed:
                try:
                    self.parsed[name] = self.exchange.parse(name, self.assignments, self.policy.check_owner)
                except Uncollectable as exc:
                    self.refuse(name, str(exc))
                    continue
                except Unfinished as exc:
                    if time.time() - exc.since > UNFINISHED_SECONDS:
                        self.refuse(name, f"{exc} after {UNFINISHED_SECONDS:g} s")
                    continue
            entry = self.parsed[name]
            if entry is None:
                continue
            key = (entry.assignment, entry.student)
            if key not in earliest or (entry.time, entry.name) < (earliest[key].time, earliest[key].name):
                earliest[key] = entry
        due: dict[str, list[Entry]] = {}
        # In the order submitted: a round's feedback is generated one student after another.
        for entry in sorted(earliest.values(), key=lambda e: (e.time, e.name)):
            assignment, student = entry.assignment, entry.student
            record = self.ledger.last.get(entry.name)
            if record and record.until and now < datetime.fromisoformat(record.until):
                continue
            slot = self.policy.next_slot(self.ledger.graded_times(student, assignment), now)
            if slot is not None:
                self.defer(entry, slot)
                continue
            due.setdefault(assignment, []).append(entry)
        return due

    # one assignment's due submissions -------------------------------------------------------------
    def grade(self, assignment: str, entries: list[Entry]) -> None:
        started = time.monotonic()
        collected: list[tuple[Entry, Collected]] = []
        for entry in entries:
            dest = self.settings.path("submitted", entry.student, assignment)
            try:
                collected.append((entry, self.exchange.collect(entry, dest, list(self.settings.coursedir.ignore))))
            except (Uncollectable, UnsafeFile, OSError) as exc:
                self.refuse(entry.name, str(exc) if not isinstance(exc, OSError) else f"{entry.name}: {exc}")
        todo = [entry.student for entry, got in collected if self.graded(entry, got) is None]
        if todo:
            try:
                self.grade_students(assignment, todo)
            except GradebookError as exc:
                for entry, _ in collected:
                    self.fail(entry, str(exc))
                return
        restore = []
        for entry, got in collected:
            graded = self.graded(entry, got)
            if graded is None:
                self.fail(entry, "not graded (a fault on the grader's side)")
                continue
            if self.policy.counts == "best":
                self.keep_attempt(entry.name, entry.student, assignment)
                best = self.best_before(entry)
                if best is not None and (best.score or 0) > graded.score:
                    restore.append(best)
            self.release(entry, got, graded, time.monotonic() - started)
        if restore:
            self.restore(assignment, restore)

    def best_before(self, entry: Entry) -> Record | None:
        earlier = [r for r in self.ledger.graded(entry.student, entry.assignment) if r.name != entry.name]
        return max(earlier, key=lambda r: (r.score or 0, r.time), default=None)

    def restore(self, assignment: str, best: list[Record]) -> None:
        """`counts = "best"`: grade each student's best attempt again, from the copy kept when it was
        collected, so that the gradebook (and what is exported and pushed from it) holds that one. Its
        feedback is not released again: the student has it."""
        from autograder.grading.autograded import swap_in

        students = []
        for record in best:
            kept = self.attempts_folder(record.name, record.student, assignment)
            dest = self.settings.path("submitted", record.student, assignment)
            if not kept.is_dir():
                self.log(visible(f"cannot keep {record.student}'s best attempt: no copy of it in {kept}"))
                continue
            build = Path(tempfile.mkdtemp(prefix=f".{assignment}-best-", dir=dest.parent))
            shutil.copytree(kept, build / "x", symlinks=True)
            swap_in(build / "x", dest)
            shutil.rmtree(build, ignore_errors=True)
            students.append(record.student)
        if students:
            self.grade_students(assignment, students)
            for record in best:
                self.log(visible(f"best attempt kept for {record.student} {assignment}: {record.score:g}/"
                                 f"{record.max_score:g} (submitted {record.time})"))

    def grade_students(self, assignment: str, students: list[str]) -> None:
        """`autograder grade --force --student ...` for these students, with the watcher's pool and writer."""
        if self.writer.audit is not None:  # one run of the audit trail each round
            self.writer.audit.new_run()
        run = start_class(self.settings, assignment, self.sources[assignment], students, True,
                          self.jobs, self.hide, self.pool)
        try:
            grade_class(run, self.writer, keep_pool=True)
        finally:
            self.pool = run.pool  # a new one if a worker died
            # grade_class freezes what is alive for the collector's sake (right for one run); in a process
            # that lives for weeks, cycles frozen each round would never be freed.
            gc.unfreeze()

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
        try:
            pages = self.pages.generate(entry.assignment, entry.student, notebooks)
            for notebook, page in pages.items():
                self.exchange.release(got.secret, notebook, with_banner(page, note))
        except (FeedbackError, OSError) as exc:
            self.fail(entry, str(exc))
            return
        self.ledger.write(Record(entry.name, "graded", utcnow().isoformat(), entry.student, entry.assignment,
                                 entry.time.isoformat(), graded.score, graded.max_score))
        self.failures.pop(entry.name, None)
        extra = f"; {entry.time_note}" if entry.time_note else ""
        left = f"; left out: {'; '.join(got.left_out)[:200]}" if got.left_out else ""
        self.log(visible(f"graded {entry.student} {entry.assignment} (submitted {entry.time:%Y-%m-%d %H:%M:%S} "
                         f"UTC, attempt {attempt}): {graded.score:g}/{graded.max_score:g}, feedback released "
                         f"in {seconds:.2f} s{extra}{left}"))

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

    def refuse(self, name: str, why: str) -> None:
        self.ledger.write(Record(name, "refused", utcnow().isoformat(), note=why[:300]))
        self.log(visible(f"refused {why}"))

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
