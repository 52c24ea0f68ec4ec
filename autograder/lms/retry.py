"""Retries with exponential backoff for calls to an LMS that answered 429 or 5xx, or could not be reached.

Each LMS client raises its own exceptions; its module passes a `classify` function that says whether
an exception is worth retrying and, when the server said so (`Retry-After`), how long to wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass
class RetryPolicy:
    attempts: int = 5            # calls in all, the first included
    backoff_seconds: float = 1.0  # first wait; doubled after every failed attempt
    max_wait: float = 60.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    waits: list[float] = field(default_factory=list, repr=False)  # every wait taken, for the report

    def with_retries(self, action: Callable[[], T],
                     classify: Callable[[BaseException], tuple[bool, float | None]]) -> T:
        """`action()`, retried while `classify(exc)` says the failure is transient."""
        for attempt in range(1, self.attempts + 1):
            try:
                return action()
            except Exception as exc:
                transient, retry_after = classify(exc)
                if not transient or attempt == self.attempts:
                    raise
                wait = retry_after if retry_after is not None else self.backoff_seconds * 2 ** (attempt - 1)
                wait = min(max(wait, 0.0), self.max_wait)
                self.waits.append(wait)
                self.sleep(wait)
        raise AssertionError("unreachable")


def retry_after_seconds(value: str | None) -> float | None:
    """The `Retry-After` header in seconds (its HTTP-date form is rare from LMSs and is ignored)."""
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def policy_from_settings(settings, sleep: Callable[[float], None] = time.sleep) -> RetryPolicy:
    retries = int(settings.get("push", "retries", 4))
    backoff = float(settings.get("push", "backoff_seconds", 1.0))
    return RetryPolicy(attempts=max(1, retries + 1), backoff_seconds=backoff, sleep=sleep)
