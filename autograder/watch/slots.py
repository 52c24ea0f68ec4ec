"""How many submissions the watcher grades at once, so that one that waits does not hold the slot another
student needs.

`--jobs` runs count against the cores. A run still in hand after ASIDE_SECONDS while the watcher's processes
want less than `--jobs` cores (a notebook that sleeps or waits in its cells: sandboxed, it wants no CPU) no
longer holds its slot: the next student's run starts beside it on a spare worker, one of `--aside`
(ASIDE_WORKERS by default, started at first need). Runs that do want the cores are never stacked beyond `--jobs`,
so a CPU-bound notebook does not run slower (and hit its cells' wall-time limits) because others were added
beside it. What a process wants is the kernel's count of its time on a CPU plus its time waiting in the run
queue (/proc/<pid>/task/<tid>/schedstat): a computing run wants a whole core even where other programs on the
host leave it only part of one, which the CPU time alone would not tell.
"""

import os
import time
from pathlib import Path

# A run in hand this long is looked at as perhaps waiting (a grading run of a small notebook takes about 1 s).
ASIDE_SECONDS = 3.0
# Spare workers for runs started beside ones that wait: each is a worker with its warm zygote (about 42 MB).
ASIDE_WORKERS = 2
# The watcher's processes wanting this much less than `--jobs` cores leave room for one more run.
IDLE_CORES = 0.5
# The demand is measured over at least this long.
SAMPLE_SECONDS = 0.5
PROC = Path("/proc")


def _stat_fields(pid: str) -> list[str] | None:
    """/proc/<pid>/stat's fields after the command's name (which is in parentheses and may hold anything)."""
    try:
        text = (PROC / pid / "stat").read_text()
    except OSError:  # ended meanwhile
        return None
    return text[text.rfind(")") + 2:].split()


def descendants(root: int) -> list[int] | None:
    """Process `root` and all its descendants; None where /proc cannot tell (not Linux, or `root` is gone)."""
    children: dict[int, list[int]] = {}
    try:
        entries = [entry for entry in os.listdir(PROC) if entry.isdigit()]
    except OSError:
        return None
    for entry in entries:
        fields = _stat_fields(entry)
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(int(entry))
    if not (PROC / str(root)).is_dir():
        return None
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


def tree_cpu_seconds(root: int) -> float | None:
    """CPU time (user and system) of process `root` and all its descendants, those they reaped included."""
    pids = descendants(root)
    if pids is None:
        return None
    ticks = 0
    for pid in pids:
        fields = _stat_fields(str(pid))
        if fields is not None:
            ticks += sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def tree_demand(root: int) -> dict[int, int] | None:
    """Nanoseconds each thread of `root` and its descendants spent on a CPU or waiting in the run queue for one,
    by thread id; None where the kernel does not keep these counts."""
    pids = descendants(root)
    if pids is None:
        return None
    demand: dict[int, int] = {}
    for pid in pids:
        try:
            threads = os.listdir(PROC / str(pid) / "task")
        except OSError:
            continue
        for tid in threads:
            try:
                running, waiting, _ = (PROC / str(pid) / "task" / tid / "schedstat").read_text().split()
            except FileNotFoundError:
                if not (PROC / "self" / "schedstat").exists():
                    return None  # a kernel without scheduler statistics
                continue
            except (OSError, ValueError):
                continue
            demand[int(tid)] = int(running) + int(waiting)
    return demand


class CpuMeter:
    """How many cores the watcher's processes (its workers, their zygotes and sandboxed runs) wanted lately."""

    def __init__(self, root: int | None = None) -> None:
        self.root = root or os.getpid()
        self.last: tuple[float, dict[int, int]] | None = None
        self.rate: float | None = None

    def cores(self) -> float | None:
        """Cores wanted since the previous sample (SAMPLE_SECONDS ago at least); None until that is known."""
        now = time.monotonic()
        if self.last is not None and now - self.last[0] < SAMPLE_SECONDS:
            return self.rate  # /proc is read at most once a sample
        demand = tree_demand(self.root)
        if demand is None:
            return None
        if self.last is None or now - self.last[0] > 4 * SAMPLE_SECONDS:  # a rate of long ago says nothing of now
            self.last, self.rate = (now, demand), None
            return None
        before = self.last[1]
        # A thread born since counts whole (its life is within the sample, or nearly); one that ended, not at all.
        wanted = sum(max(ns - before.get(tid, 0), 0) for tid, ns in demand.items())
        self.rate = wanted / 1e9 / (now - self.last[0])
        self.last = (now, demand)
        return self.rate


def room_beside(jobs: int, ages: list[float], meter: CpuMeter) -> bool:
    """Whether one more run may start beside the `ages` (seconds in hand) of the runs in hand, the main workers'
    all busy: fewer young ones than `jobs` (a young run is counted as wanting its core, measured or not yet), and
    the watcher's processes wanting at most `jobs - IDLE_CORES` cores (the older runs wait)."""
    if sum(age < ASIDE_SECONDS for age in ages) >= jobs:
        return False
    cores = meter.cores()
    return cores is not None and cores <= jobs - IDLE_CORES
