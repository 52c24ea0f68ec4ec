"""The client side: a connection to a Dask scheduler that the class scheduler (`classgrade.grade_class`)
submits jobs to, as it does to the local pool. Jobs stay plain data (`engine.Job` carries the instructor's
modules and limits); outcomes come back to this process, where the one gradebook writer records them.

How many jobs are in flight is `grade_class`'s (`ClassRun.fill`: a few per worker). A worker that dies is
Dask's to handle: the scheduler runs its tasks again elsewhere, and each task's future completes once, so
each outcome is recorded once. A scheduler that goes away is not: every job still out fails with
`ClusterLost`, which stops the run after what was graded is committed.
"""

import logging
from concurrent.futures import Future
from functools import partial
from typing import Any

from autograder.classgrade import ClassError

CONNECT_SECONDS = 10.0


class ClusterLost(ClassError):
    """The scheduler went away mid-run: one line for the user, and the run stops."""


class ClusterExecutor:
    """What `grade_class` needs of an executor: `submit(fn, *args)` giving a `concurrent.futures.Future`,
    and `shutdown`. `workers` is how many jobs the cluster runs at once (one per worker process)."""

    def __init__(self, client: Any, address: str, workers: int) -> None:
        from autograder.cluster.plugin import on_worker

        self.client, self.address, self.workers = client, address, workers
        self._on_worker = on_worker
        self._executor = client.get_executor(pure=False)  # each job a task of its own, never deduplicated
        self.lost = False
        self.closed = False

    def submit(self, fn: Any, *args: Any) -> Future:
        outer: Future = Future()
        if not self.lost:
            try:
                inner = self._executor.submit(self._on_worker, fn, *args)
            except Exception:  # the client closed itself after losing the scheduler
                self.lost = True
            else:
                inner.add_done_callback(partial(self._settle, outer))
                return outer
        outer.set_exception(self._lost())
        return outer

    def _settle(self, outer: Future, inner: Future) -> None:
        # Dask cancels every future of a client that lost its scheduler (and only then, or at our shutdown).
        if inner.cancelled():
            self.lost = True
            outer.set_exception(self._lost())
        elif inner.exception() is not None:
            outer.set_exception(inner.exception())
        else:
            outer.set_result(inner.result())

    def _lost(self) -> ClusterLost:
        return ClusterLost(f"lost the Dask scheduler at {self.address}: grading stopped; what was graded is "
                           "recorded, and the next run grades the rest")

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Let go of the cluster: jobs not done are dropped (`grade_class` has recorded all it waits for).
        The workers keep their plugin, and with it a warm zygote for the next run."""
        if self.closed:
            return
        self.closed = True
        self._executor.shutdown(wait=False)
        self.client.close(timeout=CONNECT_SECONDS)


def connect(address: str, hide: list[str], assignments: list[str]) -> ClusterExecutor:
    """A client of the scheduler at `address` whose workers have the grader plugin (`plugin.GraderPlugin`);
    `ClassError`, one line, when it cannot be reached, has no workers, or a worker cannot grade."""
    try:
        from distributed import Client
    except ImportError:
        raise ClassError("--cluster needs Dask's distributed package: pip install 'autograder[cluster]'") from None
    from autograder.cluster.plugin import GraderPlugin

    # The command reports a lost scheduler in one line of its own: Dask's log lines about it would only
    # repeat it, with tracebacks.
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except Exception as exc:
        raise ClassError(f"cannot reach the Dask scheduler at {address}: {_one_line(exc)}") from None
    try:
        client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        client.register_plugin(GraderPlugin(hide, assignments))
        workers = len(client.scheduler_info(n_workers=-1)["workers"])
    except Exception as exc:
        client.close(timeout=CONNECT_SECONDS)
        if isinstance(exc, TimeoutError):
            raise ClassError(f"no Dask worker joined the scheduler at {address} within {CONNECT_SECONDS:g} s") \
                from None
        raise ClassError(f"the Dask workers at {address} cannot grade: {_one_line(exc)}") from None
    return ClusterExecutor(client, address, max(workers, 1))


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300]
