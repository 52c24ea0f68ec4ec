"""A student's "My assignments" page, a managed service of the hub (one per course, in its students' Services
menu): each assignment with the due date for them, their graded attempts used and left, the attempt that counts
and a link to their latest feedback. Run by the hub in the course folder, as the hub's user (it reads the
gradebook and the watcher's ledger, closed to students); who may open it is the hub's to say (a role giving the
course's students' group `access:services!service=<this one>`; its instructors have the class report instead).

Whose page it is comes from the hub's OAuth alone: nothing in the URL or the query names a student.

The feedback link is served here, from the exchange's `feedback/` file of the student's own latest attempt (the
file "Fetch Feedback" copies into their home). The page holds the student's own notebook output, which can be any
HTML: it is served with a Content-Security-Policy `sandbox` and `default-src 'none'`, so nothing in it runs
script or loads anything, on the hub's origin or elsewhere (its times then read in UTC, a whole sentence).

`POST <prefix>ask`: a regrade request about one graded question of the student's own (`by_question.
regrade_requests`), from the page's form (Tornado's XSRF token in it); the page lists their requests, open or
answered with the instructor's answer. Everything the student wrote is escaped where it is shown.

It is shown in a frame, under a strip of ours that says which attempt it is and reloads itself (an HTTP
`Refresh`, no script): a tab left open while the student hands in again says, within `STATUS_REFRESH_SECONDS`,
that a newer attempt was graded, with a link to it. The page itself is never reloaded under the reader (a
reload loses their place in it).
"""

import html
import json
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from autograder.by_question.regrade_requests import MAX_TEXT, QuestionScore, Request, RequestError
from autograder.display.page_markup import LOCAL_TIMES, Markup, markup, when
from autograder.display.terminal import count
from autograder.hub.my_assignments import AssignmentRow
from autograder.nbgrader_glue.notebook import exercise_label
from autograder.watch.attempt_policy import Policy
from autograder.watch.standing import Hand, attempt_points, hand_graded_too, window_words

FEEDBACK_PATH = "feedback"  # <prefix>feedback/<assignment>/<attempt>/<page number>: the latest attempt's pages
# The watcher's page names: nbgrader's notebook hash (hex), `.html`; anything else in the ledger is not served.
PAGE_NAME = re.compile(r"[0-9a-f]{16,128}\.html")
# The student's page: framed by our own page only (`frame-ancestors`), running nothing, loading nothing.
FEEDBACK_CSP = ("sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
                "frame-ancestors 'self'")
# Our own frame and strip: no script, nothing loaded but the two frames' pages.
FRAME_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; frame-ancestors 'self'"
STATUS_REFRESH_SECONDS = 30  # how soon an open feedback tab says a newer attempt was graded
ASK_PATH = "ask"  # <prefix>ask: a regrade request (POST)
ASK_ANCHOR = "ask"  # the page's form to ask about a question, which the feedback page's strip links to
MAX_BODY = 16 << 10  # a request's form: a sentence, a question's name

CSS = ("body { font: 16px/1.5 system-ui, sans-serif; color: #1f2933; margin: 0; }"
       " main { max-width: 70em; padding: 1em 1.5em; } h1 { font-size: 1.4em; }"
       " table { border-collapse: collapse; } caption { text-align: left; padding: 0.3em 0; }"
       " th, td { border: 1px solid #9aa5b1; padding: 0.4em 0.6em; text-align: left; vertical-align: top; }"
       " thead th { background: #e4e7eb; } a { color: #0b4f9c; }"
       " .said { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }"
       " form.ask { border: 1px solid #9aa5b1; padding: 0.6em 1em; margin: 0.8em 0; max-width: 46em; }"
       " form.ask label { display: block; margin: 0.4em 0 0.1em; font-weight: 600; }"
       " form.ask select, form.ask textarea { font: inherit; width: 100%; box-sizing: border-box; }"
       " button { font: inherit; margin-top: 0.5em; } .refused { color: #a3251a; font-weight: 600; }")


def attempts_cell(row: AssignmentRow, window: str) -> Markup:
    if not row.attempts:
        used = "No graded attempts yet"
    else:
        used = f"{count(len(row.attempts), 'graded attempt')} in all"
    if row.left is None:
        return markup(used, " (no limit).")
    if row.left:
        return markup(used, f"; {row.used} of {row.limit} used in this {window}: {row.left} left now.")
    slot = when(row.next_slot) if row.next_slot else "later"
    return markup(used, f"; {row.used} of {row.limit} used in this {window}: none left until ", slot, ".")


