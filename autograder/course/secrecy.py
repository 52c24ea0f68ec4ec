"""The rule that keeps hidden tests and solutions from students, checked on the course's nbgrader settings.

The framework's defaults (`autograder.course.defaults`) keep them out of the release and the feedback, but a course
can override any setting. So `autograder check`, `grade` and `watch` refuse a course whose settings would show
them (`refuse_leaks`), in one line naming the setting, the file that sets it, and the fix.

A course's steps are nbgrader preprocessors named by import path. The ones the framework and nbgrader name are
recognised from their names (importing nbgrader's preprocessors takes more than a second, more than the rest
of `autograder grade`'s start-up); any other is imported to see what it derives from.
"""

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.course.settings import CourseSettings, SettingsError
from autograder.nbgrader_glue.notebook import HIDDEN_BEGIN, HIDDEN_END

CLEAR_HIDDEN = "nbgrader.preprocessors.clearhiddentests.ClearHiddenTests"
CLEAR_SOLUTIONS = "nbgrader.preprocessors.clearsolutions.ClearSolutions"
CLEAR_TRACEBACKS = "autograder.feedback.preprocessors.ClearGradeCellTracebacks"
_QUIETLY = "autograder.feedback.preprocessors.ClearHiddenTestsQuietly"
_FEEDBACK_BASE = "autograder.feedback.preprocessors._FeedbackPreprocessor"
_BASES = ("nbgrader.preprocessors.base.NbGraderPreprocessor", "nbconvert.preprocessors.base.Preprocessor",
          "nbconvert.utils.base.NbConvertBase", "traitlets.config.configurable.LoggingConfigurable",
          "traitlets.config.configurable.Configurable")
# Each step the rule looks for, by the names a config file may give it: its classes, most derived first (a test
# compares them with the real classes). Configuration given to any of them applies to the step.
KNOWN = {
    CLEAR_HIDDEN: (CLEAR_HIDDEN, *_BASES),
    "nbgrader.preprocessors.ClearHiddenTests": (CLEAR_HIDDEN, *_BASES),
    _QUIETLY: (_QUIETLY, _FEEDBACK_BASE, CLEAR_HIDDEN, *_BASES),
    CLEAR_TRACEBACKS: (CLEAR_TRACEBACKS, _FEEDBACK_BASE, *_BASES),
    CLEAR_SOLUTIONS: (CLEAR_SOLUTIONS, *_BASES),
    "nbgrader.preprocessors.ClearSolutions": (CLEAR_SOLUTIONS, *_BASES),
}
# nbgrader 0.9's own lists, for a course where no file sets them (a test compares them with nbgrader's).
NBGRADER_FEEDBACK = ("nbgrader.preprocessors.GetGrades", "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor")
NBGRADER_RELEASE = tuple(f"nbgrader.preprocessors.{name}" for name in (
    "IncludeHeaderFooter", "InstantiateTests", "LockCells", "ClearSolutions", "ClearOutput", "CheckCellMetadata",
    "ComputeChecksums", "SaveCells", "ClearHiddenTests", "ClearMarkScheme", "ComputeChecksums", "CheckCellMetadata"))


class LeakingSettings(SettingsError):
    """The course's settings would show students hidden tests or solutions; the message is one line."""


@dataclass(frozen=True)
class Rule:
    section: str  # nbgrader's converter: c.<section>.preprocessors
    default: tuple[str, ...]  # its list where no file sets one
    step: str  # the class a step must derive from
    does: str  # what that step does
    otherwise: str  # what students would see without it
    fix: str  # the step to add


RULES = (
    Rule("GenerateFeedback", NBGRADER_FEEDBACK, CLEAR_HIDDEN, "removes hidden tests",
         "students' feedback would show them", _QUIETLY),
    Rule("GenerateFeedback", NBGRADER_FEEDBACK, CLEAR_TRACEBACKS, "shortens a grade cell's traceback",
         "students' feedback would quote hidden tests in it", CLEAR_TRACEBACKS),
    # What the release holds, each student's notebook and so their feedback holds.
    Rule("GenerateAssignment", NBGRADER_RELEASE, CLEAR_SOLUTIONS, "removes solutions",
         "the release, and so students' feedback, would show them", "nbgrader.preprocessors.ClearSolutions"),
    Rule("GenerateAssignment", NBGRADER_RELEASE, CLEAR_HIDDEN, "removes hidden tests",
         "the release would show them", "nbgrader.preprocessors.ClearHiddenTests"),
)


