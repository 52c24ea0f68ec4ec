"""A feedback page made before its grade was settled again says so at its top, with the grade as it is now: an
extension, a label, an override, a moved due date or edited late rules change the number a page was made with,
and a page must never contradict the gradebook. The note is `grades.arithmetic`'s grade and credit, the same
numbers the LMS is sent; the page's details stay as they were made (what the graders found does not change), and
the next page made for that student (`nbgrader generate_feedback`, the watcher) carries no note.

Marked: the course's own copy (`feedback/<student>/<assignment>/`, what `nbgrader generate_feedback` writes and
the formgrader shows) and each page the watcher released for the student's attempts (the exchange's `feedback/`,
what `nbgrader fetch_feedback` and My assignments hand the student).
"""

import html
import re
from collections.abc import Iterable
from typing import Any

from autograder.deadlines.schedule import Outcome, show_duration
from autograder.grades.arithmetic import Grade

NOTE_CLASS = "autograder-stale"
_NOTE = re.compile(rb'<div class="autograder-stale"[^>]*>.*?</div><!-- /autograder-stale -->', re.S)

# What changed a grade, in the words a student reads (the outbox's origins: `settle`'s callers).
WHY = {"extension": "your instructor gave you an extension", "revoke": "your instructor withdrew an extension",
       "label": "your instructor changed the time you are allowed", "override": "your instructor set a score by hand",
       "unoverride": "your instructor removed a score set by hand", "rederived": "the course's deadline rules changed",
       "grade": "work you handed in later was graded", "regrade": "your work was graded again with the current graders"}


def note_text(grade: Grade, origin: str) -> str:
    """The note's sentence: why, and the grade now."""
    why = WHY.get(origin, "your grade was recalculated")
    now = f"{grade.score:g} / {grade.max_score:g} points"
    credit = grade.credit
    if credit is not None and credit.outcome is not Outcome.ON_TIME:
        late = f"{show_duration(credit.late_by)} late"
        if credit.counts:
            now += f" ({late}: {credit.credit:.0%} of the score counts, a late penalty of {grade.penalty:g})"
        else:
            now += f" ({late}: {credit.outcome.value}, the score does not count)"
    elif credit is not None:
        now += " (on time: full credit)"
    return (f"This page is out of date: since it was made, {why}. Your grade for {grade.facts.assignment} is now "
            f"{now}. The points below are as they were when the page was made.")


def with_note(page: bytes, text: str) -> bytes:
    """`page` with the note at the top of its body (replacing an older note)."""
    note = (f'<div class="{NOTE_CLASS}" role="status" style="padding:0.5em 1em;background:#fff4ce;'
            f'border:1px solid #8a6d00"><p style="margin:0.3em 0">{html.escape(text)}</p></div>'
            f'<!-- /{NOTE_CLASS} -->').encode()
    if _NOTE.search(page):
        return _NOTE.sub(lambda _: note, page, count=1)
    head, found, rest = page.partition(b"<body")
    if not found:
        return note + page
    tag_end = rest.find(b">") + 1
    return head + found + rest[:tag_end] + note + rest[tag_end:]


def mark_stale(settings: Any, grades: Iterable[Grade], origin: str) -> int:
    """Mark every page of each grade's student and assignment; how many pages. `settings`: `CourseSettings`."""
    from autograder.watch.exchange import Exchange, write_whole
    from autograder.watch.ledger import read_ledger
    from autograder.watch.watch_status import LEDGER_FILE, STATE_FOLDER

    grades = list(grades)
    if not grades:
        return 0
    records = list(read_ledger(settings.root / STATE_FOLDER / LEDGER_FILE).values())
    released = None
    marked = 0
    for grade in grades:
        student, assignment = grade.facts.student, grade.facts.assignment
        text = note_text(grade, origin)
        pages = sorted(settings.path("feedback", student, assignment).glob("*.html"))
        names = [name for r in records if r.student == student and r.assignment == assignment for name in r.feedback]
        if names:
            released = released or Exchange.from_config(settings.config, settings.course_id).feedback
            pages += [released / name for name in names if (released / name).is_file()]
        for path in pages:  # whole, keeping its mode: a student fetching it gets the old page or the new one
            write_whole(path, with_note(path.read_bytes(), text), path.stat().st_mode & 0o7777)
            marked += 1
    return marked