def counts_cell(row: AssignmentRow, counts: str) -> Markup:
    if row.counting is None:
        if not row.attempts:
            return markup("Nothing yet.")
        return markup("None: your attempts arrived after your last late deadline (practice: graded for feedback, "
                      "not counted).")
    attempt = row.counting
    # The attempt's points in the feedback banner's words: "40 of the 46 autograded points" where the grade
    # also counts answers graded by hand, so that no one reads 40 / 46 beside a total out of 48.
    hand = Hand(row.grade_max, row.pending) if row.grade_max is not None else None
    said = markup(f"Attempt {attempt.number}{':' if hand_graded_too(attempt, hand) else ','} "
                  f"{attempt_points(attempt, hand, rest=False)} (submitted ",
                  when(attempt.submitted), f"; your {counts} graded attempt counts).")
    if row.grade is None or row.grade_max is None:
        return said
    if abs(row.grade - attempt.score) < 1e-9 and abs(row.grade_max - attempt.max_score) < 1e-9 and not row.pending:
        return said
    # The grade differs from what the graders gave the attempt (late credit, an instructor's score, answers graded
    # by hand): the number the gradebook and the LMS hold, as the feedback page's total states it.
    waiting = f"; {row.pending:g} of them still to be graded by your instructor" if row.pending else ""
    return markup(said, f" Your grade: {row.grade:g} / {row.grade_max:g} points{waiting} (your feedback page "
                        "explains it).")


def feedback_cell(row: AssignmentRow) -> Markup:
    latest = row.latest
    if latest is None or not latest.pages:
        return markup("None yet.")
    links = [Markup(f'<a href="{FEEDBACK_PATH}/{quote(row.assignment)}/{latest.number}/{n}">'
                    f"{html.escape(row.assignment)}: attempt {latest.number}"
                    f"{f', page {n}' if len(latest.pages) > 1 else ''}</a>")
             for n in range(1, len(latest.pages) + 1)]
    return markup(*[markup(link, " ") for link in links])


def question_words(question: QuestionScore, several_notebooks: bool) -> str:
    where = f" ({question.notebook})" if several_notebooks else ""
    if question.pending:
        return f"{exercise_label(question.cell)}{where}: not graded yet"
    return f"{exercise_label(question.cell)}{where}: {question.score:g} / {question.max_score:g} points"


@dataclass(frozen=True)
class Refused:
    """A regrade request just refused: said at its assignment's form, which keeps what the student wrote."""

    assignment: str
    reason: str  # one line
    text: str = ""


def ask_anchor(assignment: str) -> str:
    """The id of the form that asks about `assignment`'s questions (the feedback page's strip links to it)."""
    return f"{ASK_ANCHOR}-{quote(assignment, safe='')}"


def ask_forms(rows: list[AssignmentRow], xsrf: str, refused: Refused | None) -> str:
    """A form per graded assignment to ask about one of its questions; `refused`: a request just refused, said at
    its form."""
    e = html.escape
    forms = []
    for number, row in enumerate(r for r in rows if r.questions):
        open_now = {(r.notebook, r.cell) for r in row.requests if r.open}
        several = len({q.notebook for q in row.questions}) > 1
        options = "".join(
            f'<option value="{e(json.dumps([q.notebook, q.cell]))}"'
            f'{" disabled" if q.pending or (q.notebook, q.cell) in open_now else ""}>'
            f'{e(question_words(q, several))}{" (your request is open)" if (q.notebook, q.cell) in open_now else ""}'
            "</option>" for q in row.questions)
        here = refused is not None and refused.assignment == row.assignment
        said = f'<p class="refused" role="alert">Not sent: {e(refused.reason)}</p>' if here else ""
        kept = e(refused.text[:MAX_BODY]) if here else ""
        forms.append(
            f'<form class="ask" id="{e(ask_anchor(row.assignment))}" method="post" action="{ASK_PATH}" '
            f'aria-labelledby="ask-{number}">'
            f'<h3 id="ask-{number}">{e(row.assignment)}</h3>{said}'
            f'<input type="hidden" name="_xsrf" value="{e(xsrf)}">'
            f'<input type="hidden" name="assignment" value="{e(row.assignment)}">'
            f'<label for="ask-{number}-question">Question</label>'
            f'<select id="ask-{number}-question" name="question">{options}</select>'
            f'<label for="ask-{number}-text">Your request, in a sentence or two (at most {MAX_TEXT} characters)</label>'
            f'<textarea id="ask-{number}-text" name="text" rows="3" maxlength="{MAX_TEXT}" required>{kept}</textarea>'
            f'<button type="submit">Ask about {e(row.assignment)}</button></form>')
    if not forms:
        return ""
    return (f'<section aria-labelledby="{ASK_ANCHOR}"><h2 id="{ASK_ANCHOR}">Ask about a question</h2>'
            "<p>If you think a question of yours was graded wrongly, say why: your instructor answers here, and "
            "any change of your score is recorded with your request as its reason. One open request per question "
            "at a time.</p>" + "".join(forms) + "</section>")


