"""The feedback as an answer oracle, measured: how many graded submissions a student needs to read an exercise's
hidden inputs and expected values out of the feedback pages.

    python -m autograder.devtools.oracle [--path sandbox|kernel] [--submissions N] [--keep]

A scratch course of `hidden_state_activation`; the attacker ("mallory") submits notebooks built by
`oracle_student` that send what their process holds through every output the feedback might show: the text
of an exception, its type, the line it was raised at, a returned array's values and shape, text printed in a
later cell, and the time the feedback takes. The target is `formula_1`'s hidden checks: their inputs (the
arguments each check passes) and their expected values, which the student's process only ever receives from
the reference when `hidden_state` is judged on its own (`formula_1` then answers as the reference does).

After each submission is graded (`autograder grade`, or `nbgrader autograde` with `--path kernel`) and its
feedback generated (nbgrader's `generate_feedback`, as the watcher does), the attacker reads the page, keeps
every bit it could decode, and plans the next submission with the outputs that carried something. The
attacker never looks at anything but the page and the time it took; the tool checks every decoded bit
against the truth (the graders' own inputs and the reference's answers), so a channel that leaks nothing
counts nothing.

It stops once every bit is read (then a lookup table with no formula in it is submitted, and its score for
`formula_1`'s checks is shown), or after `--submissions`; it then prints the bits each submission carried by
channel, and the submissions the whole extraction takes at that rate, for `formula_1` and (at the rate one
submission carries through all of a notebook's checks) for every exercise of both assignments.

Its parts: `oracle_plan` (what the attacker knows and plans), `oracle_notebook` (the submission written),
`oracle_page` (the page read back and decoded), `oracle_student` (the code in the submission), `oracle_bound`.
"""

import argparse
import base64
import math
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.devtools import oracle_student as student_side
from autograder.devtools.oracle_bound import capacity_bound, graded_calls
from autograder.devtools.oracle_notebook import lookup_table, write_attack
from autograder.devtools.oracle_page import case_messages, decode_call, exercise_score, grade_and_read, verdict_block
from autograder.devtools.oracle_plan import (
    ASSIGNMENT,
    DEPENDENT,
    FULL,
    GOT,
    RAISE,
    SAME,
    SHAPE,
    TARGET,
    Stream,
    Tally,
    Working,
    plan_calls,
)
from autograder.devtools.repo import new_course
from autograder.grader_support.exercise import collect, reference_function

# The truth: what the graders pass and what the reference answers ------------------------------------------

@dataclass
class Truth:
    inputs: list[str]  # per call of the target: its arguments as the student's side sends them, in bits
    expected: str  # the reference's answers to those calls, in bits
    target_cases: int
    dependent_cases: int


def truth() -> Truth:
    calls = graded_calls(ASSIGNMENT, TARGET)
    reference = reference_function(ASSIGNMENT, TARGET)
    inputs = [student_side.bits_of(student_side.serial(args)) for _, args, _ in calls]
    expected = student_side.bits_of(student_side.serial([reference(*args) for _, args, _ in calls]))
    return Truth(inputs, expected, len(calls), len(collect(ASSIGNMENT, DEPENDENT)))


