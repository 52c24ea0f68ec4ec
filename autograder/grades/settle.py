"""The one path by which a change of a grade's facts is finished: whatever changed them (a grading run, an
extension, a label, an override, a score typed in the formgrader, a schedule or due date edited), the stored late
penalty of every submission it touches is derived again by `arithmetic`, and its counted score queued for the LMS
(`lms.outbox`), in the caller's transaction: the gradebook never holds a penalty its facts do not give.

`sql` is any `lms.outbox.Sql` (the writer's connection, or nbgrader's session): rows and writes with named
parameters, in the caller's open transaction. Nothing here commits.
"""

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from traitlets.config import Config
from traitlets.utils.importstring import import_item

from autograder.deadlines.rules import LateRules
from autograder.deadlines.tables import SETTLED_TABLE
from autograder.grades.arithmetic import Grade, PenaltyRule, grade_of
from autograder.grades.facts import assignment_names, read_facts

# The framework's late-penalty plugin (`course.defaults`): its penalty is the course's schedule, which
# `arithmetic` computes itself; any other class a course configures is asked as nbgrader asks it.
FRAMEWORK_PLUGIN = "autograder.deadlines.late_plugin.LateCredit"


@dataclass(frozen=True)
class GradeRules:
    """What a course's grades are derived with, besides the gradebook's facts: its late rules and, when the
    course replaced the framework's late-penalty plugin, that plugin's class and settings."""

    rules: LateRules
    config: Any = None  # the course's nbgrader settings (traitlets), for a plugin of its own

    @classmethod
    def of(cls, config: Any) -> "GradeRules":
        """The rules of a course's nbgrader settings (`c.LateCredit.*`, and nbgrader's own
        `c.LateSubmissionPlugin.penalty_method`); DeadlineError (one line) for a value that makes no sense."""
        from autograder.deadlines.rules import SECTION, rules_from

        config = config if config is not None else Config()
        nbgrader_rule = config.get("LateSubmissionPlugin", {}).get("penalty_method")
        own = {"penalty_method": nbgrader_rule} if nbgrader_rule else {}
        return cls(rules_from({**config.get(SECTION, {}), **own}), config)

    @property
    def plugin_class(self) -> Any:
        config = self.config if self.config is not None else Config()
        found = config.get("AssignLatePenalties", {}).get("plugin_class", FRAMEWORK_PLUGIN)
        return found if isinstance(found, str) else f"{found.__module__}.{found.__qualname__}"

    def plugin(self, assignment: str, rows: Any) -> PenaltyRule | None:
        """The course's own late-penalty plugin for `assignment`, made as nbgrader's AssignLatePenalties makes
        it; None when it is the framework's (the schedule decides)."""
        if self.plugin_class == FRAMEWORK_PLUGIN:
            return None
        from autograder.deadlines.late_plugin import LateContext  # loads nbgrader: only for a plugin of the course's

        config = self.config if self.config is not None else Config()
        found = config.get("AssignLatePenalties", {}).get("plugin_class")
        plugin_class = import_item(found) if isinstance(found, str) else found
        return plugin_class(parent=LateContext(assignment, rows, config=config)).late_submission_penalty

    def grades(self, rows: Any, assignment: str, students: Iterable[str] | None = None,
               labels: bool = True) -> dict[str, Grade]:
        """Each submission's grade of `assignment` as its facts give it now, by student."""
        facts = read_facts(rows, assignment, students, labels)
        plugin = self.plugin(assignment, rows) if facts else None
        return {student: grade_of(found, self.rules, plugin) for student, found in facts.items()}


def settle(sql: Any, pairs: Iterable[tuple[str, str]], origin: str, grade_rules: GradeRules) -> list[Grade]:
    """Derive again the stored late penalties of each (assignment, student) in `pairs`, record what each grade
    says now, and queue their counted scores for the LMS when they changed (`origin`: what changed them, as the
    outbox records it). The grades."""
    return [grade for grade, _ in _settle(sql, pairs, origin, grade_rules)]


def settle_changes(sql: Any, pairs: Iterable[tuple[str, str]], origin: str, grade_rules: GradeRules) -> list[Grade]:
    """`settle`; the grades that now say something else than when they were last settled (a page made before
    says another number)."""
    return [grade for grade, changed in _settle(sql, pairs, origin, grade_rules) if changed]


