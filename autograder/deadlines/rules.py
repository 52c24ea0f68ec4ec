"""The course's late rules as its nbgrader settings declare them: `c.LateCredit.*`, the traits of the late-penalty
plugin (`late_plugin.LateCredit`), so that `nbgrader autograde` and our commands read the very same values.
The framework's defaults are in `autograder.course.defaults`; a course sets its own in `nbgrader_config.py`:

    c.LateCredit.schedule = [["48h", 0.8], ["7d", 0.5]]     # steps: until (after the due date, or a date), credit
    c.LateCredit.after = "practice"                         # after the last step: "practice" or "not-accepted"
    c.LateCredit.grace = "15m"
    c.LateCredit.assignments = {"hw2": {"schedule": [["2026-03-08T23:59:00+01:00", 0.5]], "after": "not-accepted"}}
    c.LateCredit.labels = {"extra-time": {"stretch": 1.5, "extra": "1d"}}

The due date itself is nbgrader's (`nbgrader db assignment add A --duedate=...`): the gradebook is its one source.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from autograder.deadlines.schedule import DeadlineError, Label, LateSchedule, Step, parse_date, parse_duration

SECTION = "LateCredit"
SCHEDULE_KEYS = ("schedule", "after", "grace")
KEYS = (*SCHEDULE_KEYS, "assignments", "labels")


@dataclass(frozen=True)
class LateRules:
    """Every assignment's schedule (the course's, unless the assignment has its own) and the course's labels."""

    default: LateSchedule = LateSchedule()
    assignments: Mapping[str, LateSchedule] = field(default_factory=dict)
    labels: Mapping[str, Label] = field(default_factory=dict)

    def schedule(self, assignment: str) -> LateSchedule:
        return self.assignments.get(assignment, self.default)

    def label(self, name: str | None) -> Label:
        if not name:
            return Label("")
        if name not in self.labels:
            raise DeadlineError(f"unknown label {name!r} (c.LateCredit.labels declares: "
                                f"{', '.join(sorted(self.labels)) or 'none'})")
        return self.labels[name]


def rules_from(section: Mapping[str, Any]) -> LateRules:
    """The rules of a `c.LateCredit` section (traitlets' values, or the section of the merged config files);
    a value that makes no sense raises DeadlineError naming the setting."""
    for key in section:
        if key not in KEYS and key != "penalty_method":  # nbgrader's own trait, inherited
            raise DeadlineError(f"c.{SECTION}.{key}: unknown setting (known: {', '.join(KEYS)})")
    if section.get("penalty_method") == "zero" and not section.get("after"):
        # nbgrader's own setting (`c.LateSubmissionPlugin.penalty_method = 'zero'`) keeps its meaning.
        section = {**section, "after": "not-accepted"}
    default = _schedule(section, f"c.{SECTION}")
    assignments = {}
    for name, own in dict(section.get("assignments") or {}).items():
        if not isinstance(own, Mapping):
            raise DeadlineError(f"c.{SECTION}.assignments[{name!r}] must be a dict of {', '.join(SCHEDULE_KEYS)}")
        unknown = set(own) - set(SCHEDULE_KEYS)
        if unknown:
            raise DeadlineError(f"c.{SECTION}.assignments[{name!r}]: unknown setting {sorted(unknown)[0]!r}")
        # What the assignment does not set is the course's.
        merged = {key: own.get(key, section.get(key)) for key in SCHEDULE_KEYS}
        assignments[str(name)] = _schedule(merged, f"c.{SECTION}.assignments[{name!r}]")
    labels = {}
    for name, spec in dict(section.get("labels") or {}).items():
        where = f"c.{SECTION}.labels[{name!r}]"
        if not isinstance(spec, Mapping) or set(spec) - {"extra", "stretch"}:
            raise DeadlineError(f"{where} must be a dict with 'extra' (a duration) and/or 'stretch' (a factor)")
        try:
            extra = parse_duration(spec["extra"]) if spec.get("extra") else timedelta(0)
            stretch = float(spec.get("stretch", 1.0))
            labels[str(name)] = Label(str(name), extra, stretch)
        except (DeadlineError, TypeError, ValueError) as exc:
            raise DeadlineError(f"{where}: {exc}") from None
    return LateRules(default, assignments, labels)


def _schedule(values: Mapping[str, Any], where: str) -> LateSchedule:
    try:
        steps = []
        for item in list(values.get("schedule") or []):
            if not isinstance(item, list | tuple) or len(item) != 2:
                raise DeadlineError(f"a step is [until, credit], not {item!r}")
            until, credit = item
            if isinstance(credit, bool) or not isinstance(credit, int | float):
                raise DeadlineError(f"a step's credit is a number from 0 to 1, not {credit!r}")
            text = str(until)
            steps.append(Step(parse_date(text) if "-" in text[1:] else parse_duration(text), float(credit)))
        grace = parse_duration(values["grace"], zero=True) if values.get("grace") else timedelta(0)
        return LateSchedule(tuple(steps), values.get("after") or None, grace)
    except DeadlineError as exc:
        raise DeadlineError(f"{where}: {exc}") from None
