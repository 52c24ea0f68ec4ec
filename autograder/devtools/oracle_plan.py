"""The oracle attack's (`devtools.oracle`) bookkeeping and plans: the scenario, what the attacker has read of
each bit string (`Stream`) and in one submission (`Tally`), what it has learnt works (`Working`), and where each
call of the next submission sends which bits (`plan_calls`).
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from autograder.devtools import oracle_student as student_side

ASSIGNMENT, TARGET, DEPENDENT = "hidden_state_activation", "formula_1", "hidden_state"
STUDENT = "mallory"
RAISE, GOT, SHAPE = "raise", "got", "shape"
PART_BITS = {"type": student_side.TYPE_BITS, "line": student_side.LINE_BITS, "text": 8 * student_side.TEXT_BYTES,
             "same": student_side.SAME_BITS}
KIND_BITS = {GOT: student_side.GOT_NUMBERS * student_side.GOT_BITS, SHAPE: student_side.SHAPE_BITS}


@dataclass
class Stream:
    """A bit string the attacker reads piece by piece: `known` holds each bit read (None: not yet)."""

    length: int
    known: list[str | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.known = [None] * self.length

    @property
    def done(self) -> bool:
        return None not in self.known

    def unknown_from(self, start: int = 0) -> int:
        for index in range(start, self.length):
            if self.known[index] is None:
                return index
        return self.length

    def tail_unknown(self, count: int) -> int:
        """Where `count` bits end at the last bit not read yet (the calls start from the first)."""
        last = max((i for i, bit in enumerate(self.known) if bit is None), default=self.length - 1)
        return max(0, last - count + 1)

    def learn(self, start: int, bits: str) -> None:
        for offset, bit in enumerate(bits):
            if start + offset < self.length:
                self.known[start + offset] = bit


@dataclass
class Tally:
    """Bits read in one submission, by channel, and whether each was right."""

    bits: dict[str, int] = field(default_factory=dict)
    wrong: int = 0

    def add(self, channel: str, count: int) -> None:
        self.bits[channel] = self.bits.get(channel, 0) + count

    @property
    def total(self) -> int:
        return sum(self.bits.values())


FULL, SAME = ["type", "line", "text"], ["same", "text"]  # what an exception can say, alone or like the first


@dataclass
class Working:
    """What the attacker has learnt works: per function ("E", "D"), the kind of output and, for "raise",
    the parts that came back on the first failing call and on the others."""

    kinds: dict[str, str | None] = field(default_factory=lambda: {"E": None, "D": None})
    first: dict[str, list[str]] = field(default_factory=lambda: {"E": FULL, "D": FULL})
    rest: dict[str, list[str] | None] = field(default_factory=lambda: {"E": None, "D": None})
    sleep: bool = True
    score: bool = True  # the dependent's score on its own comes back
    baseline: float | None = None  # seconds a submission takes without sleeping


def plan_calls(stream_of: Callable[[int], Stream], calls: int, kind: str | None, first: list[str],
               rest: list[str] | None, shared: bool, cursor: int = 0) -> list[list]:
    """Each call's plan: one kind of output, its parts placed on bits not read yet. `kind` None: the first
    submission tries every kind, call by call, and for exceptions after the first both FULL and SAME.
    `shared`: all calls send one stream (else call k its own)."""
    plans, raised = [], 0
    for call in range(calls):
        chosen = kind or (RAISE, GOT, SHAPE)[call % 3]
        stream = stream_of(call)
        start = stream.unknown_from(cursor if shared else 0)
        if chosen == RAISE:
            parts = first if raised == 0 else rest or (FULL, SAME)[raised % 2]
            raised += 1
            placed = []
            for part in parts:
                placed.append([part, start, PART_BITS[part]])
                start += PART_BITS[part]
            plans.append([RAISE, placed])
        else:
            plans.append([chosen, [[chosen, start, KIND_BITS[chosen]]]])
            start += KIND_BITS[chosen]
        if shared:
            cursor = start
    return plans
