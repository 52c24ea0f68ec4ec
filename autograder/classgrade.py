"""Grade a whole class: read the course's settings, build one job per submission, grade the jobs in worker
processes (each with its own zygote) and hand every outcome to the single gradebook writer.

Memory stays flat in the class size: at most a few dozen jobs are in flight, and only counters are kept.
"""

import gc
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograder.assemble import AssemblyError, SourceNotebook, notebook_job, sanitise
from autograder.course_settings import CONFIG_FILE, CourseSettings, SettingsError, read_course
from autograder.engine import CellJob, Job, NotebookJob, Outcome, grade_submission
from autograder.notebook import NotebookError
from autograder.results import SubmissionResult
from autograder.sandbox.launch import Launched
from autograder.sandbox.limits import Limits
from autograder.sandbox.syntax import python_source
from autograder.submitted import (
    MAX_TIMESTAMP_BYTES,
    TIMESTAMP_FILE,
    folder_problem,
    list_files,
    read_bytes,
    read_timestamp,
)

if TYPE_CHECKING:  # the gradebook module is imported once the workers have started
    from autograder.gradebook import GradebookWriter

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024
# Graded submissions are committed to the gradebook together, at most this many or this old: one
# transaction (and one sync of the journal to disk) per batch instead of per student. A crash loses at
# most the batch in progress, which the next run grades again; earlier batches stay committed.
BATCH_SIZE = 50
BATCH_SECONDS = 0.5
# Jobs a worker holds at most, running or finished and not yet recorded. So many are handed out before the
# gradebook writer exists: enough to keep each worker busy while the main process loads the rest of what it
# needs and opens the gradebook (longest with another database than SQLite, when nbgrader's ORM and
# SQLAlchemy load: 0.4-0.6 s while the workers compete for the cores). The bound keeps memory flat when
# recording is the slower side (regrading with --force reads each student's old rows).
IN_HAND_PER_WORKER = 32


class ClassError(Exception):
    """An operational problem (no such assignment, unreadable config): one line for the user."""


@dataclass
class Settings:
    """What grading reads from the course's settings."""

    course: CourseSettings
    add_missing: bool
    ignore_pattern: str | None
    exclude_overwriting: dict[str, list[str]]
    limits: Limits

    @property
    def root(self) -> Path:
        return self.course.root

    @property
    def course_id(self) -> str:
        return self.course.course_id

    @property
    def db_url(self) -> str:
        return self.course.db_url

    @property
    def coursedir(self) -> Any:
        return self.course.coursedir

    def path(self, step: str, student: str, assignment: str) -> Path:
        return self.course.path(step, student, assignment)


def load_settings(root: Path) -> Settings:
    """The course's settings (`course_settings.read_course`) that grading uses; `root` is the folder the
    command runs in, which the sandbox hides from students: the course must be there."""
    try:
        course = read_course(root)
    except SettingsError as exc:
        raise ClassError(str(exc)) from None
    if course.root != root.resolve():
        raise ClassError(f"{CONFIG_FILE} sets c.CourseDirectory.root to {course.root}: run this there")
    execute, pattern = course.section("Execute"), course.section("IgnorePattern")
    limits = Limits(cell_seconds=float(execute.get("timeout", 30)) if execute.get("timeout") else 30.0)
    return Settings(
        course=course,
        add_missing=bool(course.section("OverwriteCells").get("add_missing_cells", False)),
        ignore_pattern=pattern.get("pattern") if pattern.get("enabled", False) else None,
        exclude_overwriting=dict(course.section("Autograde").get("exclude_overwriting", {})),
        limits=limits,
    )


def instructor_modules(source: Path, ignore: list[str]) -> dict[str, str]:
    """The `.py` files beside the instructor's notebook (e.g. `selfcheck.py`): what `import` finds in the
    sandbox instead of any file of the same name in the submission."""
    modules = {}
    for path in sorted(source.glob("*.py")) if source.is_dir() else []:
        if path.is_file() and not path.is_symlink():
            modules[path.stem] = path.read_text()
    return modules


