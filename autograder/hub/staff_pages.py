"""What a student wrote is inert on an instructor's server: a Jupyter server extension, enabled on staff servers
only (hub/user_config.py), that gives every response a Content-Security-Policy and renders the formgrader's
notebooks sanitised.

The hub serves everyone on one origin, and an instructor's server can read the gradebook and act as them, so one
script of a student's running there is a take-over. Two layers, each enough alone against the attacks tried:

- **The policy** (`policy`): script only from the folders the servers' own code is served from (JupyterLab's and
  jupyter_server's `static/`, lab extensions, the formgrader's `static/`), never `/files/`, the formgrader's
  submission files or another user's server, where a student's files are; no inline script but the templates' own,
  which carry a nonce made for each response; no event handler attribute but the exact ones nbgrader's templates
  hold (`'unsafe-hashes'` with their hashes); no plugins, no `<base>`; `eval` on JupyterLab's pages only, which need it.
  It is sent beside jupyter_server's own (`frame-ancestors`): a browser enforces both.
- **The sanitiser** (`inert_html.py`, nh3): markdown cells, HTML, SVG and markdown outputs of the notebook the
  formgrader shows lose script, event handlers and `javascript:` links and stay readable; JavaScript outputs are
  left out (nbconvert's `sanitize_html`). Forced on, whatever the course's config says.

How a template's own inline script is told from a student's: the templates' sources (nbgrader's, nbconvert's,
JupyterLab's, jupyter_server's, all installed files) are read through `NoncedLoader`, which gives each `<script` a
placeholder known only to this server process; what a student wrote is a value rendered into a template, never its
source, so it never gets one. Each response's placeholder becomes that response's nonce.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from typing import Any

from jinja2 import BaseLoader

# Where the servers' own script is served from, under the server's base URL (/user/<name>/).
SCRIPT_FOLDERS = ("static/", "lab/extensions/", "formgrader/static/")
PLACEHOLDER = secrets.token_urlsafe(16)  # 22 characters, as a nonce: the page keeps its length (Content-Length)
SCRIPT_TAG = re.compile(r"<script(?=[\s>])", re.I)
HANDLER = re.compile(r"""\son[a-z]+\s*=\s*"([^"{}]*)\"""", re.I)  # a handler with no template expression in it


class NoncedLoader(BaseLoader):
    """A jinja loader reading templates through `loader`: each `<script` of a template's source gets the
    placeholder nonce, and each constant event handler's hash is kept for the policy."""

    def __init__(self, loader: Any, handlers: set[str]) -> None:
        self.loader, self.handlers = loader, handlers

    def get_source(self, environment: Any, template: str) -> tuple[str, str | None, Any]:
        source, filename, uptodate = self.loader.get_source(environment, template)
        self.handlers.update(HANDLER.findall(source))
        return SCRIPT_TAG.sub(f'<script nonce="{PLACEHOLDER}"', source), filename, uptodate

    def list_templates(self) -> list[str]:
        return self.loader.list_templates()


def policy(host: str, base_url: str, nonce: str, handlers: set[str], path: str = "") -> str:
    """The policy of the response to `path` of the server at `base_url` (its prefix, with a trailing /) reached as
    `host`."""
    folders = " ".join(f"{host}{base_url}{folder}" for folder in SCRIPT_FOLDERS)
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(h.encode()).digest()).decode()}'"
                      for h in sorted(handlers))
    # 'unsafe-eval' on JupyterLab's pages alone: it compiles its settings' schemas (ajv, `new Function`) and shows a
    # blank page without it. Elsewhere (the formgrader, files) none, so no library the page loads evaluates text.
    evaluate = " 'unsafe-eval'" if path.startswith(f"{base_url}lab") else ""
    allowed = f"'nonce-{nonce}'{evaluate} {folders}" + (f" 'unsafe-hashes' {hashes}" if hashes else "")
    return f"script-src {allowed}; object-src 'none'; base-uri 'none'"


