"""The names in nbgrader's `inbound/` as the watcher reads them: each parsed once, a bounded number per poll
shared out among the students they name (so a flood of entries is read a slice at a time, and costs first the
student it names), a folder `nbgrader submit` has not finished looked at again later, and each student's
earliest submission not yet graded.
"""

from collections.abc import Callable

from autograder.terminal import visible
from autograder.watch.exchange import Entry, Exchange, Uncollectable, Unfinished
from autograder.watch.ledger import Ledger, Record
from autograder.watch.ungraded import refusal

# A folder `nbgrader submit` has not finished after this long is refused (a submit that died half-way, or
# a folder made by hand); until then it is looked at again this often, not at every poll.
UNFINISHED_SECONDS = 300.0
UNFINISHED_RECHECK_SECONDS = 5.0
# New names in inbound/ read per poll, shared out among the students they name (a name's first part).
NAMES_PER_POLL = 500


class Inbound:
    def __init__(self, exchange: Exchange, assignments: tuple[str, ...], check_owner: bool, ledger: Ledger,
                 refuse_all: Callable[[list[Record]], None], log: Callable[[str], None]) -> None:
        self.exchange, self.assignments, self.check_owner = exchange, assignments, check_owner
        self.ledger, self.refuse_all, self.log = ledger, refuse_all, log
        self.parsed: dict[str, Entry | None] = {}  # names seen in inbound/, parsed once
        self.unfinished: dict[str, float] = {}  # names `nbgrader submit` had not finished: when to look again
        self.unreachable = False  # inbound/ could not be listed last time

    def waiting(self) -> list[Entry]:
        """The submissions read and not yet graded or refused."""
        return [entry for name, entry in self.parsed.items() if entry is not None and not self.ledger.final(name)]

    def earliest(self, now: float) -> list[Entry]:
        """Each student's earliest submission not yet graded or refused, in the order submitted, after reading
        the names new since the last poll (`now`: time.time())."""
        try:
            names = self.exchange.names()
        except OSError as exc:  # the exchange unmounted or moved: said once, and watched for again
            if not self.unreachable:
                self.log(visible(f"cannot list {self.exchange.inbound}: {exc.strerror}; trying again"))
            self.unreachable = True
            return []
        if self.unreachable:
            self.log(visible(f"{self.exchange.inbound} can be listed again"))
            self.unreachable = False
        self.read_new(names, now)
        earliest: dict[tuple[str, str], Entry] = {}
        for name in names:
            entry = self.parsed.get(name)
            if entry is None or self.ledger.final(name):
                continue
            key = (entry.assignment, entry.student)
            if key not in earliest or (entry.time, entry.name) < (earliest[key].time, earliest[key].name):
                earliest[key] = entry
        return sorted(earliest.values(), key=lambda e: (e.time, e.name))

    def read_new(self, names: list[str], now: float) -> None:
        """Parse the names not seen yet, at most NAMES_PER_POLL, taken in turn from each student they name, so
        that one student's flood of entries delays the reading of their own."""
        by_owner: dict[str, list[str]] = {}
        for name in names:
            if name in self.parsed or self.ledger.final(name) or self.unfinished.get(name, 0) > now:
                continue
            by_owner.setdefault(name.split("+", 1)[0], []).append(name)
        turn = [sorted(group, reverse=True) for group in by_owner.values()]
        refusals: list[Record] = []
        budget = NAMES_PER_POLL
        while turn and budget > 0:
            for group in list(turn):
                if budget <= 0:
                    break
                name = group.pop()
                if not group:
                    turn.remove(group)
                budget -= 1
                try:
                    self.parsed[name] = self.exchange.parse(name, self.assignments, self.check_owner)
                    self.unfinished.pop(name, None)
                except Uncollectable as exc:
                    refusals.append(refusal(name, str(exc)))
                except Unfinished as exc:
                    if now - exc.since > UNFINISHED_SECONDS:
                        refusals.append(refusal(name, f"{exc} after {UNFINISHED_SECONDS:g} s"))
                    else:
                        self.unfinished[name] = now + UNFINISHED_RECHECK_SECONDS
        self.refuse_all(refusals)
