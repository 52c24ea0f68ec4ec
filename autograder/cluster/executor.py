"""The client side: a connection to a Dask scheduler that the class scheduler (`grading.scheduler.grade_class`)
submits jobs to, as it does to the local pool. Jobs stay plain data (`grading.model.Job` carries the instructor's
modules and limits); outcomes come back to this process, where the one gradebook writer records them.

How many jobs are in flight is `grade_class`'s (`ClassRun.fill`: a few per slot); they go out in chunks,
one Dask task each. A worker that dies is Dask's to handle: the scheduler runs its tasks again elsewhere,
and each task's future completes once, so each outcome is recorded once. A scheduler that goes away is
not: every job still out fails with `ClusterLost`, which stops the run after what was graded is committed.
"""

import logging
import threading
import time
from concurrent.futures import Future, InvalidStateError
from functools import partial
from pathlib import Path
from typing import Any

from autograder.grading.scheduler import UNFINISHED_PER_SLOT, GradingStopped
from autograder.sandbox.launch import AUTO

CONNECT_SECONDS = 10.0
# A Dask task costs a few ms of CPU across client, scheduler and worker, a sixth of a submission's grading:
# jobs travel in chunks of up to this many, one task each (a chunk goes out smaller when fewer chunks than
# workers are out, so that no worker waits for one to fill).
CHUNK = 16
# Chunks out per worker: one running, the next waiting on it while the first's results travel.
CHUNKS_PER_WORKER = 2
# `grade_class` keeps UNFINISHED_PER_SLOT jobs per slot unfinished: each worker process counts as so many slots
# that its unfinished jobs fill CHUNKS_PER_WORKER chunks.
SLOTS_PER_WORKER = CHUNKS_PER_WORKER * CHUNK // UNFINISHED_PER_SLOT


class ClusterError(Exception):
    """The cluster cannot be used (unreachable, no workers, workers that cannot grade): one line."""


class ClusterLost(GradingStopped):
    """The scheduler went away mid-run: one line for the user, and the run stops."""


class ClusterExecutor:
    """What `grade_class` needs of an executor: `submit(fn, *args)` giving a `concurrent.futures.Future`,
    and `shutdown`. `workers`: the worker processes (each runs one job at a time); `jobs`: the slots
    `grade_class` fills (its `jobs`)."""

    def __init__(self, client: Any, address: str, workers: int) -> None:
        from autograder.cluster.worker_plugin import run_chunk

        self.client, self.address, self.workers = client, address, workers
        self.jobs = workers * SLOTS_PER_WORKER
        self._run_chunk = run_chunk
        self._executor = client.get_executor(pure=False)  # each chunk a task of its own, never deduplicated
        self._lock = threading.Lock()  # submit runs in the caller's thread, _settle in Dask's
        self._waiting: list[tuple[Any, tuple, Future]] = []  # submitted, not yet in a chunk
        self._out = 0  # chunks sent and not finished
        self._unsettled: set[Future] = set()  # every job handed out and not answered yet
        self.lost = False
        self.closed = False
        # Dask cancels a lost client's futures, but not always in a way a waiting executor future hears of
        # (a chunk whose task had started): the client's own state is watched as well.
        threading.Thread(target=self._watch, name="autograder-cluster-watch", daemon=True).start()

    def submit(self, fn: Any, *args: Any) -> Future:
        outer: Future = Future()
        with self._lock:
            lost = self.lost
            if not lost:
                self._waiting.append((fn, args, outer))
                self._unsettled.add(outer)
                outer.add_done_callback(self._forget)
                chunk = self._next_chunk()
        if lost:
            outer.set_exception(self._lost())
        elif chunk:
            self._send(chunk)
        return outer

    def _forget(self, outer: Future) -> None:
        with self._lock:
            self._unsettled.discard(outer)

    def _next_chunk(self) -> list[tuple[Any, tuple, Future]]:
        """The jobs to send now (under the lock): a full chunk, or what waits when workers may be idle."""
        if not self._waiting or (len(self._waiting) < CHUNK and self._out >= self.workers):
            return []
        chunk, self._waiting = self._waiting[:CHUNK], self._waiting[CHUNK:]
        self._out += 1
        return chunk

    def _send(self, chunk: list[tuple[Any, tuple, Future]]) -> None:
        outers = [outer for _, _, outer in chunk]
        try:
            inner = self._executor.submit(self._run_chunk, [(fn, args) for fn, args, _ in chunk])
        except Exception:  # the client closed itself after losing the scheduler
            self._fail()
            return
        inner.add_done_callback(partial(self._settle, outers))

    def _settle(self, outers: list[Future], inner: Future) -> None:
        with self._lock:
            self._out -= 1
            chunk = self._next_chunk()
        # Dask cancels every future of a client that lost its scheduler (and only then, or at our shutdown).
        if inner.cancelled():
            self._fail()
            return
        if inner.exception() is not None:
            for outer in outers:
                outer.set_exception(inner.exception())
        else:
            for outer, (ok, value) in zip(outers, inner.result(), strict=True):
                if ok:
                    outer.set_result(value)
                else:
                    outer.set_exception(value)
        if chunk:
            self._send(chunk)

    def _fail(self) -> None:
        """Every job handed out and not answered (sent, in a chunk, or waiting for one) fails; later ones
        fail as they are submitted."""
        with self._lock:
            self.lost = True
            outers = list(self._unsettled)
            self._waiting = []
        for outer in outers:
            if not outer.done():
                try:
                    outer.set_exception(self._lost())
                except InvalidStateError:  # answered meanwhile, from Dask's thread
                    pass

    def _watch(self) -> None:
        """Fail every job still out once the client has been without its scheduler for CONNECT_SECONDS."""
        since = None
        while not self.closed and not self.lost:
            time.sleep(0.5)
            if self.client.status in ("running", "newly-created"):
                since = None
            elif since is None:
                since = time.monotonic()
            elif time.monotonic() - since > CONNECT_SECONDS:
                self._fail()

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


def connect(address: str, hide: list[str], assignments: list[str], graders: Path | None = None,
            level: str = AUTO) -> ClusterExecutor:
    """A client of the scheduler at `address` whose workers have the grader plugin (`worker_plugin.GraderPlugin`),
    with the course's own graders folder when it has one, and the sandbox level asked for (`sandbox.launch`);
    `ClusterError`, one line, when it cannot be reached, has no workers, or a worker cannot grade."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--cluster needs Dask's distributed package: pip install 'autograder[cluster]'") from None
    from autograder.cluster.worker_plugin import GraderPlugin, pack_graders

    # The command reports a lost scheduler in one line of its own: Dask's log lines about it would only
    # repeat it, with tracebacks.
    # Dask's configuration gives some of its loggers levels of their own (distributed.client: warning).
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name.split(".")[0] == "distributed":
            logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except Exception as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {_one_line(exc)}") from None
    try:
        client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        client.register_plugin(GraderPlugin(hide, assignments, pack_graders(graders) if graders else None, level))
        workers = len(client.scheduler_info(n_workers=-1)["workers"])
    except Exception as exc:
        client.close(timeout=CONNECT_SECONDS)
        if isinstance(exc, TimeoutError):
            raise ClusterError(f"no Dask worker joined the scheduler at {address} within {CONNECT_SECONDS:g} s") \
                from None
        raise ClusterError(f"the Dask workers at {address} cannot grade: {_one_line(exc)}") from None
    return ClusterExecutor(client, address, max(workers, 1))


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300]