def unplaced_refusal(rows: list[AssignmentRow], refused: Refused | None) -> str:
    """A refused request about an assignment that has no form here (nothing of it to ask about), said at the top."""
    if refused is None or any(r.questions and r.assignment == refused.assignment for r in rows):
        return ""
    return f'<p class="refused" role="alert">Your request was not sent: {html.escape(refused.reason)}</p>'


def request_state(request: Request) -> Markup:
    e = html.escape
    if request.open:
        return markup("Open: waiting for your instructor's answer.")
    changed = (f" Your score for {e(exercise_label(request.cell))} changed from {request.score_before:g} to "
               f"{request.score_after:g} points." if request.score_after is not None else " Your score is unchanged.")
    return Markup(f'Answered by {e(request.answered_by or "")}: <p class="said">{e(request.answer or "")}</p>'
                  f"{changed}")


def requests_table(rows: list[AssignmentRow]) -> str:
    asked = [r for row in rows for r in row.requests]
    if not asked:
        return ""
    e = html.escape
    body = "".join(
        f'<tr><td>{e(r.assignment)}: {e(exercise_label(r.cell))}</td><td><p class="said">{e(r.text)}</p></td>'
        f"<td>{request_state(r)}</td></tr>" for r in asked)
    return ('<section aria-labelledby="requests"><h2 id="requests">Your requests</h2><table>'
            "<caption>Your regrade requests, newest first</caption><thead><tr><th scope=\"col\">Question</th>"
            "<th scope=\"col\">You wrote</th><th scope=\"col\">Answer</th></tr></thead>"
            f"<tbody>{body}</tbody></table></section>")


def page(rows: list[AssignmentRow], student: str, course_id: str, policy: Policy, now: datetime,
         lab_url: str, xsrf: str = "", refused: Refused | None = None) -> str:
    """The whole page for `student` (their rows only); `lab_url` is their JupyterLab's (the way back); `xsrf`: the
    token the request forms carry; `refused`: a request just refused (`ask_forms`)."""
    window = window_words(policy)
    body = "".join(
        f"<tr><th scope=\"row\">{html.escape(row.assignment)}</th>"
        f"<td>{row.due or 'No due date.'}</td><td>{attempts_cell(row, window)}</td>"
        f"<td>{counts_cell(row, policy.counts)}</td><td>{feedback_cell(row)}</td></tr>" for row in rows)
    table = ("<table><caption>Your assignments in this course, earliest due first</caption>"
             "<thead><tr><th scope=\"col\">Assignment</th><th scope=\"col\">Due for you</th>"
             "<th scope=\"col\">Graded attempts</th><th scope=\"col\">Counts for your grade</th>"
             f"<th scope=\"col\">Latest feedback</th></tr></thead><tbody>{body}</tbody></table>"
             if rows else "<p>No assignment has been released in this course yet.</p>")
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>My assignments: {html.escape(course_id)}</title><style>{CSS}</style></head><body><main>"
            f"<nav><a href=\"{html.escape(lab_url)}\">Back to JupyterLab</a></nav>"
            f"<h1>My assignments: {html.escape(course_id)}</h1>"
            f"<p>Signed in as {html.escape(student)}. As of {when(now)}: reload the page for the latest.</p>"
            f"{unplaced_refusal(rows, refused)}"
            f"{table}"
            "<p>Your feedback is also in JupyterLab: the Assignments panel's <strong>Fetch Feedback</strong> "
            "copies it into your files.</p>"
            f"{ask_forms(rows, xsrf, refused)}{requests_table(rows)}"
            f"</main>{LOCAL_TIMES}</body></html>")


def latest_attempt(rows: list[AssignmentRow], assignment: str) -> int | None:
    """The number of the latest graded attempt of `assignment` in `rows` (one student's), None without one."""
    row = next((r for r in rows if r.assignment == assignment), None)
    return None if row is None or row.latest is None else row.latest.number


