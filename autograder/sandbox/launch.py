"""Starting a zygote process (`autograder.sandbox.zygote`), apart from talking to it (`zygote_handle.Zygote`).

This module loads nothing heavy (no NumPy), so the grade command starts its zygotes first thing: they boot
(a fresh interpreter importing NumPy, a tenth of a second each) on the core that the command's own start-up
leaves idle, and each worker process takes one over once it is forked. A zygote is always a fresh
interpreter started from a command line: nothing of the process that starts it is in its memory.
"""

import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass


@dataclass
class Launched:
    """A started zygote that has not said hello yet. Whichever process greets it owns it; every other
    process holding a copy (the one that started it, the other workers) closes its copy, so that the
    zygote ends when its owner does."""

    process: subprocess.Popen
    control: socket.socket
    level: str
    hide: list[str]
    pidfd: int | None  # tells whether it still runs from any process, not only from its parent

    def close(self) -> None:
        """Let go of this process's copy (the zygote itself is not touched)."""
        self.control.close()
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


def reap(process: subprocess.Popen, seconds: float = 10.0) -> None:
    """Wait for a zygote process to end (at once when this process did not start it: its starter reaps it)."""
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()  # our own child, by its pid: never a group
        process.wait()


# The levels a zygote can be asked for. AUTO: "full" as root, else "userns", and refuse where the host refuses
# namespaces (fail closed: student code must never see the graders); AUTO_OR_BARE: the same, but fall back to
# "bare" there, for a course that accepts it in so many words (`c.Autograder.accept_bare_sandbox`).
AUTO, AUTO_OR_BARE = "auto", "auto-or-bare"
REQUESTS = (AUTO, AUTO_OR_BARE, "full", "userns", "bare")


def requested_level(level: str = AUTO) -> str:
    """`level`, unless AUTOGRADER_SANDBOX names another (the tests force "bare" with it)."""
    return os.environ.get("AUTOGRADER_SANDBOX") or level


def launch(level: str, hide: list[str]) -> Launched:
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    config = json.dumps({"fd": child.fileno(), "level": level, "hide": hide})
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "OPENBLAS_NUM_THREADS": "1"}
    # -I: no current directory, user site or PYTHON* variables on the zygote's path.
    process = subprocess.Popen([sys.executable, "-I", "-m", "autograder.sandbox.zygote", config],
                               pass_fds=[child.fileno()], env=env, cwd="/",
                               stdin=subprocess.DEVNULL, start_new_session=True)
    child.close()
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        pidfd = None
    return Launched(process, parent, level, list(hide), pidfd)
