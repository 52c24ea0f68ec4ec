"""The class report's sections on the course's exceptions and roster: who was late and by how much, the
points the late rule took, extensions, labels and overrides; and who left the LMS course."""

from html import escape

from autograder.display.terminal import count
from autograder.report.data import ClassData
from autograder.report.metric_markup import metric, points


def section(data: ClassData) -> str:
    """Who was late and by how much, the points the late rule took, who had an extension or a label, whose
    score was set by hand (`autograder extend / label / override`)."""
    from autograder.deadlines.schedule import show, show_duration

    if not data.deadlines:
        return ""
    rows = [
        f'<tr data-deadline="{escape(row.student)}"><td>{escape(row.student)}</td>'
        f"<td>{escape(show(row.due)) if row.due else '—'}</td>"
        f"<td>{escape(show(row.arrived)) if row.arrived else '—'}</td>"
        f"<td>{escape(show_duration(row.late_by)) if row.late_by else '—'}</td>"
        + metric("penalty", f"-{points(row.penalty)}" if row.penalty else "—", "td", "num")
        + f"<td>{'+' + escape(show_duration(row.extension)) if row.extension else '—'}</td>"
        f"<td>{escape(row.label or '—')}</td><td>{escape(', '.join(row.overrides) or '—')}</td></tr>"
        for row in data.deadlines
    ]
    return (
        "<h2>Deadlines, extensions and overrides</h2>"
        "<table><thead><tr><th>student</th><th>due for them</th><th>handed in</th><th>late by</th>"
        '<th class="num">late penalty</th><th>extension</th><th>label</th><th>overridden</th></tr></thead><tbody>'
        + "".join(rows) + "</tbody></table>"
    )


def left_section(data: ClassData) -> str:
    """Students who left the LMS course (`autograder roster sync`): their grades stay, flagged."""
    if not data.left_course:
        return ""
    return ("<h2>Left the LMS course</h2>"
            + metric("left-course", f"{count(len(data.left_course), 'student')} no longer in the LMS course "
                      f"(grades kept): {', '.join(data.left_course)}", "p", "bad"))
