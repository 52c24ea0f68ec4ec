"""`make bench-compare OTHER=../old-checkout`: this checkout's `autograder grade` against another's, on copies
of one synthetic class, runs alternated so that whatever else the host does falls on both alike.

For a change that must not move speed (a restructure): check out the commit before it elsewhere
(`git worktree add ../old COMMIT && make -C ../old install`), then compare. Prints every run, both medians
and their ratio.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from autograder.devtools.bench import build, clone, timed
from autograder.devtools.repo import available_assignments


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the other checkout (its .venv/bin/autograder is run)")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=6, help="runs of each, alternated (default 6)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--assignment", default=available_assignments()[0])
    args = parser.parse_args(argv)
    sides = {"this": Path(sys.executable).parent, "other": args.other.resolve() / ".venv" / "bin"}
    if not (sides["other"] / "autograder").is_file():
        print(f"bench-compare: no {sides['other'] / 'autograder'} (make install in that checkout first)",
              file=sys.stderr)
        return 1
    times: dict[str, list[float]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory(prefix="autograder-bench-compare-") as scratch:
        print(f"building {args.n} submissions of {args.assignment} ...", flush=True)
        base = build(Path(scratch) / "base", args.assignment, args.n)
        for run in range(args.rounds):
            for side in (("this", "other") if run % 2 == 0 else ("other", "this")):
                course = clone(base, Path(scratch) / f"{side}-{run}", args.assignment, args.n)
                env = {**os.environ, "PATH": f"{sides[side]}{os.pathsep}{os.environ['PATH']}"}
                os.sync()  # the copy's write-back is not grading's work
                seconds, _, done = timed([str(sides[side] / "autograder"), "grade", args.assignment,
                                          "--jobs", str(args.jobs)], course, env)
                if done.returncode != 0:
                    print(done.stdout, done.stderr[-2000:], file=sys.stderr)
                    return 1
                print(f"  round {run + 1} {side:>5}: {seconds:.2f} s", flush=True)
                times[side].append(seconds)
                shutil.rmtree(course)
    for side, label in (("this", "this checkout"), ("other", str(args.other))):
        print(f"{label}: median {statistics.median(times[side]):.2f} s of {len(times[side])} "
              f"(min {min(times[side]):.2f}, max {max(times[side]):.2f})")
    ratio = statistics.median(times["this"]) / statistics.median(times["other"])
    print(f"this / other: {ratio:.3f} ({(ratio - 1) * 100:+.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
