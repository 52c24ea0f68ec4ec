"""What one submission may use, as plain data, and how a sandboxed process applies it to itself."""

import resource
from dataclasses import asdict, dataclass
from typing import Any

# What ends printed text cut at `Limits.output_chars`: said by the sandboxed process where it cuts, and by the
# trusted side where it counts again (it trusts no count of the process's own).
OUTPUT_DROPPED = "\n[output limit reached: the rest of the printed text was dropped]\n"


# Wall time for one cell, hidden grading of a test cell included: nbgrader's own `Execute.timeout` (30 s is also
# nbclient's default), which every course gets from the framework's defaults (`course.defaults`), so that
# `autograder grade` and `nbgrader autograde` give a cell the same time.
CELL_SECONDS = 30


@dataclass(frozen=True)
class Limits:
    cell_seconds: float = float(CELL_SECONDS)  # a float, as a course's own timeout is read (`course.settings`)
    total_seconds: float = 300.0  # wall time for the whole submission
    cpu_seconds: int = 120  # CPU time of the submission's process (RLIMIT_CPU)
    memory_mb: int = 1024  # memory of the submission and all it starts (cgroup), and each one's address space
    processes: int = 16  # processes and threads of the submission (cgroup; else of the sandbox user, RLIMIT_NPROC)
    output_chars: int = 200_000  # printed text kept per submission; the rest is dropped, said so
    file_mb: int = 32  # largest file it may write (RLIMIT_FSIZE), and the size of its scratch folder
    open_files: int = 64  # file descriptors (RLIMIT_NOFILE)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def reply_bytes(self) -> int:
        """The largest reply the trusted side accepts from the submission's process: a cell's printed text
        (up to 12 bytes a character once escaped as JSON), its error and value, or a call's small arrays."""
        return 16 * 1024 * 1024 + 12 * self.output_chars

    def received_bytes(self) -> int:
        """All the bytes the trusted side accepts from one submission's process."""
        return 4 * self.reply_bytes()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Limits":
        return cls(**data)


def apply_rlimits(limits: Limits, *, processes: bool) -> None:
    """Set soft and hard limits in the calling process; nothing it runs can raise a hard limit again."""

    def set_limit(kind: int, value: int, hard: int | None = None) -> None:
        resource.setrlimit(kind, (value, value if hard is None else hard))

    set_limit(resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1)  # SIGXCPU, then SIGKILL
    set_limit(resource.RLIMIT_AS, limits.memory_mb * 1024 * 1024)
    set_limit(resource.RLIMIT_FSIZE, limits.file_mb * 1024 * 1024)
    set_limit(resource.RLIMIT_NOFILE, limits.open_files)
    set_limit(resource.RLIMIT_CORE, 0)
    if processes:  # only meaningful for an unprivileged uid: root ignores RLIMIT_NPROC
        set_limit(resource.RLIMIT_NPROC, limits.processes)
