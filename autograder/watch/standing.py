"""Where a student's graded attempts stand, in plain words for their feedback pages: which attempt this is,
how many are left in the window and when the next is possible, and which attempt counts for the grade (as the
course's policy says: the latest, or the best).

An attempt's points are the graders' (its autograded points: what differs from one attempt to the next). Where the
assignment also has answers graded by hand, the page's total is out of more than that, so an attempt's points are
named as autograded and what the total adds is said in its words (`Hand`, from the gradebook's grade).
"""

from dataclasses import dataclass
from datetime import datetime

from autograder.display.page_markup import Markup, markup, when
from autograder.display.terminal import count
from autograder.watch.attempt_policy import Policy
from autograder.watch.ledger import Record


@dataclass(frozen=True)
class Attempt:
    number: int  # 1 for the student's first graded attempt of the assignment
    submitted: datetime  # naive UTC
    graded_at: datetime  # naive UTC: what the window counts
    score: float
    max_score: float
    pages: tuple[str, ...] = ()  # its feedback pages' file names in the exchange's feedback/
    practice: bool = False  # after the last late deadline: feedback only, never counted


@dataclass(frozen=True)
class Hand:
    """What the grade adds to an attempt's autograded points, read from the gradebook (`grades.outbox.CountedScore`,
    made by `grades.arithmetic`): its maximum with the answers graded by hand, and the points of those still to be
    graded (`Grade.pending_points`)."""

    max_score: float
    pending: float


def attempts_of(records: list[Record]) -> list[Attempt]:
    """The ledger's graded records of one student and assignment, numbered in the order they were graded
    (a student's submissions are graded in the order submitted)."""
    ordered = sorted(records, key=lambda r: (r.at, r.time))
    return [Attempt(n, datetime.fromisoformat(r.time), datetime.fromisoformat(r.at), r.score or 0.0,
                    r.max_score or 0.0, tuple(r.feedback), r.practice) for n, r in enumerate(ordered, 1)]


def counted(policy: Policy, attempts: list[Attempt]) -> Attempt | None:
    """The attempt the gradebook holds: the latest, or the best (a later one on a tie: the watcher keeps an
    earlier best only when it scored more), of those that may count: a practice attempt never does. None when
    none may (the gradebook then holds a practice attempt, whose score counts 0)."""
    attempts = [a for a in attempts if not a.practice]
    if not attempts:
        return None
    if policy.counts == "best":
        return max(attempts, key=lambda a: (a.score, a.number))
    return attempts[-1]


def window_words(policy: Policy) -> str:
    hours = policy.window.total_seconds() / 3600
    return f"{hours:g}-hour window" if hours >= 1 else f"{hours * 60:g}-minute window"


def _rule(policy: Policy) -> str:
    return f"your {'best' if policy.counts == 'best' else 'latest'} graded attempt counts"


def hand_graded_too(attempt: Attempt, hand: Hand | None) -> bool:
    """Whether the grade counts more than the attempt's autograded points (answers graded by hand)."""
    return hand is not None and hand.max_score > attempt.max_score


def attempt_points(attempt: Attempt, hand: Hand | None = None, rest: bool = True) -> str:
    """The attempt's points as the page's total counts them: with answers graded by hand in the assignment,
    "40 of the 46 autograded points; 2 more to be graded by your instructor" (`rest`: with what the total adds)."""
    if not hand_graded_too(attempt, hand):
        return f"{attempt.score:g} / {attempt.max_score:g} points"
    said = f"{attempt.score:g} of the {attempt.max_score:g} autograded points"
    if not rest:
        return said
    if hand.pending:
        return f"{said}; {hand.pending:g} more to be graded by your instructor"
    return f"{said}; the answers graded by hand make up the rest of the {hand.max_score:g}"


def graded_lines(policy: Policy, attempts: list[Attempt], now: datetime, hand: Hand | None = None) -> list[Markup]:
    """The banner of the newest attempt's page, `attempts[-1]`, written when it is released; `hand`: what the
    grade adds to the autograded points (none: the assignment's points are all autograded)."""
    this = attempts[-1]
    if not policy.attempts:
        first = markup(f"Graded attempt {this.number}, submitted ", when(this.submitted), ".")
    else:
        recent = sum(now - a.graded_at < policy.window for a in attempts)
        which = (f"Graded attempt {recent} of {policy.attempts}" if recent == this.number else
                 f"Graded attempt {this.number} ({recent} of {policy.attempts}")
        which += f" in this {window_words(policy)}" + ("" if recent == this.number else ")")
        slot = policy.next_slot([a.graded_at for a in attempts], now)
        if slot is None:
            left = policy.attempts - recent
            first = markup(f"{which}: {count(left, 'more graded attempt')} possible now.")
        else:
            first = markup(f"{which}: none left; your next graded attempt is possible at ", when(slot), ".")
    best = counted(policy, attempts)
    if this.practice:
        return [first, practice_line(best, hand)]
    if best is this:
        second = ("This attempt counts for your grade"
                  + (": your best so far" if policy.counts == "best" and len(attempts) > 1 else "")
                  + f" ({_rule(policy)}).")
    else:
        named = f"attempt {best.number}: {attempt_points(best, hand)}" if hand_graded_too(best, hand) else \
            f"attempt {best.number}, {attempt_points(best)}"
        second = (f"Your best attempt ({named}) counts for your grade, not this one "
                  f"({attempt_points(this, hand, rest=False)}): {_rule(policy)}.")
    return [first, markup(second)]


def practice_line(counting: Attempt | None, hand: Hand | None = None) -> Markup:
    """What a practice attempt's banner says of it, and of the attempt that counts instead."""
    why = ("Practice: this attempt arrived after your last late deadline (the course's late rules), so it is "
           "graded for your feedback, but its score does not count for your grade. ")
    if counting is None:
        return markup(why + "None of your attempts arrived before that deadline, so none counts.")
    return markup(why + f"Your attempt {counting.number} (submitted ", when(counting.submitted),
                  f"{':' if hand_graded_too(counting, hand) else ','} {attempt_points(counting, hand)}) still counts.")


def superseded_lines(policy: Policy, attempt: Attempt, hand: Hand | None = None) -> list[Markup]:
    """The banner an earlier attempt's page gets when a later attempt takes its place in the grade."""
    return [markup(f"Graded attempt {attempt.number}, submitted ", when(attempt.submitted),
                   f" ({attempt_points(attempt, hand, rest=False)})."),
            markup(f"It no longer counts for your grade: a later attempt does ({_rule(policy)}). "
                   "Your newest feedback says how many graded attempts are left.")]


def waiting_lines(policy: Policy, assignment: str, submitted: datetime, slot: datetime,
                  attempts: list[Attempt]) -> list[Markup]:
    """The notice of a submission over the limit, kept until `slot`."""
    lines = [markup(f"Your submission of {assignment} at ", when(submitted), " is kept, not graded yet: you have "
                    f"used your {policy.attempts} graded attempts in this {window_words(policy)}, none left until ",
                    when(slot), "."),
             markup(f"It will be graded then (as graded attempt {len(attempts) + 1}), and this page will then show "
                    "its feedback. A later submission waits its turn behind it.")]
    best = counted(policy, attempts)
    if best is not None:
        lines.append(markup(f"Until then, attempt {best.number} (submitted ", when(best.submitted),
                            f", {attempt_points(best)}) counts for your grade ({_rule(policy)})."))
    return lines
