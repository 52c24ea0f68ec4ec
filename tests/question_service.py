"""Our hub services' handlers on a loopback port, in a thread, for a test: whose page it is comes from the
`X-Test-User` header (the hub's OAuth user, in the real services)."""

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def test_user(handler: Any) -> str | None:
    return handler.request.headers.get("X-Test-User")


def question_routes(course: Path, prefix: str = "/grade/") -> list[tuple]:
    """Grade by question's routes for `course`, under `prefix`."""
    from autograder.hub.grade_by_question_service import Course, routes

    return [(f"{prefix}{path}", handler, kwargs) for path, handler, kwargs in routes(Course(course), test_user)]


@contextlib.contextmanager
def serving(routes: list[tuple]) -> Iterator[str]:
    """`http://127.0.0.1:<port>` serving `routes` (with XSRF cookies, as the services have) while the block runs."""
    from tornado import web
    from tornado.httpserver import HTTPServer

    started, state = threading.Event(), {}

    def run() -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        server = HTTPServer(web.Application(routes, cookie_secret="x" * 32, xsrf_cookies=True))
        server.listen(0, "127.0.0.1")
        state["port"] = next(iter(server._sockets.values())).getsockname()[1]
        state["loop"] = asyncio.get_event_loop()
        started.set()
        state["loop"].run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    started.wait(30)
    try:
        yield f"http://127.0.0.1:{state['port']}"
    finally:
        state["loop"].call_soon_threadsafe(state["loop"].stop)
        thread.join(10)


@contextlib.contextmanager
def serving_questions(course: Path) -> Iterator[str]:
    """Grade by question for `course` alone: its URL (`http://127.0.0.1:<port>/grade/`)."""
    with serving(question_routes(course)) as url:
        yield f"{url}/grade/"
