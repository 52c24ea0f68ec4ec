"""The autograded folders, as `nbgrader autograde` leaves them: the executed notebooks, the instructor's
files, the student's other files, and `autograder-result.json`. Each is built beside its place and swapped
in only once its batch's gradebook rows are committed (`recording.Batch`)."""

import fnmatch
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from autograder.course.submitted import UnsafeFile, copy_file, shown
from autograder.grading.model import RESULT_FILE, Outcome

SMALL_FILE = 1 << 20


def _matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, p) for p in patterns)


def regular_files(folder: Path, ignore: list[str]) -> list[Path]:
    """Files under `folder` (relative paths), skipping ignored names and never following a symlink:
    a submission's link to the gradebook or another student's work is not copied."""
    found: list[Path] = []
    _walk(folder, Path(), ignore, found)
    return found


def _walk(folder: Path, rel: Path, ignore: list[str], found: list[Path]) -> None:
    # scandir's entry types come with the listing: no stat per file to tell links and files apart.
    with os.scandir(folder / rel) as entries:
        listed = list(entries)
    for entry in listed:
        if _matches(entry.name, ignore):
            continue
        if entry.is_dir(follow_symlinks=False):
            _walk(folder, rel / entry.name, ignore, found)
        elif entry.is_file(follow_symlinks=False):
            found.append(rel / entry.name)


class InstructorFiles:
    """The instructor's files beside an assignment's notebooks (relative path, content if small), read once
    per grading run (every student's folder gets them); a new run reads them again, as the instructor may
    have changed them meanwhile (the watcher grades round after round)."""

    def __init__(self, source: Path, ignore: list[str]) -> None:
        self.source, self.ignore = source, ignore
        self._files: list[tuple[Path, bytes | None]] | None = None

    def files(self) -> list[tuple[Path, bytes | None]]:
        if self._files is None:
            listed = regular_files(self.source, self.ignore + ["*.ipynb"]) if self.source.is_dir() else []
            self._files = [(rel, (self.source / rel).read_bytes()
                            if (self.source / rel).stat().st_size <= SMALL_FILE else None) for rel in listed]
        return self._files


def stage_autograded(dest: Path, submitted: Path, instructor: InstructorFiles, keep_student: list[str],
                     student_files: list[tuple[Path, int]], notebooks: dict[str, dict[str, Any]],
                     outcome: Outcome) -> Path:
    """Build what `dest` will hold in a hidden folder beside it (same file system, so `swap_in` is a
    rename) and return that folder; `dest` itself is not touched. What the grader writes comes first (the
    instructor's files, as nbgrader puts them over the student's, the executed notebooks, the result
    record), then the student's files as `submitted.list_files` listed them: one that would take the place
    of a file or folder the grader wrote is left out, and said so in the result."""
    if dest.parent.is_symlink():
        raise OSError(f"{dest.parent} is a link: not written through")
    dest.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        made: set[Path] = {Path()}
        written: set[Path] = {Path(RESULT_FILE)}
        for rel, data in instructor.files():
            if str(rel) in keep_student:
                continue
            _make_parent(build, rel, made)
            if data is None:
                shutil.copyfile(instructor.source / rel, build / rel)
            else:
                (build / rel).write_bytes(data)
            written.add(rel)
        for name, nb in notebooks.items():
            # The cells came from a read notebook and plain outputs: nbformat's schema check (milliseconds
            # each) is skipped; the JSON is written as nbformat writes it.
            (build / f"{name}.ipynb").write_bytes(_notebook_json(nb))
            written.add(Path(f"{name}.ipynb"))
        result = outcome.result
        for rel, size in student_files:
            if rel in written and str(rel) not in keep_student:
                continue  # the instructor's copy stays, as in nbgrader
            if rel in written or rel in made or any(parent in written for parent in rel.parents):
                result.ignored.append(f"{shown(str(rel))}: has the name of a file the grader writes: not copied")
                continue
            try:
                _make_parent(build, rel, made)
                copy_file(submitted / rel, build / rel, size)
            except (UnsafeFile, OSError) as exc:
                result.ignored.append(f"{shown(str(rel))}: not copied ({exc})")
        result.save(build)
        os.chmod(build, 0o755)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return build


def _notebook_json(nb: dict[str, Any]) -> bytes:
    """The notebook as nbformat writes it (no indentation: the C encoder is ten times faster, and every
    notebook reader takes it). Text the student's process printed can hold lone surrogates, which UTF-8
    cannot carry: such a notebook is written with escapes, as JSON allows."""
    try:
        return json.dumps(nb, sort_keys=True, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(nb, sort_keys=True).encode("ascii")


def _make_parent(build: Path, rel: Path, made: set[Path]) -> None:
    if rel.parent not in made:
        (build / rel.parent).mkdir(parents=True, exist_ok=True)
        made.add(rel.parent)




def swap_in(build: Path, dest: Path) -> None:
    """Replace `dest` with the staged folder `build` in one rename (the old one is removed after)."""
    try:
        old = None
        if dest.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{dest.name}-old-", dir=dest.parent))
            os.rename(dest, old / "x")
        os.rename(build, dest)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise


def with_outputs(nb: dict[str, Any], outputs: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """The executed notebook: each code cell's outputs and execution count."""
    count = 0
    for cell, cell_outputs in zip(nb["cells"], outputs, strict=False):
        if cell["cell_type"] != "code":
            continue
        count += 1
        cell["outputs"] = cell_outputs
        cell["execution_count"] = count
    return nb
