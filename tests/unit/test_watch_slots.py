"""Whether the watcher starts a run beside the ones in hand (`autograder.watch.slots`): beside a run that waits
(no CPU) once it is past ASIDE_SECONDS, never beside one that computes, nor beside a young one, measured on real
processes through /proc."""

import subprocess
import sys
import time

import pytest

from autograder.watch.slots import ASIDE_SECONDS, SAMPLE_SECONDS, CpuMeter, room_beside

BURN = "import time\nend = time.monotonic() + 4\nwhile time.monotonic() < end: pass"
WAIT = "import time\ntime.sleep(4)"
SETTLE = 1.0  # past the interpreter's start-up, which computes (and, on a busy host, waits for a core)


@pytest.mark.parametrize("code, room", [(WAIT, True), (BURN, False)], ids=["waits", "computes"])
def test_room_beside_a_run_only_when_it_waits(code, room):
    # The run is a grandchild, as a sandboxed notebook is below its worker: the meter counts descendants.
    run = subprocess.Popen(["sh", "-c", f"{sys.executable} -c '{code}'; true"])
    try:
        time.sleep(SETTLE)
        meter = CpuMeter(run.pid)
        assert meter.cores() is None  # one sample tells no rate
        time.sleep(SAMPLE_SECONDS + 0.3)
        assert room_beside(1, [ASIDE_SECONDS + 1], meter) is room, meter.cores()
        assert not room_beside(1, [ASIDE_SECONDS - 1], meter)  # a young run counts as using its core
        assert room_beside(2, [ASIDE_SECONDS + 1, ASIDE_SECONDS + 1], meter)  # one busy core of two: room
    finally:
        run.kill()
        run.wait()