def _staff_exporter(exporter: Any) -> Any:
    """The formgrader's HTML exporter (its config: nbgrader's formgrade template) made to show a student's HTML
    inert: markdown cells (which nbgrader's template renders unsanitised) and outputs through `inert_html`, and
    nbconvert's `sanitize_html` on (no JavaScript output is put in the page); its templates read through
    NoncedLoader."""
    from html import escape

    from jinja2 import pass_context
    from nbconvert.exporters import HTMLExporter, TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    from autograder.display.inert_html import inert_html

    class StaffHTMLExporter(HTMLExporter):
        def _create_environment(self):
            environment = super()._create_environment()
            environment.loader = NoncedLoader(environment.loader, _HANDLERS)
            return environment

        @pass_context
        def markdown2html(self, context, source):
            return inert_html(super().markdown2html(context, source))

        def from_notebook_node(self, nb, resources=None, **kw):
            # nbgrader's template puts a cell's grade id, which the student's notebook carries, in attributes as is
            for cell in nb.cells:
                graded = cell.get("metadata", {}).get("nbgrader", {})
                if isinstance(graded.get("grade_id"), str):
                    graded["grade_id"] = escape(graded["grade_id"], quote=True)
            # HTMLExporter's own, but for its last pass (alt text, tabindex in the lab template), which selects with
            # soupsieve, whose patterns fail on Python before 3.11.5 (Debian 12's 3.11.2 runs the instructors'
            # servers when the hub's environment is private: every submission page was an error 500).
            language = nb.metadata.get("language_info", {})
            lexer = language.get("pygments_lexer", language.get("name"))
            self.register_filter("highlight_code",
                                 self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)))
            resources = self._init_resources(resources)
            self.register_filter("filter_data_type", WidgetsDataTypeFilter(
                notebook_metadata=self._nb_metadata, parent=self, resources=resources))
            return TemplateExporter.from_notebook_node(self, nb, resources, **kw)

    staff = StaffHTMLExporter(config=exporter.config)
    staff.sanitize_html = True
    staff.filters = {**staff.filters, "clean_html": inert_html}
    return staff


_HANDLERS: set[str] = set()


def _prepare(settings: dict) -> None:
    """Once every extension has loaded (nbgrader's formgrader makes its exporter and templates as it loads)."""
    if settings.get("autograder_staff_pages_ready"):
        return
    for key, value in list(settings.items()):
        if key.endswith("jinja2_env") and hasattr(value, "loader") and not isinstance(value.loader, NoncedLoader):
            value.loader = NoncedLoader(value.loader, _HANDLERS)
            if value.cache is not None:
                value.cache.clear()  # a template compiled before: compiled again, with its nonces
    if "nbgrader_exporter" in settings:
        settings["nbgrader_exporter"] = _staff_exporter(settings["nbgrader_exporter"])
    settings["autograder_staff_pages_ready"] = True


def _transform(settings: dict, base_url: str) -> type:
    from tornado.web import OutputTransform

    class StaffPolicy(OutputTransform):
        def __init__(self, request: Any) -> None:
            _prepare(settings)
            self.host, self.path = request.host, request.path
            self.nonce = secrets.token_urlsafe(16)

        def _nonced(self, chunk: bytes) -> bytes:
            return chunk.replace(PLACEHOLDER.encode(), self.nonce.encode())

        def transform_first_chunk(self, status_code, headers, chunk, finishing):
            headers.add("Content-Security-Policy", policy(self.host, base_url, self.nonce, _HANDLERS, self.path))
            if PLACEHOLDER.encode() in chunk:  # a page with this response's nonce: never one kept and reused
                headers.pop("Etag", None)
                headers["Cache-Control"] = "no-store"
            return status_code, headers, self._nonced(chunk)

        def transform_chunk(self, chunk: bytes, finishing: bool) -> bytes:
            return self._nonced(chunk)

    return StaffPolicy


def _jupyter_server_extension_points() -> list[dict]:
    return [{"module": "autograder.hub.staff_pages"}]


def _load_jupyter_server_extension(server_app: Any) -> None:
    web_app = server_app.web_app
    # First: it sees the page before any other transform (gzip) changes its bytes.
    web_app.transforms.insert(0, _transform(web_app.settings, web_app.settings["base_url"]))
    server_app.log.info("autograder: staff pages get a Content-Security-Policy and sanitised notebooks")
