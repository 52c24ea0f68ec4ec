"""A Canvas "Download Submissions" archive built from a folder of submissions (`submitted/` as nbgrader
lays it out), named as Canvas names it (`lib/content_zipper.rb`, see `layouts`), for the demo and tests."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable
from pathlib import Path

from autograder.lms.identity import Person

FIRST_ATTACHMENT = 90001


def canvas_name(person: Person) -> str:
    """The name part Canvas gives a student's files: the sortable name, lower case, word characters only."""
    name = re.sub(r"_(\d+)_", r"\1", person.sortable_name).lower()
    return re.sub(r"\W", "", name)


def build_canvas_archive(submitted: Path, assignment: str, people: Iterable[Person], dest: Path,
                         late: Iterable[str] = ()) -> list[str]:
    """Write `dest`, a Canvas-format archive of every notebook in `submitted/<student>/<assignment>/` of the
    students in `people` (matched by nbgrader id; each needs its Canvas user id, `lms_user_id`); the ids in
    `late` get Canvas's LATE marker. Returns the ids of the students left out (no folder or no Canvas id)."""
    attachment = FIRST_ATTACHMENT
    left_out = []
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as archive:
        for person in sorted(people, key=lambda p: p.id):
            folder = submitted / person.id / assignment
            notebooks = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
            if not notebooks or not person.lms_user_id:
                left_out.append(person.id)
                continue
            prefix = "_".join(filter(None, [canvas_name(person), "LATE" if person.id in set(late) else "",
                                            person.lms_user_id]))
            for notebook in notebooks:
                archive.write(notebook, f"{prefix}_{attachment}_{notebook.name}")
                attachment += 1
    return left_out
