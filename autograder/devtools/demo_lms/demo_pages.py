"""The demo LMS's pages: plain HTML, no script but the one that posts a launch (with a button for browsers
without scripts), every text escaped (a score's comment is the tool's text)."""

from __future__ import annotations

import typing as t
from datetime import UTC, datetime
from html import escape

from .demo_course import DemoCourse, DemoPerson
from .lti_platform import Store


class ShownLms(t.Protocol):
    """What the pages show of the demo LMS (demo_platform.DemoLms, which renders them): its course, the links
    each person clicks, and the scores the tool sent."""

    store: Store

    @property
    def course(self) -> DemoCourse: ...

    @property
    def launchable(self) -> tuple[str, ...]: ...

    def launch_link(self, person: DemoPerson, assignment: str) -> str: ...

    def add_tool_link(self, person: DemoPerson) -> str: ...

    def person_named(self, sub: str) -> str: ...

STYLE = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5;
color:#1b1b1b;background:#fff}a{color:#0b4f9c}table{border-collapse:collapse}th,td{border:1px solid #767676;
padding:.3rem .6rem;text-align:left}td.number{text-align:right}"""


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n"
            f"<body>\n{body}\n</body>\n</html>\n")


def course_page(lms: ShownLms) -> str:
    course = lms.course
    sections = []
    for assignment in lms.launchable:
        links = "".join(
            f'<li><a href="{escape(lms.launch_link(person, assignment))}">Open {escape(assignment)} as '
            f"{escape(person.name)} ({person.role_name})</a></li>"
            for person in course.people)
        sections.append(f"<section><h2>{escape(assignment)}</h2><ul>{links}</ul></section>")
    if not sections:
        sections.append("<p>This course has no assignments yet.</p>")
    adders = "".join(f'<li><a href="{escape(lms.add_tool_link(person))}">Add the tool (link an assignment) as '
                     f"{escape(person.name)} ({person.role_name})</a></li>" for person in course.people
                     if person.role_name == "instructor")
    if adders:
        sections.append(f"<section><h2>Add the course's tool</h2><ul>{adders}</ul></section>")
    body = (f'<header><p>Demo LMS</p></header><main><h1>{escape(course.title)}</h1>'
            f"<p>Each link opens the assignment in the course's JupyterHub by an LTI 1.3 launch, as the person "
            f"named: the instructor's opens the course's tools, a student's their own server.</p>"
            f'{"".join(sections)}'
            f'<p><a href="/gradebook">The LMS gradebook: the scores the course sent back</a></p></main>')
    return _page(course.title, body)


def gradebook_page(lms: ShownLms) -> str:
    rows = []
    for (number, user), history in sorted(lms.store.scores.items()):
        item = lms.store.lineitems.get(number, {})
        score = history[-1]
        given = score.get("scoreGiven")
        when = score.get("timestamp", "")
        try:
            when = datetime.fromisoformat(when).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        except ValueError:
            pass
        rows.append(f"<tr><td>{escape(str(item.get('label', number)))}</td><td>{escape(lms.person_named(user))}</td>"
                    f'<td class="number">{escape(str(given)) if given is not None else "no score"}</td>'
                    f'<td class="number">{escape(str(score.get("scoreMaximum", "")))}</td>'
                    f"<td>{escape(str(score.get('comment', '')))}</td><td>{escape(when)}</td></tr>")
    table = ('<table><caption>Scores received through Assignment and Grade Services</caption><thead><tr>'
             '<th scope="col">Assignment</th><th scope="col">Student</th><th scope="col">Score</th>'
             '<th scope="col">Out of</th><th scope="col">Comment</th><th scope="col">Sent</th></tr></thead>'
             f"<tbody>{''.join(rows)}</tbody></table>") if rows else "<p>No scores received yet.</p>"
    body = (f'<header><p>Demo LMS</p></header><main><h1>Gradebook of {escape(lms.course.title)}</h1>{table}'
            f'<p><a href="/">Back to the course</a></p></main>')
    return _page("Gradebook", body)


def launch_form_page(action: str, id_token: str, state: str) -> str:
    body = (f'<main><h1>Opening the course</h1><form id="launch" method="post" action="{escape(action)}">'
            f'<input type="hidden" name="id_token" value="{escape(id_token)}">'
            f'<input type="hidden" name="state" value="{escape(state)}">'
            f'<button type="submit">Continue to the course</button></form></main>'
            f'<script>document.getElementById("launch").submit();</script>')
    return _page("Opening the course", body)


def refusal_page(message: str) -> str:
    return _page("Launch refused", f"<main><h1>Launch refused</h1><p>{escape(message)}</p></main>")