@dataclass
class Attack:
    course: Path
    path: str
    truth: Truth
    inputs: list[Stream]
    expected: Stream
    working: Working = field(default_factory=Working)
    tallies: list[Tally] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)  # per submission: the target's and dependent's verdicts
    log: Callable[[str], None] = print

    @property
    def done(self) -> bool:
        return all(s.done for s in self.inputs) and self.expected.done

    @property
    def read(self) -> int:
        return sum(b is not None for s in [*self.inputs, self.expected] for b in s.known)

    @property
    def length(self) -> int:
        return sum(s.length for s in [*self.inputs, self.expected])

    def plan(self) -> dict:
        w = self.working
        e_plans = plan_calls(lambda k: self.inputs[k], self.truth.target_cases, w.kinds["E"], w.first["E"],
                             w.rest["E"], False)
        score = [self.expected.unknown_from(0), student_side.SCORE_BITS] if w.score else None
        d_plans = plan_calls(lambda _: self.expected, self.truth.dependent_cases - 1, w.kinds["D"], w.first["D"],
                             w.rest["D"], True, cursor=sum(score) if score else 0)
        sleep = None
        if w.sleep and w.baseline is not None:
            sleep = [self.inputs[0].tail_unknown(student_side.SLEEP_BITS), student_side.SLEEP_BITS]
        return {"target": TARGET, "target_calls": self.truth.target_cases, "E": e_plans, "D": d_plans,
                "sleep": sleep, "score": score}

    def submit(self, pages: Any) -> Tally:
        plan = self.plan()
        write_attack(self.course, plan)
        text, seconds = grade_and_read(self.course, self.path, pages)
        self.verdicts.append("\n".join(verdict_block(text, name) for name in (TARGET, DEPENDENT)))
        tally = Tally()
        self._read_calls(text, TARGET, plan["E"], lambda k: self.inputs[k], "E", tally)
        self._read_calls(text, DEPENDENT, plan["D"], lambda _: self.expected, "D", tally)
        self._read_printed(text, tally)
        self._read_time(seconds, plan["sleep"], tally)
        self._read_score(text, plan["score"], tally)
        self.tallies.append(tally)
        return tally

    def _read_calls(self, text: str, exercise: str, plans: list, stream_of: Callable[[int], Stream], who: str,
                    tally: Tally) -> None:
        cases = case_messages(text, exercise)
        if who == "D":  # the dependent's passing checks sent nothing; its failing ones sent the plans in order
            # Where the page lists the checks of its own run (not of the run on its own, which sent the
            # bits), there is nothing of them to read.
            if "below are its checks with your functions" in text:
                cases = []
            cases = [case for case in cases if case[0] == "FAIL"][:-1]  # the last one sends nothing
        first = next(((v, m) for v, m in cases if v == "FAIL"), None)
        delivered: list[tuple[list, dict[str, int]]] = []  # per call: its plan, and the bits each part carried
        for call, plan in enumerate(plans):
            carried: dict[str, int] = {}
            delivered.append((plan, carried))
            if call >= len(cases) or cases[call][0] != "FAIL":
                continue
            message = cases[call][1]
            stream = stream_of(call)
            for part, bits in decode_call(message, plan, first if cases[call] != first else None).items():
                start, count = next(p[1:3] for p in plan[1] if p[0] == part)
                bits = bits[:min(count, max(0, stream.length - start))]  # past the stream's end: padding
                if bits != self._truth_bits(who, call)[start:start + len(bits)]:
                    tally.wrong += len(bits)
                    continue
                fresh = sum(1 for i in range(len(bits)) if stream.known[start + i] is None)
                stream.learn(start, bits)
                tally.add(f"{exercise} {part}", fresh)
                carried[part] = len(bits) or 1  # a part that came back counts, even on padding
        self._learn_kinds(who, delivered)

    def _truth_bits(self, who: str, call: int) -> str:
        return self.truth.inputs[call] if who == "E" else self.truth.expected

    def _learn_kinds(self, who: str, delivered: list[tuple[list, dict[str, int]]]) -> None:
        """After the first submission: the kind of output that carried the most a call, and the parts of an
        exception that came back, on the first failing call and (FULL or SAME, the better) on the others."""
        w = self.working
        if w.kinds[who] is not None:
            return

        def mean(plans: list[dict[str, int]]) -> float:
            return sum(sum(c.values()) for c in plans) / len(plans) if plans else 0.0

        raised = [(p, c) for p, c in delivered if p[0] == RAISE]
        by_kind = {RAISE: mean([c for _, c in raised]),
                   **{kind: mean([c for p, c in delivered if p[0] == kind]) for kind in (GOT, SHAPE)}}
        w.kinds[who] = max(by_kind, key=lambda k: by_kind[k])
        if raised:
            w.first[who] = [part for part in FULL if raised[0][1].get(part)] or FULL
            others = {tuple(parts): [c for p, c in raised[1:] if [q[0] for q in p[1]] == parts]
                      for parts in (FULL, SAME)}
            best = max(others, key=lambda parts: mean(others[parts]))
            w.rest[who] = [part for part in best if any(c.get(part) for c in others[best])] or list(best)

    def _read_printed(self, text: str, tally: Tally) -> None:
        marks = student_side.PRINT_MARKS
        for call, data in re.findall(rf"{marks[0]}(\d+):([A-Za-z0-9+/=]+){marks[1]}", text):
            call = int(call)
            if call >= len(self.inputs):
                continue
            bits = student_side.bits_of(base64.b64decode(data))
            if bits != self.truth.inputs[call]:
                tally.wrong += len(bits)
                continue
            stream = self.inputs[call]
            fresh = stream.known.count(None)
            stream.learn(0, bits)
            tally.add("printed text", fresh)

    def _read_score(self, text: str, score: list | None, tally: Tally) -> None:
        """The dependent's score on its own (the note above its verdict): how many checks it let pass."""
        if score is None:
            return
        found = re.search(rf"{DEPENDENT} was judged on its own: .*? On its own it scores ([\d.]+) /", text, re.S)
        start, count = score
        if not found or not float(found.group(1)).is_integer() or not 1 <= float(found.group(1)) <= 1 << count:
            self.working.score = False  # not shown: those bits are sent another way
            return
        bits = f"{int(float(found.group(1))) - 1:0{count}b}"[:max(0, self.expected.length - start)]
        if bits != self.truth.expected[start:start + len(bits)]:
            tally.wrong += len(bits)
            return
        fresh = sum(1 for i in range(len(bits)) if self.expected.known[start + i] is None)
        self.expected.learn(start, bits)
        tally.add(f"{DEPENDENT} score", fresh)

    def _read_time(self, seconds: float, sleep: list | None, tally: Tally) -> None:
        w = self.working
        if sleep is None:
            if w.baseline is None:
                w.baseline = seconds
            return
        start, count = sleep
        value = max(0, min((1 << count) - 1, round((seconds - w.baseline) / student_side.SLEEP_STEP)))
        bits = f"{value:0{count}b}"
        if bits != self.truth.inputs[0][start:start + count]:
            tally.wrong += count
            w.sleep = False  # too noisy to use
            return
        stream = self.inputs[0]
        fresh = sum(1 for i in range(count) if start + i < stream.length and stream.known[start + i] is None)
        stream.learn(start, bits)
        tally.add("timing", fresh)


