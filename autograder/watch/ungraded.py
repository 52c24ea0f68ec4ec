"""What becomes of a submission the watcher does not grade now, in the ledger, the log and on the student's
feedback page: deferred (over the policy's attempts: graded when a slot frees), failed (a fault on our side:
not an attempt, retried later, each time after longer) or refused (never graded: the student submits again).
"""

import time
from collections.abc import Callable
from datetime import UTC, datetime

from autograder.display.page_markup import markup, when, when_text
from autograder.display.terminal import visible
from autograder.grading.model import SourceNotebook
from autograder.watch.attempt_policy import Policy
from autograder.watch.exchange import Entry, Exchange, Uncollectable
from autograder.watch.ledger import Ledger, Record, utcnow
from autograder.watch.pages import notice
from autograder.watch.standing import attempts_of, waiting_lines

# A fault on our side (the sandbox did not start, a worker died, the gradebook was locked) is retried
# after this long, then twice as long each time, up to the maximum.
RETRY_SECONDS = 5.0
RETRY_MAX_SECONDS = 300.0
# Refusals named one by one in the log per poll; the rest are counted in one line (all are in the ledger).
REFUSALS_LOGGED = 20


def refusal(name: str, why: str) -> Record:
    return Record(name, "refused", utcnow().isoformat(), note=why[:300])


class Ungraded:
    def __init__(self, exchange: Exchange, ledger: Ledger, policy: Policy, sources: dict[str, list[SourceNotebook]],
                 log: Callable[[str], None]) -> None:
        self.exchange, self.ledger, self.policy, self.sources, self.log = exchange, ledger, policy, sources, log
        self.failures: dict[str, int] = {}  # faults on our side so far, by submission
        self.refused_this_poll = 0

    def defer(self, entry: Entry, slot: datetime) -> None:
        record = self.ledger.last.get(entry.name)
        if record and record.state == "deferred" and record.until == slot.isoformat():
            return
        hours = self.policy.window.total_seconds() / 3600
        try:
            attempts = attempts_of(self.ledger.graded(entry.student, entry.assignment))
            self.tell(entry, self.exchange.secret(entry), notice(
                f"Waiting to be graded: none left until {when_text(slot)}",
                waiting_lines(self.policy, entry.assignment, entry.time, slot, attempts)))
        except (Uncollectable, OSError) as exc:
            self.refuse(entry.name, str(exc))
            return
        self.ledger.write(Record(entry.name, "deferred", utcnow().isoformat(), entry.student, entry.assignment,
                                 entry.time.isoformat(), until=slot.isoformat()))
        self.log(visible(f"deferred {entry.student} {entry.assignment} (submitted {entry.time:%H:%M:%S} UTC): "
                         f"over {self.policy.attempts} graded attempts per {hours:g} hours, graded at "
                         f"{when_text(slot)}"))

    def fail(self, entry: Entry, why: str) -> None:
        """A fault on our side: not an attempt; tried again later."""
        tries = self.failures[entry.name] = self.failures.get(entry.name, 0) + 1
        wait = min(RETRY_SECONDS * 2 ** (tries - 1), RETRY_MAX_SECONDS)
        until = datetime.fromtimestamp(time.time() + wait, UTC).replace(tzinfo=None)
        try:
            self.tell(entry, self.exchange.secret(entry), notice("Submission received: grading will be retried", [
                markup(f"Your submission of {entry.assignment} at ", when(entry.time), " could not be graded "
                       "because of a fault on the grader's side (not in your work). It does not count as an attempt."),
                markup("It will be graded again in a few seconds; fetch your feedback again then.")]))
        except (Uncollectable, OSError):
            pass  # the notice is a courtesy; the retry is what matters
        self.ledger.write(Record(entry.name, "failed", utcnow().isoformat(), entry.student, entry.assignment,
                                 entry.time.isoformat(), until=until.isoformat(), note=why[:300]))
        self.log(visible(f"NOT GRADED {entry.student} {entry.assignment}: {why}; retried in {wait:g} s"))

    def graded(self, name: str) -> None:
        """`name` is graded at last: a later fault of it starts its retries afresh."""
        self.failures.pop(name, None)

    def tell_refused(self, entry: Entry, why: str) -> None:
        """The student's page says why their submission was not graded, where its secret can still be read (a
        folder changed after it was submitted, a file that is a link): they can submit again."""
        try:
            self.tell(entry, self.exchange.secret(entry), notice("Submission not graded", [
                markup(f"Your submission of {entry.assignment} at ", when(entry.time), " was not graded: "
                       f"{why.removeprefix(entry.name).lstrip(': ')}."),
                markup("It does not count as an attempt: submit again with nbgrader (or the Assignments tab).")]))
        except (Uncollectable, OSError):
            pass  # no usable secret: nowhere to put a page the student could fetch

    def not_accepted(self, entry: Entry) -> None:
        """Work that arrived after the student's last late deadline, where the course accepts none: refused
        before it is graded, and the student told in plain words; the gradebook keeps what counted before."""
        why = "it arrived after your last late deadline, and the course accepts no work after that"
        self.refuse(entry.name, f"not accepted: arrived after the last late deadline ({entry.time:%Y-%m-%d %H:%M} UTC)")
        try:
            self.tell(entry, self.exchange.secret(entry), notice("Submission not accepted", [
                markup(f"Your submission of {entry.assignment} at ", when(entry.time), f" was not accepted: {why} "
                       "(the course's late rules, with any extension you were given)."),
                markup("It is not graded and does not change your grade. If you think this is wrong, ask your "
                       "instructor.")]))
        except (Uncollectable, OSError):
            pass  # no usable secret: nowhere to put a page the student could fetch

    def tell(self, entry: Entry, secret: str, page: bytes) -> None:
        """`page` as the feedback of every notebook of the assignment, where the student fetches it."""
        for source in self.sources[entry.assignment]:
            self.exchange.release(secret, source.name, page)

    def refuse(self, name: str, why: str) -> None:
        self.refuse_all([refusal(name, why)])

    def refuse_junk(self, lines: list[str]) -> None:
        """Entries in inbound/ that are no student's submission (`watch.inbound`): said in the log (the first
        few of a poll by name, the rest counted), never written to the ledger: nobody is told, and a flood of
        them must not grow the ledger."""
        self.refused_this_poll = len(lines)
        for line in lines[:REFUSALS_LOGGED]:
            self.log(visible(f"refused {line}"))
        if len(lines) > REFUSALS_LOGGED:
            self.log(f"refused {len(lines) - REFUSALS_LOGGED} more entries in {self.exchange.inbound} (no student's "
                     "submission: not in the ledger)")

    def refuse_all(self, refusals: list[Record]) -> None:
        """Refusals go to the ledger together (one sync to disk); the log names the first few of a poll and
        counts the rest."""
        self.refused_this_poll = len(refusals)
        if not refusals:
            return
        self.ledger.write_many(refusals)
        for refused in refusals[:REFUSALS_LOGGED]:
            self.log(visible(f"refused {refused.note}"))
        if len(refusals) > REFUSALS_LOGGED:
            self.log(f"refused {len(refusals) - REFUSALS_LOGGED} more entries in {self.exchange.inbound} "
                     "(each is in the ledger)")
