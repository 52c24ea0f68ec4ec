"""The oracle attack's (`devtools.oracle`) reading of a feedback page: mallory's submission graded as a course
grades it and its page generated, as the student reads it; each check's verdict and message, an exercise's
score; and the bits each part of a call's plan came back as.
"""

import base64
import html
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from autograder.devtools import oracle_student as student_side
from autograder.devtools.oracle_plan import ASSIGNMENT, GOT, SHAPE, STUDENT


def grade_and_read(course: Path, path: str, pages: Any) -> tuple[str, float]:
    """Grade mallory's submission as a course would, generate the feedback; its text and the grading's time."""
    bin_dir = Path(sys.executable).parent
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    started = time.monotonic()
    if path == "kernel":
        command = [sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--student", STUDENT, "--force"]
    else:
        command = [str(bin_dir / "autograder"), "grade", ASSIGNMENT, "--student", STUDENT, "--force"]
    done = subprocess.run(command, cwd=course, capture_output=True, text=True, env=env, timeout=600)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:3])} failed: {done.stderr[-1500:]}")
    page = pages.generate(ASSIGNMENT, STUDENT, [ASSIGNMENT])[ASSIGNMENT].decode()
    return as_text(page), seconds


def as_text(page: str) -> str:
    page = re.sub(r"<(style|script)\b.*?</\1>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


CASE = re.compile(r"^\s*\[(pass|FAIL)\] (\S+)")


def case_messages(text: str, exercise: str) -> list[tuple[str, str]]:
    """(verdict, message) of each check of the exercise's last verdict on the page, in order."""
    lines = text.splitlines()
    heads = [i for i, line in enumerate(lines) if re.match(rf"^\s*{exercise}: [\d.]+ / [\d.]+ points", line)]
    if not heads:
        return []
    cases: list[tuple[str, list[str]]] = []
    for line in lines[heads[-1] + 1:]:
        found = CASE.match(line)
        if found:
            cases.append((found.group(1), []))
        elif cases and line.startswith("         "):
            cases[-1][1].append(line.strip())
        elif cases and line.strip():
            break
    return [(verdict, "\n".join(message)) for verdict, message in cases]


def verdict_block(text: str, exercise: str) -> str:
    """The graders' verdict of one exercise on the page, as the student reads it (the note of a run on its
    own included); trailing spaces dropped, so that two pages compare by what they say."""
    lines = [line.rstrip() for line in text.splitlines()]
    # The note of a run on its own opens the verdict where there is one; else the page's heading over the cell.
    for head in (re.compile(rf"^\s*{exercise} was judged on its own"), re.compile(rf"^\s*{exercise}: [\d.]+ / ")):
        heads = [i for i, line in enumerate(lines) if head.match(line)]
        if heads:
            break
    else:
        return ""
    block = []
    for line in lines[heads[0]:]:
        if block and not line.strip():
            break
        block.append(line)
    return "\n".join(block)


def exercise_score(text: str, exercise: str) -> tuple[float, float] | None:
    found = re.findall(rf"^\s*{exercise}: ([\d.]+) / ([\d.]+) points", text, flags=re.M)
    return (float(found[-1][0]), float(found[-1][1])) if found else None


TYPE_NAMES = [error.__name__ for error in student_side.TYPES]


def decode_call(message: str, plan: list, first: tuple[str, str] | None) -> dict[str, str]:
    """The bits each part of one call's plan came back as, read from its check's message."""
    kind, parts = plan
    found: dict[str, str] = {}
    if kind == GOT:
        numbers = re.search(r"got\s+shape \(8,\) int64: \[([\d\s]+)\]", message)
        if numbers:
            values = [int(v) for v in numbers.group(1).split()]
            found[GOT] = "".join(f"{v:0{student_side.GOT_BITS}b}" for v in values)
    elif kind == SHAPE:
        shape = re.search(r"got\s+(?:shape\s+)?\((\d+),\)", message)
        if shape:
            found[SHAPE] = f"{int(shape.group(1)) - 1:0{student_side.SHAPE_BITS}b}"[-student_side.SHAPE_BITS:]
    else:
        for name, _, count in (p[:3] for p in parts):
            if name == "type":
                raised = re.search(r"raised (\w+)", message)
                if raised and raised.group(1) in TYPE_NAMES:
                    found["type"] = f"{TYPE_NAMES.index(raised.group(1)):0{count}b}"
            elif name == "line":
                line = re.search(r"if v == (\d+): raise E", message)
                if line:
                    found["line"] = f"{int(line.group(1)):0{count}b}"
            elif name == "text":
                text = re.search(rf"{student_side.TEXT_MARKS[0]}([A-Za-z0-9+/=]+){student_side.TEXT_MARKS[1]}",
                                 message)
                if text:
                    data = base64.b64decode(text.group(1))
                    found["text"] = student_side.bits_of(data)[:count]
            elif name == "same" and first is not None:
                if "(the same problem as the one explained)" in message:
                    found["same"] = "1"
                elif message.strip():
                    found["same"] = "0"
    return found
