"""The course's roster kept in step with the LMS by the hub: `roster sync` (NRPS) at start and then every
`[roster] sync_seconds` of lms.toml (ROSTER_SYNC_SECONDS by default), as a JupyterHub managed service run in the
course folder (services.py). A sync that fails (the LMS down, a malformed page) is one log line; nothing is written
and the next try comes sooner (RETRY_SECONDS). SIGTERM or SIGINT (the hub stopping) ends it between syncs.

A launch does not wait for a sync: it carries the person's identity itself (LMS user id, names, email, role), which
the hub's login saves in the same identity table (lti_login.py), so a student who enrolled a minute ago gets in at
once; the scheduled sync adds those who never launched and flags those who left.

    python -m autograder.hub.roster_service     (in the course folder)
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from pathlib import Path

from autograder.lms.errors import LmsError
from autograder.lms.lms_settings import load
from autograder.lms.roster_sync import sync_course

# Enrolments change a few times a day; an hour keeps the roster a day's changes fresh at one NRPS request an hour.
ROSTER_SYNC_SECONDS = 3600.0
RETRY_SECONDS = 300.0  # after a failed sync: the LMS may be back sooner than the next hour

log = logging.getLogger("autograder.hub.roster_service")


def sync_every(course: Path, stop: threading.Event) -> None:
    """Sync the roster of `course` now and then every `[roster] sync_seconds` until `stop` is set."""
    while not stop.is_set():
        wait = RETRY_SECONDS
        try:
            every = float(load(course).get("roster", "sync_seconds", ROSTER_SYNC_SECONDS))
            listed, result = sync_course(course)
            log.info("roster synced: %d members, %d new students, %d updated, left: %s, back: %s", listed,
                     result.created, result.updated, ", ".join(result.left) or "none",
                     ", ".join(result.returned) or "none")
            wait = every
        except LmsError as exc:
            log.warning("roster sync failed: %s; next try in %.0f s", exc, RETRY_SECONDS)
        stop.wait(max(wait, 1.0))


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    sync_every(Path.cwd(), stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