def _settle(sql: Any, pairs: Iterable[tuple[str, str]], origin: str, grade_rules: GradeRules,
            changed_only: bool = False) -> list[tuple[Grade, bool]]:
    """`settle`, each grade with whether it says something else than when it was last settled (a penalty stored
    that its facts no longer give, or a statement recorded that differs; a first statement is not a change).
    `changed_only`: the LMS is told of the changed ones only (the others were queued when they were made)."""
    from autograder.grades.outbox import record_changes

    by_assignment: dict[str, set[str]] = {}
    for assignment, student in pairs:
        by_assignment.setdefault(assignment, set()).add(student)
    settled: list[tuple[Grade, bool]] = []
    for assignment, students in sorted(by_assignment.items()):
        said = dict(sql.rows(f"SELECT student_id, statement FROM {SETTLED_TABLE} WHERE assignment = :a",
                             {"a": assignment}))
        renewed = []
        for student, grade in sorted(grade_rules.grades(sql.rows, assignment, students).items()):
            if grade.stale:
                store_penalties(sql, grade)
            digest = hashlib.sha256(grade.statement.encode()).hexdigest()
            if said.get(student) != digest:
                renewed.append({"a": assignment, "s": student, "d": digest})
            settled.append((grade, grade.stale or said.get(student, digest) != digest))
        if renewed:
            sql.write(f"DELETE FROM {SETTLED_TABLE} WHERE assignment = :a AND student_id = :s",
                      [{"a": r["a"], "s": r["s"]} for r in renewed])
            sql.write(f"INSERT INTO {SETTLED_TABLE} (assignment, student_id, statement) VALUES (:a, :s, :d)", renewed)
    record_changes(sql, [(g.facts.assignment, g.facts.student) for g, changed in settled
                         if changed or not changed_only], origin)
    return settled


def store_penalties(sql: Any, grade: Grade) -> None:
    """The late penalty of each of the submission's notebooks, as `grade` derives it (nbgrader's column)."""
    sql.write("UPDATE submitted_notebook SET late_submission_penalty = :p WHERE id IN (SELECT sn.id FROM "
              "submitted_notebook sn JOIN notebook n ON sn.notebook_id = n.id JOIN submitted_assignment sa ON "
              "sn.assignment_id = sa.id JOIN assignment a ON sa.assignment_id = a.id "
              "WHERE a.name = :a AND sa.student_id = :s AND n.name = :n)",
              [{"p": penalty, "a": grade.facts.assignment, "s": grade.facts.student, "n": notebook}
               for notebook, penalty in grade.penalties.items()])


def settle_student(sql: Any, student: str, origin: str, grade_rules: GradeRules) -> list[Grade]:
    """Every assignment of `student` settled (a label changes all their due dates)."""
    from autograder.grades.facts import submitted_assignments

    return settle(sql, [(a, student) for a in submitted_assignments(sql.rows, student)], origin, grade_rules)


def settle_stale(sql: Any, grade_rules: GradeRules) -> list[Grade]:
    """Every grade that says something else than when it was last settled, settled: a change made where no
    command of ours could settle it (a due date moved with `nbgrader db assignment add --duedate`, the late rules
    edited in `nbgrader_config.py`, a score typed in the formgrader). Run by each command that opens the course's
    gradebook, in its transaction; the grades that changed (their pages are out of date)."""
    pairs = [(assignment, student) for assignment in assignment_names(sql.rows)
             for student in grade_rules.grades(sql.rows, assignment)]
    return [grade for grade, changed in _settle(sql, pairs, "rederived", grade_rules, changed_only=True) if changed]


def settle_course(gradebook: Any, settings: Any) -> list[Grade]:
    """`settle_stale` on a course's gradebook opened with nbgrader's `Gradebook` (`settings`: its
    `CourseSettings`), committed: what a command that reads the grades runs first, so that what it reads is
    what the facts give now."""
    from autograder.grades.outbox import SessionSql
    from autograder.migrations import upgrade

    upgrade(gradebook.engine)  # the outbox's table, where a settled change is queued
    try:
        changed = settle_stale(SessionSql(gradebook.db), GradeRules(settings.late_rules, settings.config))
        gradebook.db.commit()  # also the first statement of each grade, when this gradebook has none yet
    except BaseException:
        gradebook.db.rollback()
        raise
    return changed
