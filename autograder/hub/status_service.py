"""The watcher's health as a page of the hub: `autograder status`'s lines for one course, in the hub's Services
menu of that course's instructors and of the hub's admins (JupyterHub lists a managed service there only when it
serves a URL; `autograder watch` itself serves none). Run by the hub as a managed service, in the course folder;
who may open it is the hub's to say (a role giving the instructors' group `access:services!service=<this one>`).
"""

import html
from datetime import UTC, datetime
from pathlib import Path

# Nothing on the page runs or loads: it is text (a student's name and a submission's name among it, escaped).
STATUS_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8">
<title>autograder watch: {course}</title></head>
<body>
<main>
<h1>autograder watch: {course}</h1>
<p>{state}</p>
<pre>{lines}</pre>
<p>As of {now} UTC: reload the page for the latest (it does not reload itself, which would move a screen reader's
place on it).</p>
</main>
</body>
</html>
"""


def page(course: Path, course_id: str) -> str:
    from autograder.watch.watch_status import status_lines

    lines, running = status_lines(course)
    return PAGE.format(now=f"{datetime.now(UTC):%Y-%m-%d %H:%M:%S}", course=html.escape(course_id),
                       state="The watcher is running." if running else "<strong>No watcher is running.</strong>",
                       lines=html.escape("\n".join(lines)))


def main() -> None:
    from jupyterhub.services.auth import HubOAuthenticated
    from tornado import web

    from autograder.course.settings import read_course
    from autograder.hub.service_app import serve

    course = Path.cwd()
    course_id = read_course(course).course_id

    class StatusPage(HubOAuthenticated, web.RequestHandler):
        @web.authenticated
        def get(self) -> None:
            self.set_header("Content-Security-Policy", STATUS_CSP)
            self.write(page(course, course_id))

    serve([("", StatusPage)])


if __name__ == "__main__":
    main()
