"""One safe name per person: the OS user, JupyterHub user and nbgrader student id of someone who arrives from an
LMS, made from what the LMS says of them.

What an LMS sends is hostile text: any Unicode, spaces, `@`, quotes, 300 characters, two ids that differ only by
case. A name made here is a valid POSIX user name (`^[a-z_][a-z0-9_-]{0,31}$`, what `useradd` accepts and
JupyterHub keeps as it is, being lower case), never an existing system user or group (which `useradd` would reuse
or refuse), never of a pattern the hub keeps for itself (`RESERVED`: a course's groups, made only when the course is
added, perhaps long after a student arrived), and never a name `taken` says belongs to someone else. It is readable
where it can be (the e-mail's local part or the person's name, folded to ASCII) and made distinct by a digest of
the person's LMS key (issuer, deployment, user id), which is exact: two keys that differ only by case have
different digests. Stability is the caller's: the name chosen on a person's first launch is stored
(`lms.launch_identity`) and read back after.
"""

from __future__ import annotations

import grp
import hashlib
import pwd
import re
import unicodedata
from collections.abc import Callable, Iterator

POSIX_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
MAX_LENGTH = 32
READABLE_LENGTH = 16  # room left for "-" and a digest of up to 15 characters
FALLBACK = "student"
# The hub's own names, reserved before any student exists: a course's JupyterHub and OS groups (hub/groups.py:
# instructors-<course>, students-<course>; hub/os_accounts.course_group_name: hub-<digest>) and its services'
# (hub/services.py: autograder-...). A student named `instructors-z8d4` would own, as their personal group, the
# group that course z8d4's folder is later given to.
RESERVED = re.compile(r"(instructors|students|hub|autograder)-.*")


def is_reserved(name: str) -> bool:
    """Whether `name` is of a pattern the hub keeps for its own groups and services."""
    return bool(RESERVED.fullmatch(name))


def is_posix_name(name: str) -> bool:
    """Whether `name` can be a person's: a valid POSIX user name, not one the hub keeps for itself."""
    return bool(POSIX_NAME.fullmatch(name)) and not is_reserved(name)


def on_system(name: str) -> bool:
    """Whether `name` is already a user or a group of this machine."""
    for lookup in (pwd.getpwnam, grp.getgrnam):
        try:
            lookup(name)
            return True
        except KeyError:
            pass
    return False


def readable(hint: str) -> str:
    """`hint` folded to lower-case ASCII letters, digits, `_` and `-`, starting with a letter; '' when nothing is
    left. `José Núñez` -> `jose-nunez`; an e-mail keeps its local part."""
    text = hint.split("@", 1)[0] if "@" in hint else hint
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    text = re.sub(r"[^a-z0-9_]+", "-", text)
    text = text.lstrip("-_0123456789").strip("-")
    return text[:READABLE_LENGTH].rstrip("-")


def key_digest(*key: str) -> str:
    """A digest of a person's LMS key in lower-case hex (the parts joined by NUL, which no id holds)."""
    return hashlib.sha256("\0".join(key).encode()).hexdigest()


def candidates(hint: str, key: tuple[str, ...]) -> Iterator[str]:
    """The names to try for a person, best first: readable, then readable plus more and more of the digest."""
    base = readable(hint) or FALLBACK
    if is_reserved(base):  # `instructors-z8d4@uni.edu`: theirs is student-instructors-..., never the course's group
        base = f"{FALLBACK}-{base}"[:READABLE_LENGTH].rstrip("-")
    digest = key_digest(*key)
    yield base
    for size in (6, 10, 15):
        yield f"{base}-{digest[:size]}"
    for counter in range(1, 1000):  # only when every digest length is taken: a counter on the longest
        yield f"{base[:READABLE_LENGTH - 4]}-{digest[:15]}-{counter}"


def safe_name(hint: str, key: tuple[str, ...], taken: Callable[[str], bool],
              system: Callable[[str], bool] = on_system) -> str:
    """The first candidate for this person that is a POSIX name, not on the system and not `taken`."""
    for name in candidates(hint, key):
        if is_posix_name(name) and not system(name) and not taken(name):
            return name
    raise ValueError(f"no free user name for {hint!r}")  # a thousand taken names with one digest: not by chance
