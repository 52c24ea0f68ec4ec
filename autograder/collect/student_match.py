"""The nbgrader student behind an LMS identity, found in the roster the gradebook holds.

The roster is the one `autograder roster import` stores (`lms.identity.load_people`). Canvas names the
user id (the roster's `lms_user_id`, Canvas's `ID` column); Blackboard the username (the roster field set by
`[blackboard] username` in lms.toml, as for grade uploads); Moodle and Brightspace only the name shown in
the LMS, matched to one roster student's `First Last` (or `Last First`, `Last, First`), case and spacing
aside (every Unicode space counts as one, so `山田　太郎` is `山田 太郎`).

Names and usernames are text a student may choose or imitate. They are compared twice: as written (case
and spacing aside) and folded by NFKC and case folding, which makes look-alikes such as full-width letters
(`Ａｄａ`) equal to what they imitate. A match only once folded is refused, and so is a name that folds to
two students' names: a look-alike is either reported or refused, never matched silently.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict

from autograder.lms.identity import Person

from .layouts import Claim


def plain(text: str) -> str:
    return " ".join(text.casefold().replace(",", " ").split())


def folded(text: str) -> str:
    return plain(unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold()))


_Index = dict[str, dict[str, list[Person]]]


class Roster:
    def __init__(self, people: list[Person], username_field: str = "login_id") -> None:
        self.people = people
        self.username_field = username_field
        self._ids: dict[str, list[Person]] = defaultdict(list)
        self._plain: _Index = defaultdict(lambda: defaultdict(list))
        self._folded: _Index = defaultdict(lambda: defaultdict(list))
        for person in people:
            if person.lms_user_id:
                self._ids[person.lms_user_id].append(person)
            username = person.get(username_field)
            if username:
                self._add("username", username, person)
            for name in {f"{person.first_name} {person.last_name}", f"{person.last_name} {person.first_name}"}:
                if name.strip():
                    self._add("name", name, person)

    def _add(self, kind: str, text: str, person: Person) -> None:
        for index, key in ((self._plain, plain(text)), (self._folded, folded(text))):
            if person not in index[kind][key]:
                index[kind][key].append(person)

    def find(self, claim: Claim) -> tuple[Person | None, str]:
        """The student, or None and why not."""
        if claim.kind == "anonymous":
            return None, "the LMS hides who this is (anonymous grading, blind marking): turn it off before downloading"
        if claim.kind == "lms_user_id":
            found = {p.id: p for p in self._ids.get(claim.value, [])}
            if len(found) == 1:
                return next(iter(found.values())), ""
            if found:
                return None, f"{len(found)} students on the roster have this LMS user id: {', '.join(sorted(found))}"
            return None, "no student on the roster has this LMS user id"
        if claim.kind == "username_tail":
            # `{Assignment}_{username}`: the username is what follows one of the `_`, or all of it.
            tails = [claim.value] + [claim.value[i + 1:] for i, c in enumerate(claim.value) if c == "_"]
            return self._match("username", tails, f"username ({self.username_field}) at the end of "
                                                  f"{claim.value!r}")
        what = f"username ({self.username_field})" if claim.kind == "username" else "name"
        return self._match(claim.kind, [claim.value], what)

    def _match(self, kind: str, texts: list[str], what: str) -> tuple[Person | None, str]:
        as_written = {p.id: p for t in texts for p in self._plain[kind].get(plain(t), [])}
        alike = {p.id: p for t in texts for p in self._folded[kind].get(folded(t), [])}
        alike.update(as_written)
        if len(alike) > 1:
            how = " once look-alike characters are folded" if len(as_written) < len(alike) else ""
            return None, f"{len(alike)} students on the roster have this {what}{how}: {', '.join(sorted(alike))}"
        if as_written:
            return next(iter(as_written.values())), ""
        if alike:
            return None, (f"matches {next(iter(alike))}'s {what} only once look-alike characters are folded "
                          "(NFKC: full-width or other compatibility letters): refused, never guessed")
        return None, f"no student on the roster has this {what}"
