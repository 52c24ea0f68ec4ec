"""Grade a whole class: decide who is graded, keep the workers supplied with prepared jobs, and hand every
outcome to the recorder as it comes back; a worker that dies has its jobs tried once more in a fresh pool.

Memory stays flat in the class size: at most a few dozen jobs are in flight, and only counters are kept.
"""

import gc
import os
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autograder.course.settings import CourseSettings
from autograder.course.submitted import folder_problem, read_timestamp, time_refusal
from autograder.grading.assignment import check_graders
from autograder.grading.instructor import instructor_files
from autograder.grading.model import Outcome, SourceNotebook, SubmissionResult
from autograder.grading.pool import sandbox_ready, start_pool, work
from autograder.grading.prepare import Prepared, prepare, unreadable_outcome
from autograder.grading.recording import Batch, record
from autograder.grading.score_policy import AS_GRADED, ScorePolicy

if TYPE_CHECKING:  # the gradebook writer loads once the workers have started (see `grading.startup`)
    from autograder.grading.writer import GradebookWriter

# A slot is one job grading at a time: a worker process here (`ClassRun.jobs` of them), or a share of a cluster's
# worker (`cluster.executor.SLOTS_PER_WORKER`).
# Jobs a slot holds at most, running or finished and not yet recorded. So many are handed out before the
# gradebook writer exists: enough to keep each worker busy while the main process loads the rest of what it
# needs and opens the gradebook (longest with another database than SQLite, when nbgrader's ORM and
# SQLAlchemy load, while the workers compete for the cores). The bound keeps memory flat when
# recording is the slower side (regrading with --force reads each student's old rows).
IN_HAND_PER_SLOT = 32
# Jobs kept unfinished per slot once outcomes are being recorded: one grading, the next ready the moment it ends.
UNFINISHED_PER_SLOT = 2


class GradingStopped(Exception):
    """The executor lost the work (a cluster's scheduler went away): one line; what was graded is committed,
    and the next run grades the rest."""


@dataclass
class Summary:
    graded: int = 0
    unreadable: int = 0
    skipped: int = 0
    refused: int = 0  # folders not a student's own (a link, not a plain id), or without a usable time: not graded
    errors: int = 0  # not graded because of a fault in the grader itself (left as they were)
    limits: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    sandbox_level: str = ""
    protections_off: list[str] = field(default_factory=list)

    def count(self, outcome: Outcome) -> None:
        """One recorded outcome in the tally, and its problems in the instructor's list."""
        result = outcome.result
        if result.status == "unreadable":
            self.unreadable += 1
            self.problems.append(f"{result.student}: unreadable notebook: {result.message}")
        else:
            self.graded += 1
            if result.limits_hit:
                self.problems.append(f"{result.student}: limits hit ({', '.join(result.limits_hit)}): "
                                     f"{result.message[:200]}")
        if result.ignored:
            self.problems.append(f"{result.student}: left out of the submission: {'; '.join(result.ignored)[:300]}")
        self.limits.update(result.limits_hit)
        if outcome.sandbox_level:
            self.sandbox_level = outcome.sandbox_level
            self.protections_off = outcome.protections_off


def students_to_grade(settings: CourseSettings, assignment: str, students: list[str] | None) -> list[str]:
    """The students named, or every entry of `submitted/` with something at `<entry>/<assignment>`: whether
    it may be graded (a plain id, real folders) is `start_class`'s to say, for each one."""
    if students:
        return list(dict.fromkeys(students))
    submitted = settings.path("submitted", ".", ".")
    found = []
    if submitted.is_dir():
        for entry in sorted(os.listdir(submitted)):
            try:
                os.lstat(submitted / entry / assignment)
            except OSError:
                continue
            found.append(entry)
    return found


def already_graded(settings: CourseSettings, sources: list[SourceNotebook], assignment: str, student: str) -> bool:
    """nbgrader's rule: skip when every autograded notebook exists and the submission is not newer."""
    dest = settings.path("autograded", student, assignment)
    if not all((dest / f"{s.name}.ipynb").exists() for s in sources):
        return False
    new = read_timestamp(settings.path("submitted", student, assignment)).time
    old = read_timestamp(dest).time
    return not (new is not None and old is not None and new > old)


@dataclass
class ClassRun:
    """One class's grading: who is graded and with what, the jobs in the workers' hands, the tally."""

    settings: CourseSettings
    assignment: str
    sources: list[SourceNotebook]
    jobs: int
    hide: list[str]
    pool: ProcessPoolExecutor
    checked: Future  # ready_to_grade, running in a worker: its error stops grading before anything is written
    modules: dict[str, str] = field(default_factory=dict)
    preload: list[str] = field(default_factory=list)
    queue: list[str] = field(default_factory=list)  # students still to prepare, the next one last
    total: int = 0
    summary: Summary = field(default_factory=Summary)
    started: float = field(default_factory=time.monotonic)
    pending: dict[Future, tuple[Prepared, int]] = field(default_factory=dict)
    unreadable: list[Prepared] = field(default_factory=list)  # found before the writer existed

    def fill(self, before_recording: bool = False) -> None:
        """Hand out prepared jobs: up to `UNFINISHED_PER_SLOT` unfinished per slot, or, `before_recording` (the
        gradebook writer is still loading, `start_class`), as many as a slot holds; never more than
        `IN_HAND_PER_SLOT` per slot in all, finished ones waiting to be recorded included."""
        unfinished_per_slot = IN_HAND_PER_SLOT if before_recording else UNFINISHED_PER_SLOT
        unfinished = sum(not future.done() for future in self.pending)
        while (self.queue and unfinished < unfinished_per_slot * self.jobs
               and len(self.pending) < IN_HAND_PER_SLOT * self.jobs):
            prepared = prepare(self.settings, self.sources, self.modules, self.assignment, self.queue.pop(),
                               self.preload)
            if prepared.refused:
                self.summary.refused += 1
                self.summary.problems.append(f"not graded: {prepared.refused}")
                continue
            if prepared.job is None:
                self.unreadable.append(prepared)
                continue
            self.pending[self.pool.submit(work, prepared.job)] = (prepared, 0)
            unfinished += 1