def refuse_leaks(settings: CourseSettings) -> None:
    """Raise `LeakingSettings` when the course's settings would show students hidden tests or solutions."""
    for rule in RULES:
        problem = _broken(settings, rule)
        if problem:
            raise LeakingSettings(problem)


def _broken(settings: CourseSettings, rule: Rule) -> str | None:
    """What breaks the rule, in one line; None when it holds."""
    steps = _steps(settings, rule)
    setting = f"c.{rule.section}.preprocessors"
    where = settings.set_in(rule.section, "preprocessors")
    kept = [classes for classes in _classes_of(steps, KNOWN.get) if rule.step in classes]
    if not kept:  # a course's own class may derive from the step
        unknown = [step for step in steps if not (isinstance(step, str) and step in KNOWN)]
        kept = [classes for classes in _classes_of(unknown, lambda name: _imported(name, settings.folder))
                if rule.step in classes]
    if not kept:
        if where is None:
            installed = Path(sys.prefix) / "etc" / "jupyter" / "nbgrader_config.py"
            state = "not read" if installed.is_file() else "missing"
            return (f"no config file sets {setting}, and nbgrader's own has no step that {rule.does}, so "
                    f"{rule.otherwise}: the framework's defaults ({installed}) are {state}: install the framework "
                    "again (pip install -e CLONE)")
        return (f"{where}: {setting} has no step that {rule.does}, so {rule.otherwise}: add {rule.fix!r} to it, "
                "or delete the setting")
    problems = [_configured_off(settings, classes, rule) for classes in kept]
    return None if None in problems else problems[0]


def _steps(settings: CourseSettings, rule: Rule) -> list[Any]:
    from traitlets.config import LazyConfigValue

    value = settings.config.get(rule.section, {}).get("preprocessors")
    if value is None:
        return list(rule.default)
    if isinstance(value, LazyConfigValue):  # `c.X.preprocessors.append(...)` over no earlier file's list
        return list(value.get_value(list(rule.default)))
    return list(value)


def _classes_of(steps: list[Any], by_name) -> list[tuple[str, ...]]:
    """Each step's classes, most derived first: a step named by a string through `by_name`, a class itself."""
    return [classes for step in steps if (classes := by_name(step) if isinstance(step, str) else _mro(step))]


def _imported(name: str, course: Path) -> tuple[str, ...]:
    """The classes of a step of the course's own: nbgrader imports it with the course folder on sys.path."""
    from traitlets.utils.importstring import import_item

    sys.path.insert(0, str(course))
    try:
        return _mro(import_item(name))
    except Exception:  # nbgrader cannot run it either, and says so; it clears nothing
        return ()
    finally:
        sys.path.remove(str(course))


def _mro(cls: Any) -> tuple[str, ...]:
    return tuple(f"{k.__module__}.{k.__qualname__}" for k in getattr(cls, "__mro__", ()))


def _configured_off(settings: CourseSettings, classes: tuple[str, ...], rule: Rule) -> str | None:
    """What configuration stops the step (one of `classes`, most derived first) doing its part, or None."""
    enabled = _in_force(settings, classes, "enabled")
    if enabled and not enabled[1]:
        return (f"{_origin(settings, enabled[0], 'enabled')} = {enabled[1]!r} turns off the step that {rule.does}, "
                f"so {rule.otherwise}: delete that line")
    if rule.step == CLEAR_HIDDEN:
        for key, line in (("begin_test_delimeter", HIDDEN_BEGIN), ("end_test_delimeter", HIDDEN_END)):
            delimiter = _in_force(settings, classes, key)
            if delimiter and str(delimiter[1]) not in line:
                return (f"{_origin(settings, delimiter[0], key)} = {delimiter[1]!r} does not match the hidden tests' "
                        f"line {line!r}, so {rule.otherwise}: delete that line")
    return None


def _in_force(settings: CourseSettings, classes: tuple[str, ...], key: str) -> tuple[str, Any] | None:
    """(section, value) of `key` as traitlets gives it to the step: the most derived class's section setting it."""
    for qualified in classes:
        section = qualified.rsplit(".", 1)[-1]
        values = settings.config.get(section, {})
        if key in values:
            return section, values[key]
    return None


def _origin(settings: CourseSettings, section: str, key: str) -> str:
    path = settings.set_in(section, key)
    return f"{path}: c.{section}.{key}" if path else f"c.{section}.{key}"
