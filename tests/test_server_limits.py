"""Issue 40: each user's server bounded. A server's process starts as the spawner starts it
(`server_limits.limiting`: into its cgroup, its priority lowered, then JupyterHub's change to the user), here as
a student's own OS user in a forked child; what a hostile kernel then does (a fork bomb, a memory hog) stays
inside its limits, and the machine (this test's own process, standing for the hub and the watcher) goes on."""

import os
import pwd
import resource
import signal
import time

import pytest

from autograder.hub.server_limits import ServerCgroups, ServerLimits, limiting
from tests.os_users import account_command

LIMITS = ServerLimits(memory_mb=160, processes=24, nice=5)


def as_student(uid: int, group, body) -> tuple[int, bytes]:
    """Run `body` in a child started as a user's server is started, as `uid`; its wait status and what it wrote
    to its pipe."""
    read, write = os.pipe()

    def drop() -> None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)

    start = limiting(LIMITS, group, drop)
    pid = os.fork()
    if pid == 0:  # the server's process
        os.close(read)
        try:
            start()
            body(write)
        finally:
            os._exit(0)
    os.close(write)
    if group is not None:
        ServerCgroups().started(group)  # the hub's copies of the files the child joins by
    chunks = []
    while chunk := os.read(read, 4096):
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    return status, b"".join(chunks)


def fork_bomb(out: int) -> None:
    """Fork until refused; each child sleeps (so they all count at once); report how many were made."""
    made = 0
    for _ in range(400):
        try:
            child = os.fork()
        except OSError:
            break
        if child == 0:
            time.sleep(3)
            os._exit(0)
        made += 1
    os.write(out, f"{made} {os.nice(0)} {resource.getrlimit(resource.RLIMIT_NPROC)[0]}".encode())


def memory_hog(out: int) -> None:
    """Touch 600 MB, a page at a time; report how far it got (it should not get far)."""
    blocks = []
    for i in range(60):
        blocks.append(bytearray(10 * 2**20))
        os.write(out, f"{(i + 1) * 10} ".encode())


@pytest.fixture(scope="module")
def cgroups():
    if os.geteuid() != 0:
        pytest.fail("these tests make cgroups and OS users: run as root, as make test does")
    return ServerCgroups()


@pytest.fixture(scope="module")
def student():
    """A student's OS account of its own (its processes count against no one else's limit)."""
    name = f"limits{os.getpid()}"
    made = account_command("useradd", "--no-create-home", "--user-group", name)
    assert made.returncode == 0, made.stderr
    try:
        yield pwd.getpwnam(name).pw_uid
    finally:
        account_command("userdel", name)


def test_a_fork_bomb_in_one_server_stops_at_its_limit(cgroups, student):
    group = cgroups.group(LIMITS)
    status, said = as_student(student, group, fork_bomb)
    made, nice, nproc = map(int, said.split())
    assert made < LIMITS.processes, said  # the cgroup's pids.max (and RLIMIT_NPROC) stopped it
    assert nice >= LIMITS.nice and nproc == LIMITS.processes
    cgroups.stopped(group)
    # The machine goes on: this process can still start others.
    assert os.system("true") == 0


def test_a_memory_hog_in_one_server_is_stopped_there(cgroups, student):
    group = cgroups.group(LIMITS)
    if group is None:
        pytest.fail("no cgroup for a server here: the memory limit needs one (the sandbox's cgroups)")
    status, said = as_student(student, group, memory_hog)
    reached = int(said.split()[-1]) if said.split() else 0
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (status, said)
    assert reached <= LIMITS.memory_mb, said  # killed by the kernel at the cgroup's limit, not at 600 MB
    cgroups.stopped(group)
    assert bytearray(50 * 2**20)  # the rest of the machine still has its memory


def test_a_cgroup_used_again_takes_a_higher_limit(cgroups):
    """cgroup v1 keeps memory+swap at or above memory: a cgroup made with the sandbox's 1 GB and used again for a
    2 GB server must take the higher limit (the hub's default), not refuse it."""
    for memory_mb in (4096, 200, 4096):
        group = cgroups.group(ServerLimits(memory_mb=memory_mb, processes=64))
        assert group is not None, memory_mb
        cgroups.started(group)
        cgroups.stopped(group)