def ready_to_grade(sources: list[SourceNotebook]) -> None:
    """In a worker, before any student: its sandbox is up (else `SandboxError`, one line: nothing is graded
    where student code could read the graders), and each grade cell's graders are worth its points."""
    sandbox_ready()
    check_graders(sources)


def start_class(settings: CourseSettings, assignment: str, sources: list[SourceNotebook], students: list[str],
                force: bool, jobs: int, hide: list[str] | tuple[str, ...], pool: ProcessPoolExecutor) -> ClassRun:
    """Decide who is graded and put the first jobs in the workers' hands. Nothing here needs the gradebook
    writer: the grade command calls this before loading it, and the first submissions run meanwhile."""
    run = ClassRun(settings, assignment, sources, jobs, list(hide), pool, pool.submit(ready_to_grade, sources))
    run.modules, run.preload = instructor_files(settings, sources, assignment)
    todo = []
    submitted = settings.path("submitted", ".", ".")
    for student in students:
        refused = folder_problem(submitted, student, assignment) or time_refusal(
            settings.path("submitted", student, assignment))
        if refused:
            run.summary.refused += 1
            run.summary.problems.append(f"not graded: {refused}")
        elif not force and already_graded(settings, sources, assignment, student):
            run.summary.skipped += 1
        elif not settings.path("submitted", student, assignment).is_dir():
            run.summary.problems.append(f"{student}: no submission in "
                                        f"{settings.path('submitted', student, assignment)}")
        else:
            todo.append(student)
    run.queue, run.total = list(reversed(todo)), len(todo)
    run.fill(before_recording=True)
    return run


def grade_class(run: ClassRun, writer: "GradebookWriter", progress: Any = None, keep_pool: bool = False,
                policy: ScorePolicy = AS_GRADED) -> Summary:
    """Grade the rest of `run` and record every outcome, its scores as `policy` leaves them; the run's pool is
    shut down at the end, unless `keep_pool` (the watcher grades with one pool for its lifetime: `run.pool`, a
    new one if a worker died)."""
    settings, assignment, sources, summary = run.settings, run.assignment, run.sources, run.summary
    gc.freeze()  # nbgrader and the rest loaded so far stay: the collector need not walk them
    run.checked.result()  # an error in the graders' points stops grading before anything is written
    task = progress.add_task(f"grading {assignment}", total=run.total) if progress else None
    pending = run.pending
    batch = Batch(writer)

    def finish(prepared: Prepared, outcome: Outcome) -> None:
        record(batch, settings, assignment, prepared, outcome, policy)
        summary.count(outcome)
        if batch.due():
            batch.commit()
        if progress:
            progress.advance(task)

    try:
        while run.queue or pending or run.unreadable:
            while run.unreadable:
                prepared = run.unreadable.pop(0)
                finish(prepared, unreadable_outcome(prepared, assignment, sources))
            run.fill()
            if not pending:
                continue
            done, _ = wait(pending, timeout=batch.wait_seconds(), return_when=FIRST_COMPLETED)
            if batch.due():  # a slow submission does not hold finished ones back from the gradebook
                batch.commit()
            broken = []
            lost = None
            # Out of `pending` first, so that new jobs go out between the records of a long backlog.
            finished = [(future, *pending.pop(future)) for future in done]
            for future, prepared, tries in finished:
                try:
                    outcome = future.result()
                except BrokenProcessPool:
                    broken.append((prepared, tries))
                    continue
                except GradingStopped as exc:
                    lost = exc
                    continue
                except Exception as exc:  # a bug of ours: this student stays as they were, the rest go on
                    summary.errors += 1
                    summary.problems.append(f"{prepared.student}: NOT GRADED, internal error: "
                                            f"{type(exc).__name__}: {exc}"[:300])
                    if progress:
                        progress.advance(task)
                    continue
                finish(prepared, outcome)
                run.fill()  # recording the early jobs' backlog takes a while: the workers are kept busy
            if lost:  # what was graded is committed; the next run grades the rest
                batch.commit()
                raise lost
            if broken:
                # A worker died (its sandbox machinery, never a student's code in the sandbox, can cause
                # this); every job it held is tried once more in a fresh pool.
                for future, (prepared, tries) in list(pending.items()):
                    broken.append((prepared, tries))
                    pending.pop(future)
                run.pool.shutdown(wait=False, cancel_futures=True)
                run.pool = start_pool(run.jobs, run.hide, assignment, graders=run.settings.graders,
                                      level=run.settings.sandbox_level)
                for prepared, tries in broken:
                    if tries >= 1:
                        result = SubmissionResult(prepared.student, assignment, message="grading crashed twice")
                        result.limits_hit = ["crash"]
                        finish(prepared, Outcome(result))
                    else:
                        pending[run.pool.submit(work, prepared.job)] = (prepared, tries + 1)
        batch.commit()
    finally:
        batch.discard()  # only after an error: what was not committed is graded again next run
        if not keep_pool:
            run.pool.shutdown(wait=True, cancel_futures=True)
    summary.seconds = time.monotonic() - run.started
    return summary