def feedback_page(rows: list[AssignmentRow], exchange_feedback: Path, assignment: str, attempt: int,
                  number: int) -> bytes | None:
    """Page `number` (from 1) of attempt `attempt` of `assignment` in `rows` (one student's), None unless it is
    their latest (only its pages are kept). Opened without following a link: the name is the ledger's, checked, in
    the watcher's own folder."""
    row = next((r for r in rows if r.assignment == assignment), None)
    if row is None or row.latest is None or row.latest.number != attempt or not 1 <= number <= len(row.latest.pages):
        return None
    name = row.latest.pages[number - 1]
    if not PAGE_NAME.fullmatch(name):
        return None
    try:
        descriptor = os.open(exchange_feedback / name, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as page_file:
        return page_file.read()


def feedback_frame(assignment: str, attempt: int, number: int) -> str:
    """Our page around page `number` of `attempt`: a way back, the strip that says whether it is the latest, and the
    student's page in a frame with every sandbox restriction (its own headers say so too)."""
    name = html.escape(assignment)
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Feedback: {name}, attempt {attempt}</title><style>{CSS}"
            " html, body { height: 100%; } body { display: flex; flex-direction: column; }"
            " nav { padding: 0.4em 1.5em; } iframe { border: 0; width: 100%; }"
            " .status { height: 2.8em; border-bottom: 1px solid #9aa5b1; } .page { flex: 1; }</style></head><body>"
            f"<nav><a href=\"../../../\">My assignments</a> · <a href=\"../../../#{html.escape(ask_anchor(assignment))}"
            "\">Ask about a question of this assignment</a></nav>"
            f"<iframe class=\"status\" title=\"Is this your latest feedback?\" src=\"status\"></iframe>"
            f"<iframe class=\"page\" title=\"Feedback on {name}, attempt {attempt}\" sandbox=\"\" "
            f"src=\"{number}/page\"></iframe></body></html>")


def feedback_status(rows: list[AssignmentRow], assignment: str, attempt: int, now: datetime) -> str:
    """The strip above attempt `attempt`'s feedback: the latest graded attempt, or out of date with a link to the
    latest (out of the frame, to the top of the tab)."""
    latest = latest_attempt(rows, assignment)
    if latest is None or latest <= attempt:
        words = markup(f"Attempt {attempt}: your latest graded attempt of {assignment} (checked ", when(now),
                       f", and again every {STATUS_REFRESH_SECONDS} s).")
    else:
        words = markup(Markup("<strong>Out of date:</strong> "),
                       f"attempt {latest} of {assignment} was graded after this one. ",
                       Markup(f'<a href="../{latest}/1" target="_top">Read attempt {latest}\'s feedback</a>.'))
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Attempt {attempt}</title><style>{CSS} body {{ padding: 0.6em 1.5em; }}</style></head>"
            f"<body><p style=\"margin: 0\">{words}</p></body></html>")


@dataclass(frozen=True)
class Site:
    """What the page is made from, read once at start, as the watcher reads them: a change to the course's settings
    takes a restart of the hub."""

    settings: Any  # the course's `CourseSettings`
    policy: Policy
    feedback: Path  # the exchange's feedback folder, where the watcher releases each attempt's pages
    lab_url: str  # the student's JupyterLab, the way back


