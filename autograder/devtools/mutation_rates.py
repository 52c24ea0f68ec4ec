"""`make mutate`'s summary: of mutmut's last run (`mutmut results --all true`, in the repository), how many mutants
of each module the tests killed, and whether the whole reached the target; exit status 1 below it.

A mutant no test reaches ("no tests") counts as alive: it is a change nobody would notice."""

import argparse
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

# mutmut names a mutant `<module>.x_<function>__mutmut_<n>`, or `<module>.xǁ<class>ǁ<method>__mutmut_<n>`.
_MUTANT = re.compile(r"^\s*(?P<module>[\w.]+?)\.x(?:_|ǁ)\S*: (?P<status>.+?)\s*$")
KILLED = ("killed", "timeout")  # a mutant that made the tests hang was noticed too


def rates(results: str) -> dict[str, Counter]:
    """Each module's count of mutants by status, from `mutmut results --all true`."""
    found: dict[str, Counter] = defaultdict(Counter)
    for line in results.splitlines():
        match = _MUTANT.match(line)
        if match:
            found[match["module"]][match["status"]] += 1
    return dict(found)


def killed(counts: Counter) -> int:
    return sum(counts[status] for status in KILLED)


def report(found: dict[str, Counter]) -> list[str]:
    lines = []
    for module, counts in sorted(found.items()):
        total = sum(counts.values())
        alive = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()) if status not in KILLED)
        lines.append(f"{module:42} {killed(counts):5} of {total:5} killed  {killed(counts) / total:6.1%}"
                     + (f"  ({alive})" if alive else ""))
    total = sum(sum(c.values()) for c in found.values())
    lines.append(f"{'all':42} {sum(map(killed, found.values())):5} of {total:5} killed  "
                 f"{sum(map(killed, found.values())) / max(total, 1):6.1%}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, default=90.0, help="the share killed, in percent, below which "
                        "the run fails (default 90)")
    args = parser.parse_args(argv)
    mutmut = Path(sys.executable).parent / "mutmut"
    done = subprocess.run([str(mutmut), "results", "--all", "true"], capture_output=True, text=True)
    found = rates(done.stdout)
    if done.returncode != 0 or not found:
        print(f"mutation rates: no results from `mutmut results` (run `make mutate`): {done.stderr.strip()}",
              file=sys.stderr)
        return 1
    print("\n".join(report(found)))
    total = sum(sum(c.values()) for c in found.values())
    share = 100 * sum(map(killed, found.values())) / total
    if share < args.target:
        print(f"mutation rates: {share:.1f}% killed, below the target of {args.target:g}%", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
