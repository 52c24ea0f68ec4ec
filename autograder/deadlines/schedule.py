"""Late credit as arithmetic: a schedule of credit steps after the due date, a grace period, and the student's
own due date (the assignment's, moved by an extension or a label). Pure: no database, no clock, no settings.

A step is "`credit` until `until`": `until` an offset after the due date (a `timedelta`) or a date (an aware
`datetime`). Boundaries are inclusive to the second: a submission at the due date exactly is on time, one at
a step's end exactly gets that step's credit. After the last step the submission is either not accepted or
practice (graded with feedback, its score not counted); both count for nothing in the gradebook.

Every time here is an aware `datetime` (any zone; compared as instants, so a DST change inside a window
changes nothing: 48 h are 48 h). nbgrader's gradebook keeps naive UTC: `as_utc` and `naive_utc` convert.
"""

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import Enum


class DeadlineError(ValueError):
    """A date, a duration, a schedule or a label that makes no sense; the message is one line."""


class Outcome(Enum):
    ON_TIME = "on time"
    LATE = "late"
    PRACTICE = "practice"  # graded with feedback, score not counted
    NOT_ACCEPTED = "not accepted"


AFTER_LAST = {"practice": Outcome.PRACTICE, "not-accepted": Outcome.NOT_ACCEPTED}

# Dates before or after these are typing mistakes (1970 is an epoch of zero, 9999 a placeholder), and so is a
# length of time that no two of them are apart: every date and duration typed, and every due date moved, is
# held to these, so no arithmetic on them can leave Python's years 1 to 9999.
EARLIEST, LATEST = datetime(2000, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC)
LONGEST = LATEST - EARLIEST
# A label's windows stretched more than this are a typing mistake (1.5 and 2 are the usual accommodations).
MOST_STRETCH = 10.0


@dataclass(frozen=True)
class Step:
    until: timedelta | datetime
    credit: float  # 0..1

    def end(self, due: datetime, stretch: float) -> datetime:
        """Where this step ends for a student whose due date is `due`: an offset is stretched by a label's
        factor; a date is the same for everyone, moved with the student's due date when that moved."""
        if isinstance(self.until, timedelta):
            return due + self.until * stretch
        return self.until


@dataclass(frozen=True)
class LateSchedule:
    """Credit steps after the due date, then `after` ("practice" or "not-accepted"); no steps and no `after`:
    full credit whenever the work arrives (nbgrader's default, no penalty)."""

    steps: tuple[Step, ...] = ()
    after: str | None = None
    grace: timedelta = timedelta(0)

    def __post_init__(self) -> None:
        if self.after is not None and self.after not in AFTER_LAST:
            raise DeadlineError(f"after the last step: {self.after!r} is neither "
                                f"{' nor '.join(repr(a) for a in AFTER_LAST)}")
        if self.steps and self.after is None:
            raise DeadlineError("a late-credit schedule needs what happens after its last step "
                                "(after='practice' or 'not-accepted')")
        if self.grace < timedelta(0):
            raise DeadlineError(f"the grace period is negative ({self.grace})")
        previous = 1.0  # pragma: no mutate (any start above 1 is the same: a credit above 1 is refused first)
        for step in self.steps:
            if not 0 <= step.credit <= 1:
                raise DeadlineError(f"a credit of {step.credit:g} is not between 0 and 1")
            if step.credit > previous:
                raise DeadlineError(f"the credit goes up from {previous:g} to {step.credit:g}: "
                                    "a later submission cannot earn more")
            if isinstance(step.until, timedelta) and step.until <= timedelta(0):
                raise DeadlineError(f"a step ends {step.until} after the due date: it must end after it")
            previous = step.credit

    def check_dates(self, due: datetime) -> None:
        """The due date is a plausible date, and the steps end after it and after each other (dated steps are
        only comparable with a due date)."""
        plausible(due, f"the due date {show(due)}")
        last = due
        for step in self.steps:
            end = step.end(due, 1.0)
            if end <= last:
                raise DeadlineError(f"a step ends at {show(end)}, not after {show(last)}")
            last = end

    @property
    def after_last(self) -> Outcome:
        return AFTER_LAST[self.after] if self.after else Outcome.LATE


@dataclass(frozen=True)
class Label:
    """A group accommodation set once per student for the course: `extra` more time on every due date, and
    every relative window of the schedule `stretch` times as long (1.5: "+50% of every window")."""

    name: str
    extra: timedelta = timedelta(0)
    stretch: float = 1.0

    def __post_init__(self) -> None:
        if not timedelta(0) <= self.extra <= LONGEST or not 1 <= self.stretch <= MOST_STRETCH:
            raise DeadlineError(f"label {self.name!r}: extra time must be from 0 to {show_duration(LONGEST)} and a "
                                f"window's stretch from 1 to {MOST_STRETCH:g}")


NO_LABEL = Label("")


@dataclass(frozen=True)
class Credit:
    """What a submission earns, and why, for one student."""

    outcome: Outcome
    credit: float  # the share of the score that counts
    due: datetime  # the student's due date (extension and label included), UTC
    late_by: timedelta = field(default=timedelta(0))

    @property
    def counts(self) -> bool:
        return self.outcome in (Outcome.ON_TIME, Outcome.LATE)


