"""`make bench-costs`: where one submission's grading time goes, and what each optional stage adds.

Grades one synthetic class (the answer catalogues, round robin, as `make bench`) in this process, one
submission after another with one zygote, and prints per submission the CPU time of the trusted side (the
graders, the trusted self-check, judging exercises on their own) and of the sandboxed side (the zygote and
every student's process, split into user and kernel time, with their page faults). Then again with the
trusted self-check switched off, with judging exercises on their own switched off, and with both, rounds
alternated so that whatever else the host does falls on every variant alike; medians are printed.

The variants exist only here, for this measurement: each hands `grade_submission` its stages with the ones
it leaves out switched off (`grading.submission.Stages`). Nothing here is a grade: the figures say what the
stages cost, not what they decide.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.devtools.bench import build, process_tree
from autograder.devtools.catalogue import catalogued
from autograder.devtools.repo import available_assignments

if TYPE_CHECKING:
    from autograder.grading.submission import Stages

_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class TreeUsage:
    """CPU seconds and minor page faults of this process's descendants, reaped ones included."""

    user: float
    kernel: float
    faults: int

    @classmethod
    def now(cls) -> "TreeUsage":
        user = kernel = 0.0
        faults = 0
        for pid in process_tree(os.getpid())[1:]:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # ended meanwhile: its figures move to its parent's reaped-children counts
            # minflt, cminflt, utime, stime, cutime, cstime: a process's own and its reaped children's.
            user += (int(fields[11]) + int(fields[13])) / _TICKS
            kernel += (int(fields[12]) + int(fields[14])) / _TICKS
            faults += int(fields[7]) + int(fields[8])
        return cls(user, kernel, faults)


@dataclass(frozen=True)
class Costs:
    """Per submission: milliseconds of CPU on each side, and page faults on the sandboxed side."""

    trusted_ms: float
    sandbox_user_ms: float
    sandbox_kernel_ms: float
    faults: float

    @property
    def total_ms(self) -> float:
        return self.trusted_ms + self.sandbox_user_ms + self.sandbox_kernel_ms


VARIANTS = ("as graded", "no trusted self-check", "no judging alone", "neither")


def stages_for(variant: str) -> "Stages":
    """The stages `variant` leaves out, switched off."""
    from autograder.grading.submission import Stages  # after main has set the environment NumPy reads

    return Stages(self_check=variant not in ("no trusted self-check", "neither"),
                  judge_alone=variant not in ("no judging alone", "neither"))


def measure(grade: Callable[[], None], count: int) -> Costs:
    before, started = TreeUsage.now(), time.process_time()
    grade()
    spent, after = time.process_time() - started, TreeUsage.now()
    return Costs(1000 * spent / count, 1000 * (after.user - before.user) / count,
                 1000 * (after.kernel - before.kernel) / count, (after.faults - before.faults) / count)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--assignment", default=catalogued(available_assignments())[0])
    args = parser.parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the command sets it, before NumPy loads

    from autograder.course.settings import read_course
    from autograder.grading.instructor import instructor_files
    from autograder.grading.prepare import prepare
    from autograder.grading.self_check.callplan import prepare as prepare_plans
    from autograder.grading.sources import read_sources_early
    from autograder.grading.startup import hidden_paths
    from autograder.grading.submission import grade_submission
    from autograder.sandbox.zygote_handle import Zygote

    with tempfile.TemporaryDirectory(prefix="autograder-bench-costs-") as scratch:
        print(f"building {args.n} submissions of {args.assignment} ...", flush=True)
        course = build(Path(scratch) / "course", args.assignment, args.n)
        settings = read_course(course)
        sources = read_sources_early(settings.db_url, args.assignment)
        modules, preload = instructor_files(settings, sources, args.assignment)
        students = sorted(os.listdir(course / "submitted"))
        jobs = [prepare(settings, sources, modules, args.assignment, s, preload).job for s in students]
        prepare_plans(args.assignment)
        results: dict[str, list[Costs]] = {variant: [] for variant in VARIANTS}
        with Zygote(hide=hidden_paths(settings.root, settings.graders)) as zygote:
            for job in jobs[:5]:  # the zygote's warm-up and the plans' first use are not a submission's cost
                grade_submission(job, zygote)
            for round_ in range(args.rounds):
                order = VARIANTS if round_ % 2 == 0 else tuple(reversed(VARIANTS))
                for variant in order:
                    stages = stages_for(variant)
                    costs = measure(lambda s=stages: [grade_submission(job, zygote, s) for job in jobs], len(jobs))
                    results[variant].append(costs)
                    print(f"  round {round_ + 1} {variant:>22}: {costs.total_ms:5.1f} ms", flush=True)
    print()
    print(f"{'per submission (median of ' + str(args.rounds) + ')':28}{'trusted ms':>12}{'sandbox user':>14}"
          f"{'kernel ms':>11}{'faults':>8}{'total ms':>10}")
    base = statistics.median(c.total_ms for c in results["as graded"])
    for variant, runs in results.items():
        med = Costs(*(statistics.median(getattr(c, f) for c in runs)
                      for f in ("trusted_ms", "sandbox_user_ms", "sandbox_kernel_ms", "faults")))
        share = f" ({(med.total_ms / base - 1) * 100:+.0f}%)" if variant != "as graded" else ""
        print(f"{variant:28}{med.trusted_ms:12.1f}{med.sandbox_user_ms:14.1f}{med.sandbox_kernel_ms:11.1f}"
              f"{med.faults:8.0f}{med.total_ms:10.1f}{share}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
