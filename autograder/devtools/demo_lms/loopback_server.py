"""What the tests' stand-ins for LMS web services share: an HTTP server on 127.0.0.1 in a thread of its own,
from `with` to its end, that hands every request of the methods it serves to `_dispatch` and answers JSON."""

from __future__ import annotations

import json
import threading
import typing as t
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackServer:
    METHODS: tuple[str, ...] = ("GET", "POST")  # any other is answered 501, as by a server that has no such route
    MEDIA_TYPE = "application/json"

    def __init__(self, port: int = 0) -> None:
        """`port` 0: any free one."""
        self.server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> t.Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _dispatch(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        raise NotImplementedError

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

        for method in self.METHODS:
            setattr(Handler, f"do_{method}", lambda handler, method=method: server._dispatch(handler, method))
        return Handler

    def _send(self, handler: BaseHTTPRequestHandler, status: int, payload: t.Any, media_type: str | None = None,
              headers: dict[str, str] | None = None) -> None:
        """`payload` as JSON (bytes: sent as they are)."""
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", media_type or self.MEDIA_TYPE)
        handler.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(body)
