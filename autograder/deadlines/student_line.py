"""The line of a student's feedback page that states their deadline and the credit applied: `deadline_line`
(the text, pure) and `feedback_deadline_line` (the same read from the gradebook for a feedback page being
made, from nbgrader's resources). `feedback.ScoreSummary` calls the latter, once."""

from datetime import datetime
from typing import Any

from autograder.deadlines.schedule import Credit, Outcome, show_duration
from autograder.deadlines.student_deadline import StudentDeadline
from autograder.page_markup import Markup, markup, when


def deadline_line(deadline: StudentDeadline, arrived: datetime | None, credit: Credit | None) -> Markup:
    """`Due for you: ... Handed in: ..., <credit and why>.` in plain words, each time to the second in UTC and,
    where the page runs scripts, in the reader's own zone (`page_markup.when`)."""
    why = []
    if deadline.extension:
        why.append(f"an extension of {show_duration(deadline.extension)}")
    elif deadline.label and credit is not None and credit.due != deadline.due:
        why.append(f"{show_duration(credit.due - deadline.due)} of extra time, label {deadline.label}")
    due = credit.due if credit is not None else deadline.due
    text = markup("Due for you: ", when(due, seconds=True), (f" ({', '.join(why)})" if why else "") + ".")
    if arrived is None or credit is None:
        return text
    text = markup(text, " Handed in: ", when(arrived, seconds=True))
    if credit.outcome is Outcome.ON_TIME:
        return markup(text, ", on time: full credit.")
    late = f", {show_duration(credit.late_by)} late"
    if credit.outcome is Outcome.PRACTICE:
        return markup(text, late + ": after the last late deadline, so this is practice: graded, but the score "
                      "does not count.")
    if credit.outcome is Outcome.NOT_ACCEPTED:
        return markup(text, late + ": after the last late deadline, so it is not accepted: the score does not count.")
    return markup(text, late + f": {credit.credit:.0%} of the score counts (the course's late-credit schedule).")


def feedback_deadline_line(nbgrader: dict[str, Any], config: Any) -> Markup | None:
    """The line for the feedback page being made (`resources["nbgrader"]`: its assignment, student and
    gradebook), None when the assignment has no due date or the gradebook cannot be read."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    from autograder.deadlines.rules import SECTION, rules_from
    from autograder.deadlines.schedule import DeadlineError
    from autograder.deadlines.student_deadline import read_arrival, read_deadline

    assignment, student, db_url = nbgrader.get("assignment"), nbgrader.get("student"), nbgrader.get("db_url")
    if not (assignment and student and db_url):
        return None
    nbgrader_rule = config.get("LateSubmissionPlugin", {}).get("penalty_method")
    try:
        rules = rules_from({**config.get(SECTION, {}), **({"penalty_method": nbgrader_rule} if nbgrader_rule else {})})
    except DeadlineError:
        return None  # the grading commands refuse such settings, in one line; the page goes without this line
    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            def rows(sql: str, params: dict[str, Any]) -> list[tuple]:
                return [tuple(row) for row in connection.execute(text(sql), params).fetchall()]

            deadline = read_deadline(rows, assignment, student)
            if deadline is None:
                return None
            arrived = read_arrival(rows, assignment, student)
    except Exception:  # a table of ours not made yet, a server gone: the page goes without this line
        return None
    finally:
        engine.dispose()
    return deadline_line(deadline, arrived, deadline.credit(rules, assignment, arrived) if arrived else None)
