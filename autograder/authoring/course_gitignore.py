"""The course folder's `.gitignore`: what nbgrader and the framework write there and a course's repository
should not hold (students' work and grades, the watcher's state). `autograder new` writes it, or adds the
lines an existing one lacks; the instructor's `source/`, `release/` and graders stay tracked."""

from pathlib import Path

IGNORED = (
    "gradebook.db",  # the students' grades (and the hidden tests' full source)
    "submitted/",
    "autograded/",
    "feedback/",
    "exports/",
    "reports/",
    ".autograder-watch/",  # the watcher's lock, ledger, status and kept attempts
    ".ipynb_checkpoints/",
    "__pycache__/",
)


def ensure_gitignore(root: Path) -> Path | None:
    """Add to `root/.gitignore` (made if missing) each line of IGNORED it lacks; the file when changed."""
    path = root / ".gitignore"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in IGNORED if line not in present and line.rstrip("/") not in present]
    if not missing:
        return None
    head = "" if not text or text.endswith("\n") else "\n"
    comment = "# written by `autograder new`: students' work, grades and the watcher's state\n"
    path.write_text(text + head + comment + "".join(f"{line}\n" for line in missing), encoding="utf-8")
    return path
