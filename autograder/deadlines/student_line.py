"""The line of a student's feedback page (and of My assignments) that states their deadline and the credit
applied, in plain words: pure; `grades.page_grade` hands it the grade's own credit."""

from datetime import datetime

from autograder.deadlines.schedule import Credit, Outcome, show_duration
from autograder.deadlines.student_deadline import StudentDeadline
from autograder.display.page_markup import Markup, markup, when


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