def instructor_files(settings: Settings, sources: list[SourceNotebook], assignment: str
                     ) -> tuple[dict[str, str], list[str]]:
    """What the instructor's folder gives every job of an assignment: its `.py` modules and the modules its
    notebooks import. Also marks, in `sources`, the code cells that are the instructor's text (see
    `assemble.notebook_job`: such cells are compiled once, in the zygote)."""
    source_dir = settings.path("source", ".", assignment)
    modules = instructor_modules(source_dir, settings.coursedir.ignore)
    code = instructor_code(source_dir)
    for source in sources:
        source.memo["instructor code"] = set(code.get(source.name, []))
    return modules, instructor_imports(code, modules)


def instructor_code(source: Path) -> dict[str, list[str]]:
    """Each instructor notebook's code cells that are not solution cells, as written (visible and hidden
    parts): the text a submission's cell has when the student left it as released."""
    found: dict[str, list[str]] = {}
    for path in sorted(source.glob("*.ipynb")) if source.is_dir() else []:
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError, AttributeError):
            continue
        texts = found.setdefault(path.stem, [])
        for cell in cells:
            if not (isinstance(cell, dict) and cell.get("cell_type") == "code"):
                continue
            if (cell.get("metadata") or {}).get("nbgrader", {}).get("solution"):
                continue
            text = cell.get("source", "")
            texts.append("".join(text) if isinstance(text, list) else str(text))
    return found


def instructor_imports(code: dict[str, list[str]], modules: dict[str, str]) -> list[str]:
    """The modules the instructor's notebooks import in what students see (not their own `.py` files): the
    sandbox's zygote imports them once so that no submission pays for, say, matplotlib's start. Never the
    hidden tests' imports, nor anything of this package: no grader code may enter the sandbox."""
    import ast

    from autograder.notebook import visible_part

    found: dict[str, None] = {}
    for text in (text for texts in code.values() for text in texts):
        try:
            tree = ast.parse(python_source(visible_part(text)))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(dict.fromkeys(alias.name for alias in node.names))
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found[node.module] = None
    return [name for name in found if name.split(".")[0] not in (*modules, "autograder")]


def read_fast(data: bytes, name: str) -> dict[str, Any]:
    """A notebook's bytes as plain dicts, without nbformat's schema validation (milliseconds a notebook);
    what grading needs is checked: cells with a type, a source and, where nbgrader put it, a metadata dict.
    `name` is the file's name, for messages."""
    try:
        text = data.decode("utf-8")
        nb = json.loads(text)
        if not (isinstance(nb, dict) and nb.get("nbformat") == 4 and _as_nbformat_reads(nb)):
            nb = None
    except Exception:  # nbformat reads it again, for its own message
        nb = None
    if nb is None:
        nb = _read_nbformat(data, name)
    elif "\\u" in text and _SURROGATE_ESCAPE.search(text):
        _replace_lone_surrogates(nb)
    if not isinstance(nb.get("cells"), list) or not all(
            isinstance(c, dict) and c.get("cell_type") in ("code", "markdown", "raw")
            and isinstance(c.get("source"), str) and isinstance(c.get("metadata", {}), dict)
            for c in nb["cells"]):
        raise NotebookError(f"{name}: not a readable notebook (malformed cells)")
    for cell in nb["cells"]:
        metadata = cell.setdefault("metadata", {})
        if "nbgrader" in metadata and not isinstance(metadata["nbgrader"], dict):
            del metadata["nbgrader"]  # not nbgrader's: the cell is a plain cell, as `sanitise` treats unknown ids
    return nb


