"""The one retry policy of every call to an LMS: a call that failed for a passing reason (429, 5xx, no connection)
is tried again after a wait that doubles per failure in a row, or what the server asked for (`Retry-After`),
never longer than a cap.

`RetryPolicy.with_retries` retries one call within a command (`push`, the roster, deep linking); the outbox's
sender (`outbox_sender.LtiSender`), whose loop never gives up, asks the same policy how long to pause
(`RetryPolicy.wait`); Canvas's bulk-update jobs are polled on the same doubling (`canvas_push`). Each LMS client
raises its own exceptions; its module passes a `classify` function that says whether an exception is worth
retrying and, when the server said so (`Retry-After`), how long to wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
RETRIES = 4  # `[push] retries`: tries after the first, within one command
BACKOFF_SECONDS = 1.0  # `[push] backoff_seconds`: the first wait, doubled after every failure in a row
MAX_WAIT = 60.0  # the longest wait between two tries within a command


@dataclass
class RetryPolicy:
    attempts: int = RETRIES + 1  # calls in all, the first included
    backoff_seconds: float = BACKOFF_SECONDS
    max_wait: float = MAX_WAIT
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    waits: list[float] = field(default_factory=list, repr=False)  # every wait taken, for the report

    def wait(self, failures: int, retry_after: float | None = None) -> float:
        """Seconds to wait after `failures` failures in a row (1 after the first): what the server asked for when
        it did (`Retry-After`), else `backoff_seconds` doubled per failure after the first; within [0, max_wait]."""
        wait = retry_after if retry_after is not None else self.backoff_seconds * 2 ** (failures - 1)
        return min(max(wait, 0.0), self.max_wait)

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
                wait = self.wait(attempt, retry_after)
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


def policy_from_settings(settings, sleep: Callable[[float], None] = time.sleep, *,
                         backoff_seconds: float | None = None, max_wait: float = MAX_WAIT) -> RetryPolicy:
    """The policy lms.toml sets (`[push] retries`, `backoff_seconds`); `backoff_seconds`, given, wins."""
    retries = int(settings.get("push", "retries", RETRIES))
    backoff = float(backoff_seconds if backoff_seconds is not None
                    else settings.get("push", "backoff_seconds", BACKOFF_SECONDS))
    return RetryPolicy(attempts=max(1, retries + 1), backoff_seconds=backoff, max_wait=max_wait, sleep=sleep)
