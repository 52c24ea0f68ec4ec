"""`make bench-costs`: its switches put back what they replace, and its CPU count sees the descendants."""

import subprocess
import sys

import autograder.grading.callplan as callplan
import autograder.grading.submission as submission
from autograder.devtools.bench_costs import VARIANTS, TreeUsage, switched_off


def test_each_variant_puts_the_stages_back() -> None:
    originals = submission.judge_alone, callplan.planned_check_calls
    for variant in VARIANTS:
        with switched_off(variant):
            replaced = (submission.judge_alone is not originals[0], callplan.planned_check_calls is not originals[1])
            assert replaced == {"as graded": (False, False), "no trusted self-check": (False, True),
                                "no judging alone": (True, False), "neither": (True, True)}[variant]
        assert (submission.judge_alone, callplan.planned_check_calls) == originals


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
