"""How many submissions the watcher grades at once, so that one that waits does not hold the slot another
student needs.

`--jobs` runs count against the cores. A run still in hand after ASIDE_SECONDS while the watcher's processes
leave a core idle (a notebook that sleeps or waits in its cells: sandboxed, it uses no CPU) no longer holds its
slot: the next student's run starts beside it on a spare worker, one of `--aside` (ASIDE_WORKERS by default,
started at first need). Runs that do use the cores are never stacked beyond `--jobs`, so a CPU-bound notebook
does not run slower (and hit its cells' wall-time limits) because others were added beside it.
"""

import os
import time
from pathlib import Path

# A run in hand this long is looked at as perhaps waiting (a grading run of a small notebook takes about 1 s).
ASIDE_SECONDS = 3.0
# Spare workers for runs started beside ones that wait: each is a worker with its warm zygote (about 60 MB).
ASIDE_WORKERS = 2
# The watcher's processes using this much less than `--jobs` cores leave room for one more run.
IDLE_CORES = 0.5
# The CPU rate is measured over at least this long (the kernel counts CPU time in ticks of 10 ms).
SAMPLE_SECONDS = 0.5


def tree_cpu_seconds(root: int, proc: Path = Path("/proc")) -> float | None:
    """CPU time (user and system) of process `root` and all its descendants, those they reaped included; None
    where /proc cannot tell (not Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, int] = {}
    try:
        entries = os.listdir(proc)
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            text = (proc / entry / "stat").read_text()
        except OSError:  # ended meanwhile
            continue
        # The command's name (field 2) is in parentheses and may hold anything: fields are counted after it.
        fields = text[text.rfind(")") + 2:].split()
        pid = int(entry)
        parents[pid] = int(fields[1])
        times[pid] = sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
    if root not in times:
        return None
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += times.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total / tick


class CpuMeter:
    """How many cores the watcher's processes (its workers, their zygotes and sandboxed runs) used lately."""

    def __init__(self, root: int | None = None) -> None:
        self.root = root or os.getpid()
        self.last: tuple[float, float] | None = None
        self.rate: float | None = None

    def cores(self) -> float | None:
        """Cores used since the previous sample (SAMPLE_SECONDS ago at least); None until that is known."""
        now = time.monotonic()
        if self.last is not None and now - self.last[0] < SAMPLE_SECONDS:
            return self.rate  # /proc is read at most once a sample
        used = tree_cpu_seconds(self.root)
        if used is None:
            return None
        if self.last is None or now - self.last[0] > 4 * SAMPLE_SECONDS:  # a rate of long ago says nothing of now
            self.last, self.rate = (now, used), None
        else:
            # A process that left the tree (reaped by no one in it) takes its time along: never below 0.
            self.rate = max(used - self.last[1], 0.0) / (now - self.last[0])
            self.last = (now, used)
        return self.rate


def room_beside(jobs: int, ages: list[float], meter: CpuMeter) -> bool:
    """Whether one more run may start beside the `ages` (seconds in hand) of the runs in hand, the main workers'
    all busy: fewer young ones than `jobs` (a young run is counted as using its core, measured or not yet), and
    the watcher's processes using at most `jobs - IDLE_CORES` cores (the older runs wait)."""
    if sum(age < ASIDE_SECONDS for age in ages) >= jobs:
        return False
    cores = meter.cores()
    return cores is not None and cores <= jobs - IDLE_CORES