def handlers(site: Site, who: type) -> list[tuple[str, type]]:
    """The service's routes under its prefix: (path, handler class). `who` is the mixin that says whose page it is
    (`current_user["name"]`): the hub's OAuth (`HubOAuthenticated`) in the service, never the request."""
    from jupyterhub.utils import url_path_join
    from tornado import web

    from autograder.hub.my_assignments import read_rows
    from autograder.watch.ledger import utcnow

    settings, policy, course_id = site.settings, site.policy, site.settings.course_id

    class Base(who, web.RequestHandler):  # type: ignore[misc,valid-type]
        def student(self) -> str:
            return self.current_user["name"]

        def rows(self, now: datetime | None = None) -> list[AssignmentRow]:
            return read_rows(settings, policy, self.student(), now or utcnow())

    class MyPage(Base):
        @web.authenticated
        def get(self) -> None:
            self.show()

        @web.authenticated
        def post(self) -> None:
            """A regrade request, as the student whose page it is; refused: the page again, saying why."""
            self.check_xsrf_cookie()  # the hub's check too, whatever the application's settings
            if len(self.request.body) > MAX_BODY:
                raise web.HTTPError(413)
            assignment, text = self.get_body_argument("assignment", ""), self.get_body_argument("text", "")
            try:
                ask(settings, self.student(), assignment, self.get_body_argument("question", ""), text)
            except RequestError as error:
                self.set_status(400)
                self.show(Refused(assignment, str(error), text))
                return
            self.redirect(f"{self.request.path.rsplit('/', 1)[0]}/#requests", status=303)

        def show(self, refused: Refused | None = None) -> None:
            now = utcnow()
            self.set_header("Cache-Control", "no-store")
            self.finish(page(self.rows(now), self.student(), course_id, policy, now, site.lab_url,
                             self.xsrf_token.decode(), refused))

    class Feedback(Base):
        def serve_html(self, body: str | bytes, policy: str) -> None:
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Content-Security-Policy", policy)
            self.set_header("X-Content-Type-Options", "nosniff")
            self.set_header("Cache-Control", "no-store")
            self.write(body)

    class FeedbackFrame(Feedback):
        @web.authenticated
        def get(self, assignment: str, attempt: str, number: str) -> None:
            rows = self.rows()
            latest = latest_attempt(rows, assignment)
            if feedback_page(rows, site.feedback, assignment, int(attempt), int(number)) is not None:
                self.serve_html(feedback_frame(assignment, int(attempt), int(number)), FRAME_CSP)
            elif latest is not None and latest != int(attempt):
                # An earlier attempt's address (an open tab reloaded, a bookmark): its page was replaced by the
                # latest attempt's, which is where the student is sent, so they never read an old score as new.
                self.redirect(f"../{latest}/1")
            else:
                raise web.HTTPError(404)

    class FeedbackPage(Feedback):
        @web.authenticated
        def get(self, assignment: str, attempt: str, number: str) -> None:
            found = feedback_page(self.rows(), site.feedback, assignment, int(attempt), int(number))
            if found is None:
                raise web.HTTPError(404)
            self.serve_html(found, FEEDBACK_CSP)

    class FeedbackStatus(Feedback):
        @web.authenticated
        def get(self, assignment: str, attempt: str) -> None:
            now = utcnow()
            self.set_header("Refresh", str(STATUS_REFRESH_SECONDS))
            self.serve_html(feedback_status(self.rows(now), assignment, int(attempt), now), FRAME_CSP)

    attempt_path = url_path_join(FEEDBACK_PATH, r"([^/]+)/([0-9]{1,4})")
    return [("", MyPage), (ASK_PATH, MyPage), (url_path_join(attempt_path, r"([0-9]{1,3})"), FeedbackFrame),
            (url_path_join(attempt_path, r"([0-9]{1,3})/page"), FeedbackPage),
            (url_path_join(attempt_path, "status"), FeedbackStatus)]


def ask(settings: Any, student: str, assignment: str, question: str, text: str) -> Request:
    """`student`'s regrade request, written to the course's gradebook in one transaction; `question` is the form's
    value, `[notebook, cell]` as JSON. RequestError (one line) when refused."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session
    from sqlalchemy.pool import NullPool

    from autograder.by_question.regrade_requests import open_request
    from autograder.grades.outbox import SessionSql
    from autograder.migrations import upgrade

    try:
        notebook, cell = json.loads(question)
        if not isinstance(notebook, str) or not isinstance(cell, str):
            raise ValueError
    except (ValueError, TypeError):
        raise RequestError("choose the question you are asking about") from None
    upgrade(settings.db_url)  # the requests' table, in a gradebook no command of this release has opened yet
    engine = create_engine(settings.db_url, poolclass=NullPool)
    try:
        with Session(engine) as session, session.begin():
            return open_request(SessionSql(session), student, assignment, notebook, cell, text)
    finally:
        engine.dispose()


def main() -> None:
    from jupyterhub.services.auth import HubOAuthenticated
    from jupyterhub.utils import url_path_join

    from autograder.course.settings import read_course
    from autograder.hub.service_app import serve
    from autograder.watch.attempt_policy import read_policy
    from autograder.watch.exchange import Exchange

    settings = read_course(Path.cwd())
    # The hub sends /hub/user-redirect/... to the signed-in user's own server (starting it when it is stopped).
    lab_url = url_path_join(os.environ.get("JUPYTERHUB_BASE_URL", "/"), "hub", "user-redirect", "lab")
    site = Site(settings, read_policy(settings.coursedir.config),
                Exchange.from_config(settings.coursedir.config, settings.course_id).feedback, lab_url)
    serve(handlers(site, HubOAuthenticated))


if __name__ == "__main__":
    main()
