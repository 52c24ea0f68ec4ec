"""`make bench-lms`: how long after a graded submission its score is in the LTI platform's gradebook.

20 students hand in a notebook each into nbgrader's exchange; `autograder watch` grades them in its sandbox,
committing each grade with its outbox row, while `outbox_sender.follow` (the loop of `autograder push --follow`,
polling every `[push] poll_seconds`, 1 s by default) sends them to the loopback LTI platform
(tests/lms/nrps_platform.py, lti1p3platform behind a strict harness). Two rounds, one course and one watcher:
the platform up, then down from the round's first hand-in for `--down` seconds (a minute by default; longer
if the watcher takes longer to grade the round: tests/lms/watched_outage.py, the scenario the test shares).
Each score's wait is measured from its commit (the outbox row's time) and from its hand-in to the platform
holding it, printed as p50/p95; in the second round the time to the platform's return is in the figure: it
is how long a student's score waits.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from tests.lms.nrps_platform import AdvantagePlatform, registered
from tests.lms.watched_outage import (
    LINE,
    down_while_graded,
    following,
    hand_in_all,
    lms_course,
    newest,
    settled,
)


class Arrivals:
    """When each score reached the platform: (LTI user id, how many it then held) -> time.time(), polled."""

    def __init__(self, lms: AdvantagePlatform) -> None:
        self.lms, self.seen, self.stop = lms, {}, threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self.stop.wait(0.01):
            with self.lms.lock:
                held = {user: len(history) for (line, user), history in self.lms.store.scores.items() if line == LINE}
            now = time.time()
            for user, count in held.items():
                for n in range(1, count + 1):
                    self.seen.setdefault((user, n), now)

    def __enter__(self) -> Arrivals:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(10)


def percentiles(seconds: list[float]) -> str:
    seconds = sorted(seconds)
    p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
    return f"p50 {statistics.median(seconds):.2f} s, p95 {p95:.2f} s, max {seconds[-1]:.2f} s"


def run(students: int, poll: float, down: float, spacing: float) -> None:
    from autograder.devtools.demo_lms.demo_platform import new_key_pair
    from tests.watching import make_template, wait_for, watching

    names = [f"s{i:02d}" for i in range(students)]
    tool_private, _ = new_key_pair()
    with tempfile.TemporaryDirectory() as folder:
        watched = lms_course(make_template(Path(folder) / "template"), Path(folder) / "bench", names)
        with (registered(watched.course, tool_private, new_key_pair(), poll_seconds=poll) as lms,
              watching(watched.course) as watcher, following(watched, lms), Arrivals(lms) as arrivals):
            for round_, label in enumerate(("platform up", f"platform down {down:g} s")):
                submissions = [(name, round_) for name in names]
                if round_:
                    handed_at = dict(down_while_graded(watched, lms, submissions, watcher.log, down, spacing))
                else:
                    handed_at = dict(hand_in_all(watched, submissions, watcher.log, spacing))
                held = [(f"lti-{n}", round_ + 1) for n in names]  # each one's score of this round, in the platform
                wait_for(lambda held=held: settled(watched) and all(key in arrivals.seen for key in held),
                         down + 120, "every score in the platform", watcher.log)
                made = {s: r.created_at for s, r in newest(watched).items()}  # this round's
                graded = [arrivals.seen[key] - _epoch(made[n]) for n, key in zip(names, held, strict=True)]
                waited = [arrivals.seen[key] - handed_at[n] for n, key in zip(names, held, strict=True)]
                print(f"{label}: {students} students, poll {poll:g} s: graded -> in the LMS gradebook "
                      f"{percentiles(graded)}; handed in -> in the LMS gradebook {percentiles(waited)}", flush=True)


def _epoch(utc_text: str) -> float:
    return datetime.fromisoformat(utc_text).replace(tzinfo=UTC).timestamp()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--poll", type=float, default=1.0, help="[push] poll_seconds (1 s by default)")
    parser.add_argument("--down", type=float, default=60.0, help="seconds the platform is down in the second round")
    parser.add_argument("--spacing", type=float, default=0.25, help="seconds between two hand-ins")
    args = parser.parse_args()
    os.environ.setdefault("AUTOGRADER_GRADEBOOK_TIMEOUT", "30")
    logging.getLogger("autograder.grades.outbox").setLevel(logging.ERROR)  # the outage's log lines, one per pass
    run(args.students, args.poll, args.down, args.spacing)


if __name__ == "__main__":
    main()
