"""Who made a change and when, as every table of ours records it: the audit trail, the deadline events and the
LMS outbox. Times are UTC text that sorts in time order in any database; microseconds keep quick changes in order."""

import getpass
import os
from datetime import UTC, datetime


def os_user() -> str:
    """Who runs this: the login name, or the numeric uid where the system has no name for it."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return str(os.getuid())


def utc_text(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def now_text() -> str:
    return utc_text(datetime.now(UTC))
