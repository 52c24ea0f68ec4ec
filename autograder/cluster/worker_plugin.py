"""The worker side: a Dask worker plugin that makes each worker process a grading worker, as
`grading.pool` makes each process of the local pool one: its own zygote, started before the first
job and restarted with the same hidden paths, and the assignments' graders loaded with their plans.

Everything a worker needs beyond the installed `autograder` package comes with the plugin (the paths the
sandbox hides, a course's own graders folder) or with each job (the instructor's modules, the limits):
nothing is read from the course.
"""

import asyncio
import hashlib
import threading
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker

from autograder.sandbox.launch import AUTO

NAME = "autograder-grader"


class GraderPlugin(WorkerPlugin):
    """Registered by the client (`executor.connect`) on every worker, present and future. A later
    registration under the same name (the next run, another course) replaces it, and its zygote."""

    name = NAME

    def __init__(self, hide: list[str], assignments: list[str], graders: dict[str, bytes] | None = None,
                 level: str = AUTO) -> None:
        self.hide = list(hide)
        self.level = level  # the course's sandbox level (`sandbox.launch`): a worker refuses as the local pool does
        self.assignments = list(assignments)
        self.graders = dict(graders or {})  # a course's own graders folder (`pack_graders`); empty: the package's
        self.lock = threading.Lock()
        self.zygote: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"hide": self.hide, "assignments": self.assignments, "graders": self.graders, "level": self.level}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["hide"], state["assignments"], state["graders"], state["level"])

    async def setup(self, worker: Any) -> None:
        from autograder.graders import use_folder
        from autograder.grading.startup import hidden_paths

        # Dask's statistical profiler samples the worker's threads 100 times a second, taking the GIL from
        # the grading thread: a grading worker is CPU-bound Python, and its profile is of no use here.
        for name in ("profile", "profile-cycle"):
            callback = worker.periodic_callbacks.pop(name, None)
            if callback is not None:
                callback.stop()
        scratch = Path(worker.local_directory)
        graders = unpack_graders(self.graders, scratch) if self.graders else None
        use_folder(graders)
        # The client's paths (its course, when the worker shares its machine) and this machine's own:
        # the graders' package and folder, the home folder and the worker's scratch space.
        self.hide = list(dict.fromkeys([*self.hide, *hidden_paths(scratch, graders)]))
        # Off the event loop, so the worker keeps answering the scheduler while NumPy and the graders load.
        await asyncio.to_thread(self._start)

    def _start(self) -> None:
        from autograder.grading.pool import serve

        self.zygote = serve(self.hide, self.assignments, self.level)

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


def pack_graders(folder: Path) -> dict[str, bytes]:
    """A course's own graders folder (`c.Autograder.graders`) as its Python files by relative path, to travel
    with the plugin: the workers need not see the course's filesystem."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*.py"))
            if path.is_file() and "__pycache__" not in path.parts}


def unpack_graders(files: dict[str, bytes], scratch: Path) -> Path:
    """The packed folder written under the worker's scratch space, in a folder named by its content (a
    worker that serves the same graders again reuses it)."""
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()[:16]
    folder = scratch / "autograder-graders" / digest
    for name, data in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder
