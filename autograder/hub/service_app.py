"""How a course's page service runs under the hub: a tornado app on the address the hub gave it, its routes under
the service's prefix beside the hub's OAuth callback, until the hub stops it (SIGINT)."""

import os
from typing import Any
from urllib.parse import urlparse


def serve(routes: list[tuple[str, Any]]) -> None:
    """Serve `routes` (path under the service's prefix, handler class; "" is the prefix itself) until stopped."""
    from jupyterhub.services.auth import HubOAuthCallbackHandler
    from jupyterhub.utils import url_path_join
    from tornado import ioloop, web

    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    app = web.Application([*((url_path_join(prefix, path) if path else prefix, handler) for path, handler in routes),
                           (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler)],
                          cookie_secret=os.urandom(32))
    where = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    app.listen(where.port, where.hostname)
    try:
        ioloop.IOLoop.current().start()
    except KeyboardInterrupt:  # the hub stops its services with SIGINT
        pass
