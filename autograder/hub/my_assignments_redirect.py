"""The Launcher's "My assignments" card in a student's JupyterLab: a process jupyter-server-proxy starts at the
card's first click (configured by autograder/hub/user_config.py), answering every request with a redirect to the
student's My assignments page, a hub service. jupyter-server-proxy's launcher entries are the maintained way to
put a card on JupyterLab's Launcher without building a frontend extension; its entries open a proxied process, so
this is that process, and it only points elsewhere.

Run by path with the student's server's Python (it imports the standard library only):
    python my_assignments_redirect.py PORT BASE_URL NAME TARGET
PORT: where jupyter-server-proxy expects it (loopback); BASE_URL: the student's server's (`/user/ada/`); NAME: the
card's jupyter-server-proxy name (its path under BASE_URL); TARGET: the page's absolute path on the hub
(`/services/autograder-my-<course>/`).

The redirect is relative: jupyter-server-proxy rewrites an absolute-path Location into its own prefix, and the hub's
public host is not known here.
"""

import sys
from http.server import BaseHTTPRequestHandler, HTTPServer


def relative_location(base_url: str, name: str, target: str) -> str:
    """`target` (an absolute path) as seen from `<base_url><name>/`, where the browser is when it reads the
    redirect (what the process is asked has the prefix stripped)."""
    depth = len([part for part in f"{base_url}/{name}".split("/") if part])
    return "../" * depth + target.lstrip("/")


def serve(port: int, location: str) -> None:
    class Redirect(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_HEAD = do_GET

        def log_message(self, *args: object) -> None:
            pass  # one line per click in the student's server log says nothing

    HTTPServer(("127.0.0.1", port), Redirect).serve_forever()


def main(argv: list[str]) -> None:
    port, base_url, name, target = argv
    serve(int(port), relative_location(base_url, name, target))


if __name__ == "__main__":
    main(sys.argv[1:])
