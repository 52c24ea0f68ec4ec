"""The course's policy for graded attempts, read from `nbgrader_config.py` (`c.AutograderWatch.*`)."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

COUNTS = ("latest", "best")


class PolicyError(Exception):
    """A policy value the watcher cannot use; the message is one line naming the key."""


@dataclass(frozen=True)
class Policy:
    attempts: int = 0  # graded attempts per student and assignment within `window`; 0: no limit
    window: timedelta = timedelta(hours=24)
    counts: str = "latest"  # which graded attempt the gradebook (and so exports and pushes) holds
    poll_seconds: float = 0.2
    check_owner: bool = True  # nbgrader's `CollectApp.check_owner`: a submission's folder is its student's

    def next_slot(self, graded_at: list[datetime], now: datetime) -> datetime | None:
        """When the next graded attempt is allowed, or None when it is allowed now."""
        if not self.attempts:
            return None
        recent = sorted(t for t in graded_at if now - t < self.window)
        if len(recent) < self.attempts:
            return None
        return recent[len(recent) - self.attempts] + self.window


def read_policy(config: Any) -> Policy:
    """`config`: the course's traitlets configuration (as `nbgrader_config.py` gives it)."""
    section = config.get("AutograderWatch", {})
    known = {"attempts", "window_hours", "counts", "poll_seconds"}
    for key in section:
        if key not in known:
            raise PolicyError(f"c.AutograderWatch.{key}: unknown setting (known: {', '.join(sorted(known))})")
    default = Policy()  # a key the course leaves out keeps the dataclass's value: the defaults live there
    try:
        attempts = int(section.get("attempts", default.attempts))
        hours = float(section.get("window_hours", default.window / timedelta(hours=1)))
        poll = float(section.get("poll_seconds", default.poll_seconds))
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"c.AutograderWatch: {exc}") from None
    counts = section.get("counts", default.counts)
    if attempts < 0:
        raise PolicyError("c.AutograderWatch.attempts must be 0 (no limit) or more")
    if not hours > 0:
        raise PolicyError("c.AutograderWatch.window_hours must be more than 0")
    if counts not in COUNTS:
        raise PolicyError(f"c.AutograderWatch.counts must be one of {', '.join(map(repr, COUNTS))}, not {counts!r}")
    if not 0.01 <= poll <= 60:
        raise PolicyError("c.AutograderWatch.poll_seconds must be between 0.01 and 60")
    check_owner = bool(config.get("CollectApp", {}).get("check_owner", default.check_owner))
    return Policy(attempts, timedelta(hours=hours), counts, poll, check_owner)
