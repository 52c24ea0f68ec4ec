"""A loopback listener that counts who connects to it: the attack suites give its port to code that tries to
reach the network from inside the sandbox, and expect no connection at all."""

import contextlib
import socket
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def counting_listener() -> Iterator[tuple[int, list]]:
    """(the port, the connections accepted so far); the listener closes when the block ends."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    connections: list = []

    def accept() -> None:
        while listener.fileno() >= 0:
            try:
                connections.append(listener.accept())
            except (TimeoutError, OSError):
                continue

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1], connections
    finally:
        listener.close()