def student_due(due: datetime, extension: timedelta | None, label: Label = NO_LABEL) -> datetime:
    """The due date for one student: an extension granted for this assignment replaces the label's extra time
    (the instructor chose that date for them); otherwise the label's extra time applies."""
    return as_utc(due) + (extension if extension else label.extra)


def moved_due(due: datetime, by: timedelta) -> datetime:
    """`due` moved by `by` (an extension), refused as a typed date is when that lands past the plausible years."""
    try:
        moved = as_utc(due) + by
    except OverflowError:  # past the year 9999 (a due date nbgrader was given, not one of ours)
        raise DeadlineError(_implausible(f"{show(due)} + {show_duration(by)}")) from None
    plausible(moved, f"{show(due)} + {show_duration(by)} = {show(moved)}")
    return moved


def credit_at(schedule: LateSchedule, due: datetime, submitted: datetime, extension: timedelta | None = None,
              label: Label = NO_LABEL) -> Credit:
    """The credit of a submission that arrived at `submitted`, for an assignment due at `due`."""
    mine = student_due(due, extension, label)
    late_by = as_utc(submitted) - mine
    if late_by <= schedule.grace:
        return Credit(Outcome.ON_TIME, 1.0, mine, max(late_by, timedelta(0)))
    # A dated step moves with the student's due date (an extension or a label moves every step by as much).
    moved = mine - as_utc(due)
    for step in schedule.steps:
        end = step.end(mine, label.stretch) if isinstance(step.until, timedelta) else step.until + moved
        if as_utc(submitted) <= end:
            return Credit(Outcome.LATE, step.credit, mine, late_by)
    if schedule.after is None:
        return Credit(Outcome.LATE, 1.0, mine, late_by)
    return Credit(schedule.after_last, 0.0, mine, late_by)


def penalty(score: float, credit: Credit) -> float:
    """The late penalty nbgrader keeps beside the score: what the credit takes away."""
    return max(0.0, min(score, round(score * (1.0 - credit.credit), 6)))


# Reading what people type ------------------------------------------------------------------------------

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(w|d|h|m|s)")
_UNITS = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes", "s": "seconds"}
_SECONDS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(text: str, zero: bool = False) -> timedelta:
    """`3d`, `48h`, `1d12h`, `90m`, `2w`, `30s`: a positive length of time (`zero`: or `0`, `0s`)."""
    compact = str(text).strip().lower().replace(" ", "")
    if zero and compact in ("0", "0s"):
        return timedelta(0)
    if compact.startswith("-"):
        raise DeadlineError(f"{text!r} is a negative duration")
    parts = _DURATION.findall(compact)
    if not compact or "".join(n + u for n, u in parts) != compact:
        raise DeadlineError(f"{text!r} is not a duration (examples: 3d, 48h, 1d12h, 90m, 2w)")
    # Measured in floats first (a number of any size is one): a timedelta of 10**9 days does not exist.
    if sum(float(number) * _SECONDS[unit] for number, unit in parts) > LONGEST.total_seconds():
        raise DeadlineError(f"{text!r} is longer than any deadline can move (at most {show_duration(LONGEST)}, "
                            f"the years {EARLIEST.year} to {LATEST.year})")
    total = sum((timedelta(**{_UNITS[unit]: float(number)}) for number, unit in parts), timedelta(0))
    if total <= timedelta(0):
        raise DeadlineError(f"{text!r} is not a positive duration")
    return total


def parse_date(text: str) -> datetime:
    """An ISO 8601 date and time with its offset or `Z` (`2026-03-01T23:59:00+01:00`): an instant, UTC.
    A time without an offset is refused (which zone was meant?), and so is a year before 2000 or after 2200."""
    try:
        value = datetime.fromisoformat(str(text).strip())  # Python 3.11's: any one character between date and time
    except ValueError:
        raise DeadlineError(f"{text!r} is not an ISO 8601 date and time (e.g. 2026-03-01T23:59:00+01:00)") from None
    if value.tzinfo is None:
        raise DeadlineError(f"{text!r} has no time zone: add its offset (+01:00) or Z for UTC")
    plausible(value, repr(text))
    return value.astimezone(UTC)


def plausible(value: datetime, what: str) -> None:
    """Refuse a date outside EARLIEST to LATEST, naming it as `what`: a typed date and a moved due date alike."""
    if not EARLIEST <= value <= LATEST:
        raise DeadlineError(_implausible(what))


def _implausible(what: str) -> str:
    return f"{what} is not a plausible date (years {EARLIEST.year} to {LATEST.year})"


def as_utc(value: datetime) -> datetime:
    """An aware instant in UTC; a naive one is nbgrader's (naive UTC)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def naive_utc(value: datetime) -> datetime:
    """As nbgrader's gradebook keeps a time: naive UTC."""
    return as_utc(value).replace(tzinfo=None)


def show(value: datetime) -> str:
    return as_utc(value).strftime("%Y-%m-%d %H:%M:%S UTC")


def show_duration(value: timedelta) -> str:
    seconds = int(value.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m"), (seconds, "s")) if n]
    return "".join(parts) or "0s"
