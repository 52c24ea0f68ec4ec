"""The worker side: a Dask worker plugin that makes each worker process a grading worker, as
`grading.pool` makes each process of the local pool one: its own zygote, started before the first
job and restarted with the same hidden paths, and the assignments' graders loaded with their plans.

Everything a worker needs beyond the installed `autograder` package comes with the plugin (the paths the
sandbox hides) or with each job (the instructor's modules, the limits): nothing is read from the course.
"""

import asyncio
import threading
from typing import Any

from distributed import WorkerPlugin, get_worker

NAME = "autograder-grader"


class GraderPlugin(WorkerPlugin):
    """Registered by the client (`executor.connect`) on every worker, present and future. A later
    registration under the same name (the next run, another course) replaces it, and its zygote."""

    name = NAME

    def __init__(self, hide: list[str], assignments: list[str]) -> None:
        self.hide = list(hide)
        self.assignments = list(assignments)
        self.lock = threading.Lock()
        self.zygote: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"hide": self.hide, "assignments": self.assignments}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["hide"], state["assignments"])

    async def setup(self, worker: Any) -> None:
        from pathlib import Path

        from autograder.grading.startup import hidden_paths

        # The client's paths (its course, when the worker shares its machine) and this machine's own:
        # the graders' package, the home folder and the worker's scratch space.
        self.hide = list(dict.fromkeys([*self.hide, *hidden_paths(Path(worker.local_directory))]))
        # Off the event loop, so the worker keeps answering the scheduler while NumPy and the graders load.
        await asyncio.to_thread(self._start)

    def _start(self) -> None:
        from autograder.grading.pool import serve

        self.zygote = serve(self.hide, self.assignments)

    def teardown(self, worker: Any) -> None:
        # The worker is closing, or a new registration replaces this one (and may hide other paths).
        if self.zygote is not None:
            self.zygote.close()


def run_chunk(calls: list[tuple[Any, tuple]]) -> list[tuple[bool, Any]]:
    """Each `fn(*args)` of a chunk in this worker process, one at a time (the process has one zygote, which
    serves one job at a time, whatever `--nthreads` the worker was started with): `(True, value)` or
    `(False, exception)` each, so that one job's error is that job's alone."""
    plugin = get_worker().plugins[NAME]
    results: list[tuple[bool, Any]] = []
    with plugin.lock:
        for fn, args in calls:
            try:
                results.append((True, fn(*args)))
            except Exception as exc:
                results.append((False, exc))
    return results
