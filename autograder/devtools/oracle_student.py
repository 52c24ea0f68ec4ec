"""The student's side of the oracle attack (`autograder.devtools.oracle`): what an attacking notebook runs.

The attack puts this file's text into a cell of the notebook, followed by a line that sets `PLAN` (what
this submission sends, where). Each attacking function's own cell starts with `raise_at_E` or `raise_at_D`,
generated with one `raise` a line so that the line that raised says a number (a hidden check quotes a line
only from the cell that defines the function it called, and only its first lines). The attacker's target
function (the exercise whose hidden inputs and expected values are wanted) and its dependent (an exercise
judged on its own when the target loses points, in which the target answers as the reference) call
`attack_target` and `attack_dependent`. The attack imports only `serial` and the channels' sizes from
here, to know what the student's side sends.

Everything it sends is a bit string taken from what the student's process holds: the target's arguments
(`serial`), and the target's reference answers on them, which the dependent obtains while it is judged on
its own. Each call of the target or the dependent carries bits through one kind of output:
- "raise": an exception whose type (`TYPE_BITS`), the line it is raised at (`LINE_BITS`), its text
  (`TEXT_BYTES` bytes, base64) and whether it is the same as the first failing call's ("same", 1 bit) say bits;
- "got": a returned array of 8 integers of 48 bits each (what the feedback shows of a wrong answer);
- "shape": a returned array whose length says `SHAPE_BITS` bits.
And three outside any call: a cell that prints every argument seen ("print"), a sleep in the first call
whose length says `SLEEP_BITS` bits (the feedback's time of arrival), and how many of the dependent's
checks pass while it is judged on its own (its score there, `SCORE_BITS` bits).
"""

import base64
import sys
import time

import numpy as np

TYPE_BITS, LINE_BITS, TEXT_BYTES, SAME_BITS = 4, 7, 200, 1
GOT_NUMBERS, GOT_BITS, SHAPE_BITS, SLEEP_BITS, SCORE_BITS = 8, 48, 16, 2, 3
SLEEP_STEP = 2.0  # seconds a unit of the timing channel
# Types a hidden check names (`autograder.grader_support.raised.SHOWN_TYPES`); raising one says its index.
TYPES = [ValueError, TypeError, IndexError, KeyError, NameError, UnboundLocalError, AttributeError, ZeroDivisionError,
         OverflowError, FloatingPointError, AssertionError, RecursionError, ImportError, ModuleNotFoundError,
         RuntimeError, np.linalg.LinAlgError]
TEXT_MARKS, PRINT_MARKS = ("ORX", "XRO"), ("ORP", "PRO")

PLAN: dict = {"target": "", "target_calls": 0, "E": [], "D": [], "sleep": None}
SEEN: list = []  # the target's arguments, call by call
COUNTS = {"E": 0, "D": 0, "sent": 0}  # "sent": the dependent's calls that sent bits, in order
MINE: dict = {}  # the student's own functions, to tell when another answers in their place
FIRST: dict = {}  # "E"/"D" -> (type, line) of the first exception raised in this run: "same" repeats it
EXPECTED: list = []


def serial(values) -> bytes:
    """Arrays as the attack sends them: floats as float32 (enough for a check's rtol of 1e-6), others int32."""
    out = bytearray()
    for value in values:
        array = np.asarray(value)
        out += array.astype("<f4" if array.dtype.kind == "f" else "<i4").tobytes()
    return bytes(out)


def bits_of(data: bytes) -> str:
    return "".join(f"{byte:08b}" for byte in data)


def take(bits: str, start: int, count: int) -> int:
    """`count` bits of `bits` from `start` as a number (zeros past the end)."""
    chunk = bits[start:start + count]
    return int(chunk + "0" * (count - len(chunk)), 2) if count else 0


def emit(bits: str, plan: list, who: str):
    """Send bits of `bits` as `plan` says: a returned value, or an exception raised at a chosen line."""
    kind, parts = plan
    if kind == "got":
        _, start, _ = parts[0]
        return np.array([take(bits, start + GOT_BITS * i, GOT_BITS) for i in range(GOT_NUMBERS)], dtype=np.int64)
    if kind == "shape":
        _, start, count = parts[0]
        return np.zeros((take(bits, start, count) + 1,))
    error, line, text = TYPES[0], 0, ""
    for part in parts:
        name, start, count = part[:3]
        if name == "type":
            error = TYPES[take(bits, start, count)]
        elif name == "line":
            line = take(bits, start, count)
        elif name == "text":
            data = take(bits, start, count).to_bytes(count // 8, "big")
            text = TEXT_MARKS[0] + base64.b64encode(data).decode() + TEXT_MARKS[1]
        elif name == "same" and who in FIRST:  # the first exception's type and line, or another line
            error, line = FIRST[who]
            line = line if take(bits, start, 1) else (line + 1) % (1 << LINE_BITS)
    FIRST.setdefault(who, (error, line))
    globals()[f"raise_at_{who}"](line, error, text)  # generated in the attacking function's own cell


def target_args() -> list:
    """The target's arguments of each graded call: as seen, or (in a process that has not called the
    target) as the sandbox's runtime holds them ahead of the calls."""
    count = PLAN["target_calls"]
    if len(SEEN) >= count:
        return SEEN[:count]
    cache = sys.modules.get("autograder.sandbox.zygote_cache")
    planned = getattr(cache, "PLANNED", {})
    calls = [planned[key][1] for key in sorted(planned) if planned[key][0] == PLAN["target"]]
    return calls[:count]


def attack_target(args: tuple):
    call = COUNTS["E"]
    COUNTS["E"] += 1
    SEEN.append(tuple(np.array(a, copy=True) for a in args))
    bits = bits_of(serial(args))
    if call == 0 and PLAN["sleep"]:
        start, count = PLAN["sleep"]
        time.sleep(SLEEP_STEP * take(bits, start, count))
    if call >= len(PLAN["E"]):
        raise ValueError("past the plan")
    return emit(bits, PLAN["E"][call], "E")


def attack_dependent(honest, target):
    """In the dependent's own run `target` is the student's and every call fails; judged on its own,
    `target` answers as the reference: its first call and the self-checks' pass (so that run's verdict,
    the better one, is shown), the others send the reference's answers on the target's arguments."""
    if target is MINE.get(PLAN["target"]):
        raise ValueError("not judged on its own")
    call = COUNTS["D"]
    COUNTS["D"] += 1
    if not EXPECTED:
        EXPECTED.append(bits_of(serial([target(*args) for args in target_args()])))
    passing = 1 + (take(EXPECTED[0], *PLAN["score"]) if PLAN.get("score") else 0)  # the run's score says bits
    if call < passing or call > len(PLAN["D"]):
        return honest()
    if call == len(PLAN["D"]):  # the last check looks only at the arguments: it would pass, whatever came back
        raise ValueError("the inputs check")
    sent = COUNTS["sent"]  # the failing checks, in order, carry the plan's calls in order
    COUNTS["sent"] += 1
    return emit(EXPECTED[0], PLAN["D"][sent], "D")


def printed() -> str:
    """Every argument the target was called with, as text (the "print" channel)."""
    return "\n".join(f"{PRINT_MARKS[0]}{k}:{base64.b64encode(serial(args)).decode()}{PRINT_MARKS[1]}"
                     for k, args in enumerate(SEEN[:PLAN["target_calls"]]))