# The run --------------------------------------------------------------------------------------------------

def run(path: str = "sandbox", submissions: int = 6, keep: bool = False,
        log: Callable[[str], None] = print) -> dict[str, Any]:
    """The attack; returns what it found (the figures it prints)."""
    from autograder.course.nbgrader_cli import nbgrader
    from autograder.course.settings import read_course
    from autograder.watch.pages import FeedbackMaker

    scratch = Path(tempfile.mkdtemp(prefix="oracle-"))
    try:
        course = new_course(scratch / "course", (ASSIGNMENT,))
        nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
        settings = read_course(course, rooted=True)
        pages = FeedbackMaker(settings.root, settings.coursedir, settings.coursedir.config)
        known = truth()
        attack = Attack(course, path, known, [Stream(len(bits)) for bits in known.inputs], Stream(len(known.expected)),
                        log=log)
        log(f"oracle: {path} path; target {TARGET} ({known.target_cases} checks), read through {DEPENDENT} judged "
            f"on its own; {attack.length} bits to read ({sum(len(b) for b in known.inputs)} of inputs, "
            f"{len(known.expected)} of expected values, 32 a number)")
        for number in range(1, submissions + 1):
            tally = attack.submit(pages)
            channels = ", ".join(f"{name} {bits}" for name, bits in sorted(tally.bits.items())) or "nothing"
            log(f"submission {number}: {tally.total} bits read ({channels}); wrong {tally.wrong}; "
                f"{attack.read}/{attack.length} read")
            if attack.done:
                break
        found: dict[str, Any] = {"path": path, "submissions": len(attack.tallies), "done": attack.done,
                                 "verdicts": attack.verdicts,
                                 "bits": [t.total for t in attack.tallies], "length": attack.length,
                                 "channels": [t.bits for t in attack.tallies],
                                 "wrong": sum(t.wrong for t in attack.tallies)}
        if attack.done:
            write_attack(course, None, lookup_table(attack.inputs, attack.expected))
            text, _ = grade_and_read(course, path, pages)
            found["lookup_score"] = exercise_score(text, TARGET)
            log(f"extracted in {len(attack.tallies)} submission(s); a lookup table with no formula in it then scores "
                f"{found['lookup_score']} on {TARGET}'s hidden checks (graded submission {len(attack.tallies) + 1})")
        else:
            found.update(_extrapolated(attack, log))
        return found
    finally:
        if keep:
            log(f"kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def _extrapolated(attack: Attack, log: Callable[[str], None]) -> dict[str, Any]:
    """The attack's own rate after its first submission (which tries every kind of output), what it takes at
    that rate, and the bound for every exercise at the most any attack could carry (`capacity_bound`)."""
    steady = attack.tallies[1:] or attack.tallies
    rate = sum(t.total for t in steady) / len(steady)
    left = attack.length - attack.read
    found: dict[str, Any] = {"rate": rate}
    found["needed"] = len(attack.tallies) + math.ceil(left / rate) if rate > 0 else math.inf
    log(f"not extracted in {len(attack.tallies)}: {left} bits left at {rate:.1f} bits a submission: "
        f"{found['needed']} graded submissions for {TARGET} at this attack's rate")
    found["bound"] = bounds = capacity_bound()
    for assignment, rows in bounds.items():
        log(f"{assignment}: at most {rows['_total']:.0f} bits a submission through every check; graded "
            "submissions at the least to read an exercise's hidden inputs and expected values: " +
            ", ".join(f"{name} {_shown(n)}" for name, n in rows.items() if not name.startswith("_")))
    return found


def _shown(count: float) -> str:
    return "impossible" if count == math.inf else str(int(count))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", choices=("sandbox", "kernel"), default="sandbox",
                        help="grade with `autograder grade` (sandbox) or `nbgrader autograde` (graders in the kernel)")
    parser.add_argument("--submissions", type=int, default=6, help="graded submissions at most")
    parser.add_argument("--keep", action="store_true", help="keep the scratch course")
    args = parser.parse_args(argv)
    run(args.path, args.submissions, args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
