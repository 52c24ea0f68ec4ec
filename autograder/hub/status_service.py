"""The watcher's health as a page of the hub: `autograder status`'s lines for one course, in the hub's Services
menu of that course's instructors and of the hub's admins (JupyterHub lists a managed service there only when it
serves a URL; `autograder watch` itself serves none). Run by the hub as a managed service, in the course folder;
who may open it is the hub's to say (a role giving the instructors' group `access:services!service=<this one>`).
"""

import html
import os
from pathlib import Path
from urllib.parse import urlparse

REFRESH_SECONDS = 5  # the page reloads itself: the watcher replaces its status about once a second

PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta http-equiv="refresh" content="{refresh}">
<title>autograder watch: {course}</title></head>
<body>
<main>
<h1>autograder watch: {course}</h1>
<p>{state}</p>
<pre>{lines}</pre>
<p>This page reloads every {refresh} seconds.</p>
</main>
</body>
</html>
"""


def page(course: Path) -> str:
    from autograder.commands.status import report
    from autograder.course.settings import read_course

    lines, running = report(course)
    return PAGE.format(refresh=REFRESH_SECONDS, course=html.escape(read_course(course).course_id),
                       state="The watcher is running." if running else "<strong>No watcher is running.</strong>",
                       lines=html.escape("\n".join(lines)))


def main() -> None:
    from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
    from jupyterhub.utils import url_path_join
    from tornado import ioloop, web

    course = Path.cwd()
    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"]

    class StatusPage(HubOAuthenticated, web.RequestHandler):
        @web.authenticated
        def get(self) -> None:
            self.write(page(course))

    app = web.Application([(prefix, StatusPage), (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler)],
                          cookie_secret=os.urandom(32))
    where = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    app.listen(where.port, where.hostname)
    try:
        ioloop.IOLoop.current().start()
    except KeyboardInterrupt:  # the hub stops its services with SIGINT
        pass


if __name__ == "__main__":
    main()
