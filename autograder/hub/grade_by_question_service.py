"""Grade by question: a managed service of the hub beside My assignments, for a course's instructors and TAs
(docs/instructors/grade-by-question.md says why here and not in the formgrader).

`<prefix>?assignment=A&notebook=N&cell=C`: the question's page (`by_question.page`), every answer grouped
(`by_question.answer_groups`); `POST <prefix>apply`, `<prefix>items`, `<prefix>items/<id>`: the rubric's changes
(`by_question.rubric`), each in one transaction of the gradebook, refused whole (409, one line) when another grader
changed what it names since the page was loaded. Who grades is the hub's OAuth user (`user_of`), never the request.

Regrade requests (`by_question.regrade_requests`): the first page counts the open ones by question (an autograded
question asked about is listed too, its page showing its requests only); `POST <prefix>requests/<id>` answers one,
closing it, and a new score is an override through the exception store (`course_exceptions`, as `autograder
override` makes one), its reason the request, the answer and the override committed together.
"""

import json
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tornado import web

from autograder.by_question.answer_groups import group_answers
from autograder.by_question.class_answers import read_answers, read_code_answers
from autograder.by_question.page import index_page, policy, question_page, requests_page, requests_section
from autograder.by_question.regrade_requests import (
    AlreadyAnswered,
    RequestError,
    answer_request,
    open_counts,
    overridden,
    question_points,
    question_scores,
    requests_about,
)
from autograder.by_question.rubric import Conflict, Question, QuestionGrading, RubricError

MAX_BODY = 64 << 10


class Course:
    """The course a service grades: its folder, gradebook engine and grade rules, opened once."""

    def __init__(self, root: Path) -> None:
        from sqlalchemy import create_engine

        from autograder.course.settings import read_course
        from autograder.grades.settle import GradeRules
        from autograder.migrations import upgrade

        self.settings = read_course(root)
        upgrade(self.settings.db_url)
        self.engine = create_engine(self.settings.db_url)
        self.rules = GradeRules.of(self.settings.config)

    def grading(self, session: Any, question: Question, user: str) -> QuestionGrading:
        from autograder.grades.outbox import SessionSql

        return QuestionGrading(SessionSql(session), question, self.rules, user)

    def session(self) -> Any:
        from sqlalchemy.orm import Session

        return Session(self.engine)


class _Base(web.RequestHandler):
    def initialize(self, course: Course, user_of: Callable[[web.RequestHandler], str | None]) -> None:
        self.course, self.user_of = course, user_of

    def get_current_user(self) -> Any:
        # The hub's OAuth mixin, first in the service's classes, answers before this; with it `web.authenticated`
        # sends a browser without the hub's cookie to the hub's login, rather than refusing it.
        return self.user_of(self)

    def grader(self) -> str:
        user = self.user_of(self)
        if not user:
            raise web.HTTPError(403)
        return user

    def question(self, source: dict[str, str]) -> Question:
        try:
            return Question(str(source["assignment"]), str(source["notebook"]), str(source["cell"]))
        except KeyError as missing:
            raise web.HTTPError(400, f"no {missing.args[0]} given") from None


