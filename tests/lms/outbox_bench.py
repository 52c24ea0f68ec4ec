"""`make bench-lms`: how long after a graded submission its score is in the LTI platform's gradebook.

20 students' submissions are committed one by one through `GradebookWriter` (the writer `autograder watch`
commits each graded submission with), while `autograder push --follow`'s loop (`outbox_sender.follow`, polling
every `[push] poll_seconds`, 1 s by default) sends them to the loopback LTI platform (tests/lms/nrps_platform.py,
lti1p3platform behind a strict harness). The latency of each is from its commit to the platform holding the
score; printed as p50/p95, first with the platform up, then with it down for `--down` seconds from the first
submission (the time to the platform's return is in the figure: it is how long a student waits).
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from tests.lms.conftest import build_gradebook, write_config


def course(root: Path, students: list[str]) -> None:
    from nbgrader.api import Gradebook

    from autograder.lms.roster_import import import_roster

    write_config(root)
    db_url = f"sqlite:///{root / 'gradebook.db'}"
    build_gradebook(db_url)
    roster = root / "roster.csv"
    roster.write_text("id,first_name,last_name,email,lms_user_id,lti_user_id\n" + "".join(
        f"{s},S,{s},{s}@uni.example,{2000 + i},lti-{s}\n" for i, s in enumerate(students)))
    with Gradebook(db_url, course_id="rnn-test") as gb:
        import_roster(gb, roster, "plain")


def run(students: int, poll: float, down: float, spacing: float) -> list[float]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from autograder.lms.lms_settings import load
    from autograder.lms.lti import jwks
    from autograder.lms.outbox_sender import follow
    from tests.lms.advantage_fixtures import lti_settings
    from tests.lms.nrps_platform import AdvantagePlatform
    from tests.lms.test_lms_outbox import grade, writer

    def pem(key) -> str:
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption()).decode()

    tool, platform = (rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(2))
    platform_public = platform.public_key().public_bytes(serialization.Encoding.PEM,
                                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    names = [f"s{i:02d}" for i in range(students)]
    with tempfile.TemporaryDirectory() as folder, AdvantagePlatform(pem(platform), platform_public,
                                                                     tool_jwks=jwks(pem(tool))) as lms:
        root = Path(folder)
        course(root, names)
        (root / "lms.toml").write_text(lti_settings(lms).replace("poll_seconds = 0.05", f"poll_seconds = {poll}"))
        settings = load(root, required=True)
        from autograder.lms.outbox_sender import open_outbox, reconcile_all

        with open_outbox(root) as db:  # the class graded before the benchmark: queued, then sent, before timing
            reconcile_all(db)
        stop = threading.Event()
        sender = threading.Thread(target=follow, args=(root, settings, pem(tool), stop),
                                  kwargs={"poll_seconds": poll, "scan_seconds": 3600, "out": lambda _: None},
                                  daemon=True)
        sender.start()
        time.sleep(1.0)
        committed: dict[str, float] = {}
        book = writer(type("C", (), {"db_url": f"sqlite:///{root / 'gradebook.db'}"})())
        lms.down_until = time.monotonic() + down if down else 0.0
        try:
            for name in names:
                grade(book, name, 30)
                committed[name] = time.monotonic()
                time.sleep(spacing)
        finally:
            book.close()
        arrived: dict[str, float] = {}
        deadline = time.monotonic() + down + 120
        while len(arrived) < len(names) and time.monotonic() < deadline:
            for name in names:
                if name not in arrived and lms.scores("1", f"lti-{name}"):
                    arrived[name] = time.monotonic()
            time.sleep(0.01)
        stop.set()
        sender.join(10)
        missing = sorted(set(names) - set(arrived))
        if missing:
            raise SystemExit(f"bench-lms: {len(missing)} score(s) never arrived: {', '.join(missing)}")
        return [arrived[n] - committed[n] for n in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--poll", type=float, default=1.0, help="[push] poll_seconds (1 s by default)")
    parser.add_argument("--down", type=float, default=60.0, help="seconds the platform is down in the second run")
    parser.add_argument("--spacing", type=float, default=0.25, help="seconds between two graded submissions")
    args = parser.parse_args()
    os.environ.setdefault("AUTOGRADER_GRADEBOOK_TIMEOUT", "30")
    logging.getLogger("autograder.lms.outbox").setLevel(logging.ERROR)  # the outage's log lines, one per pass
    for label, down in (("platform up", 0.0), (f"platform down {args.down:g} s", args.down)):
        seconds = sorted(run(args.students, args.poll, down, args.spacing))
        p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
        print(f"{label}: {args.students} students, poll {args.poll:g} s: graded -> in the LMS gradebook "
              f"p50 {statistics.median(seconds):.2f} s, p95 {p95:.2f} s, max {seconds[-1]:.2f} s")


if __name__ == "__main__":
    main()
