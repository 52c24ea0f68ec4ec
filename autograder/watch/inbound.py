"""The names in nbgrader's `inbound/` as the watcher reads them: each read once, a bounded number per poll
shared out among the users who own them (so a flood of entries, whatever student its names claim, costs its
owner's share and nobody else's), a folder `nbgrader submit` has not finished looked at again later, and each
student's earliest submission not yet graded.

What is no student's submission (a name of another shape, a folder named for someone other than its owner, a
file, one never finished) is junk: refused once, with a line in the log, and remembered in memory while it is
in `inbound/`, never read again and never written to the ledger (so junk costs neither disk nor a re-read; a
watcher started afresh refuses what is still there once more). Memory follows what `inbound/` holds now.
"""

import os
import time
from collections.abc import Callable

from autograder.display.terminal import visible
from autograder.watch.exchange import Entry, Exchange, Uncollectable, Unfinished
from autograder.watch.ledger import Ledger

# A folder `nbgrader submit` has not finished after this long is refused (a submit that died half-way, or
# a folder made by hand); until then it is looked at again this often, not at every poll.
UNFINISHED_SECONDS = 300.0
UNFINISHED_RECHECK_SECONDS = 5.0
# Names in inbound/ read per poll, shared out among the users who own them.
NAMES_PER_POLL = 500
# inbound/ is listed again when its modification time changes (a name added or removed; a student can set it
# to now, never to another time), and at least this often whatever it says (a clock tick shared by a change
# and a listing, a file system with coarse times).
RELIST_SECONDS = 2.0
# A listing that took t seconds is not taken again within LISTING_SPACING * t: a huge inbound/ touched over
# and over costs the watcher a few per cent of a core, not all of it. (Each new name's owner is read once.)
LISTING_SPACING = 20


class Inbound:
    def __init__(self, exchange: Exchange, assignments: tuple[str, ...], check_owner: bool, ledger: Ledger,
                 refuse_junk: Callable[[list[str]], None], log: Callable[[str], None]) -> None:
        self.exchange, self.assignments, self.check_owner = exchange, assignments, check_owner
        self.ledger, self.refuse_junk, self.log = ledger, refuse_junk, log
        self.listed: set[str] = set()  # inbound/'s names at the last listing
        self.unread: dict[str, int] = {}  # listed names not read yet, by the uid that owns them
        self.pending: dict[str, Entry] = {}  # read, this course's assignments, not yet graded or refused
        self.junk: set[str] = set()  # refused as no student's submission: never read again while listed
        self.unfinished: dict[str, float] = {}  # names `nbgrader submit` had not finished: when to look again
        self.unreachable = False  # inbound/ could not be listed last time
        self.listed_mtime = -1  # inbound/'s modification time (ns) at the last listing
        self.next_listing = 0.0  # time.monotonic() before which inbound/ is not listed, unless it changed
        self.spacing_until = 0.0  # time.monotonic() before which it is not listed even if it changed

    def waiting(self) -> list[Entry]:
        """The submissions read and not yet graded or refused."""
        return [entry for name, entry in self.pending.items() if not self.ledger.final(name)]

    def earliest(self, now: float) -> list[Entry]:
        """Each student's earliest submission not yet graded or refused, in the order submitted, after reading
        the names new since the last poll (`now`: time.time())."""
        if not self.relist():
            self.refuse_junk([])
            return []
        self.read_new(now)
        earliest: dict[tuple[str, str], Entry] = {}
        for name, entry in list(self.pending.items()):
            if self.ledger.final(name):
                del self.pending[name]
                continue
            key = (entry.assignment, entry.student)
            if key not in earliest or (entry.time, entry.name) < (earliest[key].time, earliest[key].name):
                earliest[key] = entry
        return sorted(earliest.values(), key=lambda e: (e.time, e.name))

    def relist(self) -> bool:
        """List inbound/ again when it changed (or RELIST_SECONDS passed): names new since are queued to be
        read, with their owner; what left it is forgotten. False when it cannot be listed."""
        clock = time.monotonic()
        try:
            mtime = os.stat(self.exchange.inbound).st_mtime_ns
            if clock < self.spacing_until or (mtime == self.listed_mtime and clock < self.next_listing):
                return not self.unreachable
            names = set(self.exchange.names())
            took = time.monotonic() - clock
        except OSError as exc:  # the exchange unmounted or moved: said once, and watched for again
            if not self.unreachable:
                self.log(visible(f"cannot list {self.exchange.inbound}: {exc.strerror}; trying again"))
            self.unreachable = True
            return False
        if self.unreachable:
            self.log(visible(f"{self.exchange.inbound} can be listed again"))
            self.unreachable = False
        # A change in the same clock tick as this listing leaves the time as read: listed again soon regardless.
        self.listed_mtime = mtime if time.time_ns() - mtime > 1_000_000_000 else -1
        for name in names - self.listed:
            if self.ledger.final(name):
                continue
            try:
                self.unread[name] = os.lstat(self.exchange.inbound / name).st_uid
            except OSError:
                continue  # gone already
        for gone in self.listed - names:
            self.unread.pop(gone, None)
            self.pending.pop(gone, None)
            self.unfinished.pop(gone, None)
            self.junk.discard(gone)
        self.listed = names
        self.next_listing = clock + RELIST_SECONDS
        self.spacing_until = clock + LISTING_SPACING * took
        return True

    def read_new(self, now: float) -> None:
        """Read the names not read yet, and the unfinished ones due again, at most NAMES_PER_POLL, taken in
        turn from each user who owns them, so that one user's flood of entries delays only the reading of their
        own, whoever the names claim."""
        for name, again in list(self.unfinished.items()):
            if again <= now and name not in self.unread:
                try:
                    self.unread[name] = os.lstat(self.exchange.inbound / name).st_uid
                except OSError:
                    del self.unfinished[name]
        by_owner: dict[int, list[str]] = {}
        for name, uid in self.unread.items():
            if self.unfinished.get(name, 0) <= now:
                by_owner.setdefault(uid, []).append(name)
        turn = [sorted(group, reverse=True) for group in by_owner.values()]
        junk: list[str] = []
        budget = NAMES_PER_POLL
        while turn and budget > 0:
            for group in list(turn):
                if budget <= 0:
                    break
                name = group.pop()
                if not group:
                    turn.remove(group)
                budget -= 1
                del self.unread[name]
                try:
                    entry = self.exchange.parse(name, self.assignments, self.check_owner)
                except Uncollectable as exc:
                    self.unfinished.pop(name, None)
                    self.junk.add(name)
                    junk.append(str(exc))
                    continue
                except Unfinished as exc:
                    if now - exc.since > UNFINISHED_SECONDS:
                        self.unfinished.pop(name, None)
                        self.junk.add(name)
                        junk.append(f"{exc} after {UNFINISHED_SECONDS:g} s")
                    else:
                        self.unfinished[name] = now + UNFINISHED_RECHECK_SECONDS
                    continue
                self.unfinished.pop(name, None)
                if entry is not None:  # None: another assignment's
                    self.pending[name] = entry
        self.refuse_junk(junk)
