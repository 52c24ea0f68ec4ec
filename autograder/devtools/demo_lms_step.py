"""The LMS step of `make demo`: a roster, a settings file, a Canvas CSV and a dry-run push.

Everything goes through the same code as `autograder roster import`, `autograder export` and
`autograder push --dry-run`; only the roster is synthetic (the demo has no LMS to export one from).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from autograder.lms import send
from autograder.lms.exports import export
from autograder.lms.gradebook import open_gradebook
from autograder.lms.identity import Person, load_people
from autograder.lms.lms_settings import FILENAME
from autograder.lms.roster_import import import_roster
from autograder.lms.table import Table, write_atomic

ROSTER_NAME = "lms_roster.csv"
FIRST_CANVAS_USER = 2001
FIRST_CANVAS_ASSIGNMENT = 1001


def synthetic_roster(students: list[str]) -> str:
    """A plain roster giving each student made-up Canvas, SIS and LTI identities."""
    people = [Person(student) for student in students]
    header = ["id", "first_name", "last_name", "email", "lms_user_id", "sis_user_id", "login_id", "section",
              "lti_user_id"]
    rows = [
        [person.id, person.first_name or person.id.capitalize(), person.last_name or "Student",
         person.email or f"{person.id}@students.example.edu", str(FIRST_CANVAS_USER + number),
         f"SIS{FIRST_CANVAS_USER + number:06d}", person.id, "Section 1", f"lti-{person.id}"]
        for number, person in enumerate(sorted(people, key=lambda p: p.id))
    ]
    return Table(header, rows).to_csv()  # the one CSV writer: a name that looks like a formula stays text


def sample_settings(assignments: list[str]) -> str:
    lines = [
        "# Sample LMS settings written by the demo; see lms.example.toml for every option.",
        "# The Canvas token is read from $CANVAS_API_TOKEN only when pushing for real.",
        "[canvas]",
        'url = "https://canvas.example.edu"',
        "course_id = 12345",
        "",
        "[canvas.assignments]",
    ]
    lines += [f"{name} = {FIRST_CANVAS_ASSIGNMENT + i}" for i, name in enumerate(assignments)]
    return "\n".join(lines) + "\n"


def roster_step(course: Path, students: list[str], out: Callable[[str], None] = print) -> Path:
    """The class's roster, as an LMS would give it, imported into the gradebook (`autograder roster import`)."""
    roster = course / ROSTER_NAME
    write_atomic(roster, synthetic_roster(students))
    with open_gradebook(course) as gradebook:
        result = import_roster(gradebook, roster, "plain")
    out(f"Imported {len(result.people)} students with LMS identities from {ROSTER_NAME}")
    return roster


def canvas_download(course: Path, assignment: str, submitted: Path, late: list[str]) -> Path:
    """What Canvas's "Download Submissions" gives for `assignment`, built from a folder of submissions."""
    from autograder.collect.canvas_archive import build_canvas_archive

    with open_gradebook(course) as gradebook:
        people = load_people(gradebook)
    archive = course / "lms_downloads" / f"{assignment}_submissions.zip"
    archive.parent.mkdir(parents=True, exist_ok=True)
    build_canvas_archive(submitted, assignment, people, archive, late=late)
    return archive


def demo_step(course: Path, assignments: list[str], out: Callable[[str], None] = print) -> list[Path]:
    """Sample lms.toml (if none), exports/canvas.csv, and a dry-run push of the first assignment (the roster
    came in before the submissions: `roster_step`)."""
    course = Path(course)
    written = [course / ROSTER_NAME]
    settings = course / FILENAME
    if not settings.exists():
        write_atomic(settings, sample_settings(assignments))
        written.append(settings)
        out(f"Wrote a sample {FILENAME}")
    path, table = export(course, "canvas", assignments, course / "exports" / "canvas.csv")
    written.append(path)
    out(f"Wrote {path.relative_to(course)}: {len(table.students)} students, {len(assignments)} assignment(s)")
    send.run(course, assignments[0], "canvas", dry_run=True, out=out)
    return written