class QuestionPage(_Base):
    @web.authenticated
    def get(self) -> None:
        user = self.grader()
        if not any(self.get_argument(k, "") for k in ("assignment", "notebook", "cell")):
            self.index()
            return
        args = {k: self.get_argument(k, "") for k in ("assignment", "notebook", "cell")}
        question = self.question(args)
        key = (question.assignment, question.notebook, question.cell)
        from autograder.grades.outbox import SessionSql

        with self.course.session() as session:
            sql = SessionSql(session)
            found = question_points(sql, *key)
            if found is None:
                raise web.HTTPError(404, f"{question.assignment} has no grade cell {question.cell!r} in "
                                         f"{question.notebook}")
            max_score, by_hand = found
            asked = requests_about(sql, *key)
            # An autograded exercise's page shows the whole class's code, with each student's score.
            scores = question_scores(sql, *key, {r.student for r in asked} if by_hand else None)
            if by_hand:
                grading = self.course.grading(session, question, user)
                items, answers = grading.items(), grading.answers()
                held = frozenset(overridden(sql, *key))
        nonce = secrets.token_urlsafe(16)
        self.set_header("Content-Security-Policy", policy(nonce))
        self.set_header("Cache-Control", "no-store")
        base = self.request.path.rstrip("/") + "/" if not self.request.path.endswith("/") else self.request.path
        if not by_hand:  # an autograded exercise: its requests, and the class's code by named mistake
            code = read_code_answers(self.course.settings.path("autograded", ".", ".").resolve(),
                                     question.assignment, question.notebook, question.cell, sorted(scores))
            self.finish(requests_page(question, max_score, asked, scores, base, self.xsrf_token.decode(), nonce,
                                      user, group_answers(code, code=True)))
            return
        written = read_answers(self.course.settings.path("autograded", ".", ".").resolve(), question.assignment,
                               question.notebook, question.cell, sorted(answers))
        self.finish(question_page(question, max_score, group_answers(written, code=False), items, answers,
                                  base, self.xsrf_token.decode(), nonce, user,
                                  requests_section(asked, scores, max_score), held))


    def index(self) -> None:
        from sqlalchemy import text

        # nbgrader's answer graded by hand: a grade cell and a solution cell of one name in one notebook; any
        # other grade cell is an autograded exercise's checks.
        with self.course.engine.connect() as connection:
            found = connection.execute(text(
                "SELECT a.name, n.name, b.name, g.max_score, EXISTS (SELECT 1 FROM solution_cells s JOIN base_cell"
                " sb ON sb.id = s.id WHERE sb.notebook_id = n.id AND sb.name = b.name) FROM grade_cells g"
                " JOIN base_cell b ON b.id = g.id JOIN notebook n ON b.notebook_id = n.id"
                " JOIN assignment a ON n.assignment_id = a.id"
                " ORDER BY a.duedate IS NULL, a.duedate, a.name, n.name, b.name")).fetchall()
            from autograder.deadlines.tables import REGRADE_TABLE

            reader = SimpleNamespace(rows=lambda sql, params=None: [
                tuple(r) for r in connection.execute(text(sql), params or {}).fetchall()])
            waiting = open_counts(reader) if REGRADE_TABLE in (self.course.settings.gradebook_tables() or ()) else {}
            # Each written question's progress, as the one arithmetic reads it: an answer is graded once not pending.
            progress = {}
            for a, n, c, _, by_hand in found:
                if by_hand:
                    scores = question_scores(reader, a, n, c, None)
                    progress[(a, n, c)] = (sum(v is not None for v in scores.values()), len(scores))
        nonce = secrets.token_urlsafe(16)
        self.set_header("Content-Security-Policy", policy(nonce))
        self.set_header("Cache-Control", "no-store")
        questions = [((Question(a, n, c), float(points or 0)), bool(by_hand)) for a, n, c, points, by_hand in found]
        self.finish(index_page([q for q, by_hand in questions if by_hand], nonce, waiting,
                               [q for q, by_hand in questions if not by_hand], progress))


class _Change(_Base):
    def body(self) -> dict[str, Any]:
        if len(self.request.body) > MAX_BODY:
            raise web.HTTPError(413)
        try:
            found = json.loads(self.request.body or b"{}")
        except ValueError:
            found = None
        if not isinstance(found, dict):
            raise web.HTTPError(400, "the request is not a JSON object")
        return found

    def change(self, action: Callable[[QuestionGrading, dict[str, Any]], dict[str, Any]]) -> None:
        user, body = self.grader(), self.body()
        question = self.question({k: self.get_argument(k) for k in ("assignment", "notebook", "cell")})
        try:
            with self.course.session() as session, session.begin():  # one transaction: committed whole, or not at all
                reply = action(self.course.grading(session, question, user), body)
        except Conflict as error:
            self.set_status(409)
            reply = {"error": str(error)}
        except (RubricError, ValueError, TypeError, KeyError) as error:
            self.set_status(400)
            reply = {"error": str(error) if not isinstance(error, KeyError) else f"no {error.args[0]} given"}
        self.finish(reply)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.finish({"error": self._reason})


