"""`make bench-costs`: each variant leaves out only its stages, and its CPU count sees the descendants."""

import subprocess
import sys

from autograder.devtools.bench_costs import VARIANTS, TreeUsage, stages_for
from autograder.grading.model import CellJob, Job
from autograder.grading.self_check.stage import TrustedSelfCheck


def test_each_variant_leaves_out_its_stages_and_only_those() -> None:
    for variant in VARIANTS:
        stages = stages_for(variant)
        assert (stages.self_check, stages.judge_alone) == {
            "as graded": (True, True), "no trusted self-check": (False, True),
            "no judging alone": (True, False), "neither": (False, False)}[variant]
        assert stages.plan


def test_a_self_check_switched_off_plans_and_runs_nothing() -> None:
    job = Job("s", "a", [], {"selfcheck": "def check(f):\n    pass\n"})
    cell = CellJob("test", "selfcheck.check(f)", "c1", 1.0, "a", "e")
    off = TrustedSelfCheck(job, on=False)
    assert off.check_calls(cell) is None and off.fresh().check_calls(cell) is None
    assert off.verdict(cell, None, 0.0) is None  # no process is needed to know it


def test_tree_usage_counts_a_descendant_still_running() -> None:
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\nprint(1, flush=True)\n" \
           "import sys; sys.stdin.read()"
    before = TreeUsage.now()
    child = subprocess.Popen([sys.executable, "-c", burn], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline().strip() == b"1"
        after = TreeUsage.now()
    finally:
        child.communicate(b"")
    assert after.user + after.kernel - before.user - before.kernel >= 0.25
    assert after.faults > before.faults
