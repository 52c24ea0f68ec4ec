"""A scratch course with a real nbgrader exchange and `autograder watch` running on it, for the watcher's
tests: the course and its released exchange are made once (nbgrader's commands are slow) and copied."""

import atexit
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from autograder.course.nbgrader_cli import nbgrader
from autograder.devtools.catalogue import Answer, write_submission
from tests.grading_course import ASSIGNMENT, CLI, make_course

COURSE_ID = "rnn-hidden-state"
EXCHANGE_LINE = "c.Exchange.root = "
OWNERLESS = "c.CollectApp.check_owner = False"  # the tests' submissions are root's, whoever they name
# Every call sleeps (no CPU): its exercises take the cell limit each.
SLOW = Answer("concat_weights", "slow", "import time\n\ndef concat_weights(w_hh, w_hx):\n    time.sleep(3)\n"
                                        "    return np.concatenate((w_hh, w_hx), axis=1)")


@dataclass
class Watched:
    course: Path
    exchange: Path  # the exchange's root (c.Exchange.root)

    @property
    def inbound(self) -> Path:
        return self.exchange / COURSE_ID / "inbound"

    @property
    def feedback(self) -> Path:
        return self.exchange / COURSE_ID / "feedback"

    @property
    def ledger(self) -> list[dict]:
        import json

        path = self.course / ".autograder-watch" / "ledger.jsonl"
        text = path.read_text() if path.exists() else ""
        # The watcher may be midway through appending a line as we read: only whole lines are records yet.
        return [json.loads(line) for line in text[:text.rfind("\n") + 1].splitlines()]


# Memory-backed, where the machine has it: a flood of folders is removed in a second there, where removing
# 20,000 folders from a disk shared with other work took a minute.
IN_MEMORY = Path("/dev/shm") if os.access("/dev/shm", os.W_OK | os.X_OK) else None


def new_exchange(where: Path | None = None) -> Path:
    """An exchange root as nbgrader wants it (every user may write it; sticky, as /tmp), outside pytest's
    own folders (which only their owner can enter), in `where` (the system's temporary folder by default);
    removed when the tests end."""
    root = Path(tempfile.mkdtemp(prefix="autograder-exchange-", dir=where))
    os.chmod(root, 0o1777)
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def make_template(folder: Path) -> Watched:
    exchange = new_exchange()
    course = make_course(folder / "course", f'{EXCHANGE_LINE}"{exchange}"')
    nbgrader(course, "release_assignment", ASSIGNMENT)
    return Watched(course, exchange)


def copy_watched(template: Watched, folder: Path, extra_config: str = "", exchange_in: Path | None = None) -> Watched:
    """The template's course and exchange, copied (modes too: nbgrader's inbound is 0733 with setgid); the
    exchange in `exchange_in` (see `new_exchange`)."""
    course = folder / "course"
    shutil.copytree(template.course, course, symlinks=True)
    exchange = new_exchange(exchange_in)
    shutil.copytree(template.exchange / COURSE_ID, exchange / COURSE_ID, symlinks=True)
    config = course / "nbgrader_config.py"
    text = re.sub(rf"^{re.escape(EXCHANGE_LINE)}.*$", f'{EXCHANGE_LINE}"{exchange}"', config.read_text(), flags=re.M)
    config.write_text(text + "\n" + extra_config + "\n")
    return Watched(course, exchange)


@dataclass
class Handed:
    name: str
    secret: str
    folder: Path


def hand_in(watched: Watched, student: str, answers=(), *, stamp: datetime | None = None,
            name: str | None = None, owner: str | None = None) -> Handed:
    """What `nbgrader submit` leaves in inbound/ (a folder named student+assignment+time+random with the
    notebook, timestamp.txt and submission_secret.txt), made directly: the command takes seconds. `owner`: the
    OS user it belongs to (root's otherwise), as a real student's submit leaves it."""
    stamp = stamp or datetime.now(UTC)
    text = stamp.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    name = name or f"{student}+{ASSIGNMENT}+{text}+{secrets.token_urlsafe(9)}"
    build = Path(tempfile.mkdtemp(dir=watched.inbound.parent))
    write_submission(ASSIGNMENT, build, list(answers), release=watched.course / "release" / ASSIGNMENT)
    secret = secrets.token_hex(64)
    (build / "timestamp.txt").write_text(text)
    (build / "submission_secret.txt").write_text(secret)
    os.chmod(build, 0o777)
    if owner is not None:  # the folder last: its change time is the submission's, no file's may be later
        for path in [*build.rglob("*"), build]:
            shutil.chown(path, owner, owner)
    os.rename(build, watched.inbound / name)  # whole, as a student's copy would be complete when listed
    return Handed(name, secret, watched.inbound / name)


def feedback_of(watched: Watched, handed: Handed) -> Path:
    from nbgrader.utils import notebook_hash

    return watched.feedback / f"{notebook_hash(secret=handed.secret, notebook_id=ASSIGNMENT)}.html"


def wait_for(check, timeout: float = 60, what: str = "condition", log=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}" + (f"; watcher log:\n{log()}" if log else ""))


class Watcher:
    def __init__(self, process: subprocess.Popen, log_path: Path) -> None:
        self.process, self.log_path = process, log_path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_line(self, pattern: str, timeout: float = 60, count: int = 1) -> str:
        def seen():
            text = self.log()
            if len(re.findall(pattern, text)) >= count:
                return text
            assert self.process.poll() is None, f"the watcher ended (status {self.process.returncode}):\n{text}"
            return None
        return wait_for(seen, timeout, f"{count} line(s) matching {pattern!r}", self.log)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise


def start_watcher(course: Path, *args: str, env: dict[str, str] | None = None) -> Watcher:
    log_path = Path(tempfile.mkstemp(prefix="watch-", suffix=".log", dir=course.parent)[1])
    environment = {**os.environ, "PATH": f"{Path(CLI).parent}{os.pathsep}{os.environ['PATH']}", **(env or {})}
    with open(log_path, "w") as out:
        process = subprocess.Popen([CLI, "watch", ASSIGNMENT, "--jobs", "2", *args], cwd=course, env=environment,
                                   stdout=out, stderr=subprocess.STDOUT)
    return Watcher(process, log_path)


@contextmanager
def watching(course: Path, *args: str, env: dict[str, str] | None = None):
    """`autograder watch` running in `course`, stopped by SIGTERM whatever happens (and killed if it hangs)."""
    watcher = start_watcher(course, *args, env=env)
    try:
        watcher.wait_line("watching ", timeout=90)
        yield watcher
    finally:
        code = watcher.stop()
        watcher.code = code
