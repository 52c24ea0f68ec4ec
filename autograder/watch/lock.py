"""One watcher per course: an exclusive lock held for the watcher's lifetime."""

import fcntl
import os
from pathlib import Path


class Locked(Exception):
    """Another watcher holds the course's lock; the message is one line."""


class CourseLock:
    """An advisory lock on a file: released when the process ends, however it ends (the kernel drops it),
    so a watcher that was killed never leaves a stale lock behind."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip() or "another process"
            os.close(fd)
            raise Locked(f"another watcher (pid {holder}) is already watching this course") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def held(path: Path) -> bool:
    """Whether a watcher holds the lock at `path` now: if it can be taken here, none does."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