class Apply(_Change):
    def post(self) -> None:
        def apply(grading: QuestionGrading, body: dict[str, Any]) -> dict[str, Any]:
            seen = body.get("students")
            if not isinstance(seen, dict) or not all(isinstance(v, int) for v in seen.values()):
                raise RubricError("students must map each student to the version of their grade you saw")
            grading.apply(int(body["item"]), seen, bool(body.get("given", True)))
            now = grading.answers()
            return {"students": {s: {"version": now[s].version, "items": sorted(now[s].items)} for s in seen}}
        self.change(apply)


class Items(_Change):
    def post(self, item: str | None = None) -> None:
        def edit(grading: QuestionGrading, body: dict[str, Any]) -> dict[str, Any]:
            if item is None:
                added = grading.add_item(body.get("points"), str(body.get("comment", "")))
                return {"said": f"Item {added.position} added."}
            rescored = grading.edit_item(int(item), int(body.get("version", -1)), body.get("points"),
                                         str(body.get("comment", "")))
            return {"said": f"Item saved; {len(rescored)} answer(s) scored again."}
        self.change(edit)


class Answer(_Change):
    def post(self, request_id: str) -> None:
        """Answer a regrade request, as the grader: closed, and a new score (if any) an override."""
        from autograder.deadlines.exception_store import course_exceptions
        from autograder.deadlines.schedule import DeadlineError
        from autograder.watch.stale_pages import mark_stale

        user, body = self.grader(), self.body()
        given = "" if body.get("score") is None else str(body["score"]).strip()  # a score of 0 is a score
        try:
            score = float(given) if given else None
        except ValueError:
            self.set_status(400)
            self.finish({"error": f"the new score {given[:40]!r} is not a number"})
            return
        try:
            with course_exceptions(self.course.settings.root, mark_stale, user) as exceptions:
                done = answer_request(exceptions, int(request_id), body.get("answer", ""), score)
        except AlreadyAnswered as error:
            self.set_status(409)
            self.finish({"error": str(error)})
            return
        except (RequestError, DeadlineError) as error:
            self.set_status(400)
            self.finish({"error": str(error)})
            return
        changed = (f" {done.student}'s score is now {done.score_after:g} (an override)."
                   if done.score_after is not None else "")
        self.finish({"said": f"Answered {done.student}.{changed}"})


def routes(course: Course, user_of: Callable[[web.RequestHandler], str | None]) -> list[tuple[str, Any, dict]]:
    """The service's routes under its prefix (paths relative to it)."""
    given = {"course": course, "user_of": user_of}
    return [("", QuestionPage, given), ("apply", Apply, given), ("items", Items, given),
            (r"items/(\d+)", Items, given), (r"requests/(\d+)", Answer, given)]


def main() -> None:  # pragma: no cover - run by the hub, as a managed service
    """The hub's service: the course folder is the working directory; who grades is the hub's OAuth user."""
    from urllib.parse import urlparse

    from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
    from jupyterhub.utils import url_path_join
    from tornado import ioloop

    course = Course(Path.cwd())

    def user_of(handler: web.RequestHandler) -> str | None:
        found = handler.current_user
        return found.get("name") if isinstance(found, dict) else None

    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    handlers = [(url_path_join(prefix, path) if path else prefix, type(f"Hub{cls.__name__}", (HubOAuthenticated, cls),
                                                                          {}), kwargs)
                for path, cls, kwargs in routes(course, user_of)]
    app = web.Application([*handlers, (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler)],
                          cookie_secret=os.urandom(32), xsrf_cookies=True)
    where = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    app.listen(where.port, where.hostname)
    try:
        ioloop.IOLoop.current().start()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":  # pragma: no cover
    main()
