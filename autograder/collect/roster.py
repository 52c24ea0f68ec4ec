"""The nbgrader student behind an LMS identity, found in the roster the gradebook holds.

The roster is the one `autograder roster import` stores (`lms.identity.load_people`). Canvas names the
user id (the roster's `lms_user_id`, Canvas's `ID` column); Blackboard the username (the roster field set by
`[blackboard] username` in lms.toml, as for grade uploads); Moodle and Brightspace only the name shown in
the LMS, matched to one roster student's `First Last` (or `Last First`, `Last, First`), case and spacing
aside. A name two roster students share matches neither: it is reported, never guessed.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict

from autograder.lms.identity import Person

from .layouts import Claim


def _key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().replace(",", " ").split())


class Roster:
    def __init__(self, people: list[Person], username_field: str = "login_id") -> None:
        self.people = people
        self.username_field = username_field
        self._by: dict[str, dict[str, list[Person]]] = defaultdict(lambda: defaultdict(list))
        for person in people:
            if person.lms_user_id:
                self._by["lms_user_id"][person.lms_user_id].append(person)
            username = person.get(username_field)
            if username:
                self._by["username"][_key(username)].append(person)
            names = {_key(f"{person.first_name} {person.last_name}"), _key(f"{person.last_name} {person.first_name}")}
            for name in names - {""}:
                self._by["name"][name].append(person)

    def find(self, claim: Claim) -> tuple[Person | None, str]:
        """The student, or None and why not."""
        if claim.kind == "anonymous":
            return None, "anonymous grading is on in the LMS: turn it off before downloading"
        value = claim.value if claim.kind == "lms_user_id" else _key(claim.value)
        found = {p.id: p for p in self._by[claim.kind].get(value, [])}
        what = {"lms_user_id": "LMS user id", "username": f"username ({self.username_field})",
                "name": "name"}[claim.kind]
        if len(found) == 1:
            return next(iter(found.values())), ""
        if found:
            return None, f"{len(found)} students on the roster have this {what}: {', '.join(sorted(found))}"
        return None, f"no student on the roster has this {what}"