# JSON text can name a lone UTF-16 surrogate (`"\ud800"`), which Python reads into a str that no UTF-8
# writer (the autograded notebook, the gradebook, a terminal) accepts. Only notebooks that name a surrogate
# at all are walked; in them, only strings that UTF-8 cannot encode change.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _replace_lone_surrogates(value: Any) -> Any:
    """Every string in the notebook with its lone surrogates replaced by U+FFFD, in place."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        for index, item in enumerate(value):
            value[index] = _replace_lone_surrogates(item)
    elif isinstance(value, dict):
        for key in list(value):
            fixed = _replace_lone_surrogates(key)
            if fixed is not key:
                value[fixed] = value.pop(key)
            value[fixed] = _replace_lone_surrogates(value[fixed])
    return value


def _as_nbformat_reads(nb: dict[str, Any]) -> bool:
    """What nbformat's v4 reader does to the JSON (join split lines, drop transient metadata), in place;
    False for a notebook it would refuse or treat otherwise. Outputs are left split: grading clears them."""
    cells, metadata = nb.get("cells"), nb.get("metadata")
    if not isinstance(cells, list) or not isinstance(metadata, dict) or not all(
            isinstance(c, dict) and isinstance(c.get("metadata"), dict) for c in cells):
        return False
    for cell in cells:
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
        for bundle in cell.get("attachments", {}).values():
            for mime, value in list(bundle.items()):
                json_mime = mime == "application/json" or (mime.startswith("application/") and mime.endswith("+json"))
                if not json_mime and isinstance(value, list) and all(isinstance(line, str) for line in value):
                    bundle[mime] = "".join(value)
        cell["metadata"].pop("trusted", None)
    for key in ("orig_nbformat", "orig_nbformat_minor", "signature"):
        metadata.pop(key, None)
    return True


def _read_nbformat(data: bytes, name: str) -> dict[str, Any]:
    """nbformat's reading, for what the fast path does not take: other versions (converted to v4, as
    nbgrader converts them), odd JSON, errors."""
    import nbformat

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotebookError(f"{name}: not a readable notebook (not UTF-8 text: byte {exc.start})") from None
    try:
        nb = nbformat.reads(text, as_version=4)
        nb = _replace_lone_surrogates(json.loads(json.dumps(nb)))  # plain dicts, as the fast path gives
    except Exception as exc:  # JSON errors, encodings, unknown versions: all mean "unreadable"
        raise NotebookError(f"{name}: not a readable notebook ({type(exc).__name__}: "
                            f"{' '.join(str(exc).split())[:160]})") from None
    if not _as_nbformat_reads(nb):
        raise NotebookError(f"{name}: not a readable notebook (malformed cells)")
    return nb


@dataclass
class Prepared:
    """A submission read and assembled in the main process: the job, and what the writer needs."""

    student: str
    job: Job | None
    notebooks: dict[str, dict[str, Any]] = field(default_factory=dict)
    timestamp: str | None = None
    unreadable: str | None = None
    files: list[tuple[Path, int]] = field(default_factory=list)  # the student's other files, copied as listed
    ignored: list[str] = field(default_factory=list)  # what in the folder was left out or not used, and why


def prepare(settings: Settings, sources: list[SourceNotebook], modules: dict[str, str], assignment: str,
            student: str, preload: list[str] = ()) -> Prepared:
    folder = settings.path("submitted", student, assignment)
    stamp = read_timestamp(folder)
    listing = list_files(folder, list(settings.coursedir.ignore) + ["*.ipynb"])
    if stamp.found and not stamp.problem:  # an unusable one is not copied: the autograded folder has none
        listing.files.append((Path(TIMESTAMP_FILE), MAX_TIMESTAMP_BYTES))
    prepared = Prepared(student, None, timestamp=stamp.time.isoformat() if stamp.time else None,
                        files=listing.files, ignored=[stamp.problem] * bool(stamp.problem) + listing.left_out)
    jobs = []
    for source in sources:
        path = folder / f"{source.name}.ipynb"
        try:
            os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):  # what Path.exists() calls missing
            cells = [CellJob("test", "", gid, points) for gid, points in source.grade_cells.items()]
            jobs.append(NotebookJob(source.name, cells, missing=True))
            continue
        try:
            submitted = read_fast(read_bytes(path, MAX_NOTEBOOK_BYTES), path.name)
            assembled = sanitise(submitted, source, settings.add_missing, copy=False)
            prepared.notebooks[source.name] = assembled
            jobs.append(notebook_job(source.name, assembled, source))
        except AssemblyError:
            raise
        except Exception as exc:  # a broken file or odd metadata: this student's problem
            prepared.notebooks = {}
            prepared.unreadable = str(exc)[:300]
            return prepared
    prepared.job = Job(student, assignment, jobs, modules, settings.limits, settings.ignore_pattern, list(preload))
    return prepared


def unreadable_outcome(prepared: Prepared, assignment: str, sources: list[SourceNotebook]) -> Outcome:
    from autograder.results import CellResult

    result = SubmissionResult(prepared.student, assignment, status="unreadable", message=prepared.unreadable)
    for source in sources:
        result.cells += [CellResult(gid, points, 0.0, "the notebook could not be read")
                         for gid, points in source.grade_cells.items()]
    return Outcome(result)


# Workers -------------------------------------------------------------------------------------------------

_HIDE: list[str] = []


def _init_worker(hide: list[str], parent: int, assignment: str | None, launched: list[Launched],
                 tickets: int | None) -> None:
    """Take over a zygote the main process started (by a ticket from the `tickets` pipe: one each) or
    start one, and load the assignment's graders meanwhile; if either fails, the first job tries again
    and reports why."""
    from autograder.engine import default_zygote

    if sys.platform == "linux":
        # A worker outlives a main process that ended abruptly (killed, or an error before the pool was
        # shut down) and would hold its output pipes open: it goes with it instead.
        import signal

        from autograder.sandbox.isolation import PR_SET_PDEATHSIG, prctl

        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(0)
    _HIDE[:] = hide
    mine = None
    if tickets is not None:
        ticket = os.read(tickets, 1)  # a byte read from a pipe is no other worker's
        os.close(tickets)
        for index, zygote in enumerate(launched):
            if ticket and index == ticket[0]:
                mine = zygote
            else:
                zygote.close()  # another worker's: it must end with its owner, not live on through this one
    if assignment:
        from autograder.callplan import prepare

        try:
            prepare(assignment)
        except Exception:  # noqa: S110 - no such graders: the instructor hears of it from check_graders
            pass
    try:
        default_zygote(_HIDE, mine)
    except Exception:
        pass
    # What is loaded now (NumPy, the graders, their plans) lives as long as the worker: the collector's
    # full passes need not walk it again and again.
    gc.freeze()


def _ready() -> None:
    """A first job, so that the pool forks its workers now."""


def start_pool(jobs: int, hide: list[str] | tuple[str, ...] = (), assignment: str | None = None,
               launched: list[Launched] | tuple[Launched, ...] = ()) -> ProcessPoolExecutor:
    """The worker processes, started before the gradebook is opened; the assignment's graders load in
    each meanwhile. `launched`: zygotes already started, one for each of the first workers (any other
    worker starts its own)."""
    context = get_context("fork") if sys.platform == "linux" else get_context("spawn")
    # Only forked workers inherit them; spawned ones start their own, and these end unused.
    handed = list(launched) if context.get_start_method() == "fork" else []
    tickets = None
    if handed:
        tickets, feed = os.pipe()
        os.write(feed, bytes(range(min(len(handed), 256))))
        os.close(feed)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker,
                               initargs=(list(hide), os.getpid(), assignment, handed, tickets))
    pool.submit(_ready)  # forks every worker now (the fork context starts them all at once)
    if tickets is not None:
        os.close(tickets)
    for zygote in launched:
        zygote.close()  # the workers hold theirs; this process only reaps them (`launch.reap`)
    return pool


def _work(job: Job) -> Outcome:
    from autograder.engine import default_zygote

    return grade_submission(job, default_zygote(_HIDE))


@dataclass
class Summary:
    graded: int = 0
    unreadable: int = 0
    skipped: int = 0
    refused: int = 0  # folders that are not a student's own (a link, not a plain id): never read
    errors: int = 0  # not graded because of a fault in the grader itself (left as they were)
    limits: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    sandbox_level: str = ""
    protections_off: list[str] = field(default_factory=list)


def students_to_grade(settings: Settings, assignment: str, students: list[str] | None) -> list[str]:
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


def already_graded(settings: Settings, sources: list[SourceNotebook], assignment: str, student: str) -> bool:
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

    settings: Settings
    assignment: str
    sources: list[SourceNotebook]
    jobs: int
    hide: list[str]
    pool: ProcessPoolExecutor
    checked: Future  # check_graders, running in a worker: its error stops grading before anything is written
    modules: dict[str, str] = field(default_factory=dict)
    preload: list[str] = field(default_factory=list)
    queue: list[str] = field(default_factory=list)  # students still to prepare, the next one last
    total: int = 0
    summary: Summary = field(default_factory=Summary)
    started: float = field(default_factory=time.monotonic)
    pending: dict[Future, tuple[Prepared, int]] = field(default_factory=dict)
    unreadable: list[Prepared] = field(default_factory=list)  # found before the writer existed

    def fill(self, per_worker: int = 2) -> None:
        """Keep `per_worker` jobs per worker running (finished ones waiting to be recorded do not count, up
        to `IN_HAND_PER_WORKER` in all)."""
        unfinished = sum(not future.done() for future in self.pending)
        while (self.queue and unfinished < per_worker * self.jobs
               and len(self.pending) < IN_HAND_PER_WORKER * self.jobs):
            prepared = prepare(self.settings, self.sources, self.modules, self.assignment, self.queue.pop(),
                               self.preload)
            if prepared.job is None:
                self.unreadable.append(prepared)
                continue
            self.pending[self.pool.submit(_work, prepared.job)] = (prepared, 0)
            unfinished += 1


def start_class(settings: Settings, assignment: str, sources: list[SourceNotebook], students: list[str],
                force: bool, jobs: int, hide: list[str] | tuple[str, ...], pool: ProcessPoolExecutor) -> ClassRun:
    """Decide who is graded and put the first jobs in the workers' hands. Nothing here needs the gradebook
    writer: the grade command calls this before loading it, and the first submissions run meanwhile."""
    run = ClassRun(settings, assignment, sources, jobs, list(hide), pool, pool.submit(check_graders, sources))
    run.modules, run.preload = instructor_files(settings, sources, assignment)
    todo = []
    submitted = settings.path("submitted", ".", ".")
    for student in students:
        refused = folder_problem(submitted, student, assignment)
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
    run.fill(IN_HAND_PER_WORKER)
    return run


def grade_class(run: ClassRun, writer: "GradebookWriter", progress: Any = None, keep_pool: bool = False) -> Summary:
    """Grade the rest of `run` and record every outcome; the run's pool is shut down at the end, unless
    `keep_pool` (the watcher grades with one pool for its lifetime: `run.pool`, a new one if a worker died)."""
    settings, assignment, sources, summary = run.settings, run.assignment, run.sources, run.summary
    gc.freeze()  # nbgrader and the rest loaded so far stay: the collector need not walk them
    run.checked.result()  # an error in the graders' points stops grading before anything is written
    task = progress.add_task(f"grading {assignment}", total=run.total) if progress else None
    pending = run.pending
    batch = Batch(writer)

    def finish(prepared: Prepared, outcome: Outcome) -> None:
        _apply(settings, writer, assignment, sources, prepared, outcome, summary, batch)
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
                except ClassError as exc:  # issue 16: a cluster's scheduler went away (autograder.cluster)
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
                run.pool = start_pool(run.jobs, run.hide, assignment)
                for prepared, tries in broken:
                    if tries >= 1:
                        result = SubmissionResult(prepared.student, assignment, message="grading crashed twice")
                        result.limits_hit = ["crash"]
                        finish(prepared, Outcome(result))
                    else:
                        pending[run.pool.submit(_work, prepared.job)] = (prepared, tries + 1)
        batch.commit()
    finally:
        batch.discard()  # only after an error: what was not committed is graded again next run
        if not keep_pool:
            run.pool.shutdown(wait=True, cancel_futures=True)
    summary.seconds = time.monotonic() - run.started
    return summary


class Batch:
    """Submissions staged in the writer's open transaction, with their autograded folders built but not
    yet in place. `commit` writes the transaction, then swaps the folders in: a folder never shows a
    grade the gradebook does not hold. `discard` rolls both back."""

    def __init__(self, writer: "GradebookWriter") -> None:
        self.writer = writer
        self.folders: list[tuple[Path, Path]] = []  # (staged, destination)
        self.students: set[str] = set()
        self.started = 0.0

    def add(self, student: str, staged: Path, dest: Path) -> None:
        if not self.folders:
            self.started = time.monotonic()
        self.folders.append((staged, dest))
        self.students.add(student)

    def due(self) -> bool:
        return bool(self.folders) and (len(self.folders) >= BATCH_SIZE
                                       or time.monotonic() - self.started >= BATCH_SECONDS)

    def wait_seconds(self) -> float | None:
        return max(self.started + BATCH_SECONDS - time.monotonic(), 0.0) if self.folders else None

    def commit(self) -> None:
        from autograder.gradebook import swap_in

        try:
            self.writer.commit()
        except BaseException:
            self.discard()
            raise
        folders, self.folders = self.folders, []
        self.students.clear()
        for staged, dest in folders:
            swap_in(staged, dest)

    def discard(self) -> None:
        if self.folders:
            self.writer.rollback()
        for staged, _ in self.folders:
            shutil.rmtree(staged, ignore_errors=True)
        self.folders = []
        self.students.clear()


def _apply(settings: Settings, writer: "GradebookWriter", assignment: str, sources: list[SourceNotebook],
           prepared: Prepared, outcome: Outcome, summary: Summary, batch: Batch) -> None:
    from autograder.gradebook import stage_autograded, with_outputs

    result = outcome.result
    result.ignored = list(prepared.ignored)
    executed = {name: with_outputs(nb, outcome.outputs.get(name, [])) for name, nb in prepared.notebooks.items()}
    if prepared.student in batch.students:  # one student's rows (queried by id) are never staged twice
        batch.commit()
    try:
        writer.add(outcome, prepared.timestamp, {name: nb["cells"] for name, nb in executed.items()})
        dest = settings.path("autograded", prepared.student, assignment)
        staged = stage_autograded(dest, settings.path("submitted", prepared.student, assignment),
                                  settings.path("source", ".", assignment), list(settings.coursedir.ignore),
                                  settings.exclude_overwriting.get(assignment, []), prepared.files, executed,
                                  outcome)
    except BaseException:
        batch.discard()  # the writer rolled back the whole open transaction: the batch's folders go too
        raise
    batch.add(prepared.student, staged, dest)
    if result.status == "unreadable":
        summary.unreadable += 1
        summary.problems.append(f"{result.student}: unreadable notebook: {result.message}")
    else:
        summary.graded += 1
        if result.limits_hit:
            summary.problems.append(f"{result.student}: limits hit ({', '.join(result.limits_hit)}): "
                                    f"{result.message[:200]}")
    if result.ignored:
        summary.problems.append(f"{result.student}: left out of the submission: {'; '.join(result.ignored)[:300]}")
    summary.limits.update(result.limits_hit)
    if outcome.sandbox_level:
        summary.sandbox_level = outcome.sandbox_level
        summary.protections_off = outcome.protections_off


def check_graders(sources: list[SourceNotebook]) -> None:
    """Each hidden `grade(...)` call must name graders worth the cell's points, or every score would be
    off; checked once, before any student, so the mistake is the instructor's one-line error."""
    from autograder.assemble import grade_call
    from autograder.notebook import HIDDEN_BEGIN, hidden_part
    from autograder.runner import max_score

    for source in sources:
        for cell in source.cells:
            if cell.name not in source.grade_cells or HIDDEN_BEGIN not in cell.source:
                continue
            try:
                grader_assignment, exercise = grade_call(hidden_part(cell.source), cell.name)
                total = max_score(grader_assignment, exercise)
            except (AssemblyError, ImportError) as exc:
                raise ClassError(f"{source.name}.ipynb {cell.name}: {exc}") from None
            if abs(total - source.grade_cells[cell.name]) > 1e-9:
                raise ClassError(f"{source.name}.ipynb {cell.name} is worth {source.grade_cells[cell.name]:g} points "
                                 f"but its graders add up to {total:g}")


def ensure_assignment(settings: Settings, writer: "GradebookWriter", assignment: str) -> None:
    """The assignment must be in the gradebook; if only its source exists, add it as nbgrader would
    (`generate_assignment`, into a scratch release folder so the course's release/ is left alone)."""
    if writer.has_assignment(assignment):
        return
    source = settings.path("source", ".", assignment)
    if not any(source.glob("*.ipynb")):
        raise ClassError(f"no such assignment: {assignment!r} is neither in the gradebook nor in {source}")
    from autograder.course import CourseError, nbgrader

    with tempfile.TemporaryDirectory(prefix="autograder-release-") as scratch:
        try:
            nbgrader(settings.root, "generate_assignment", assignment, "--force",
                     f"--CourseDirectory.release_directory={scratch}")
        except CourseError as exc:
            raise ClassError(str(exc).splitlines()[0]) from None
    if not writer.has_assignment(assignment):
        raise ClassError(f"nbgrader generate_assignment did not add {assignment!r} to the gradebook")
