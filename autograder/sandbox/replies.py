"""What a sandboxed process's replies are taken to say: a cell's reply kept to well-formed, bounded fields, a
failed call in the grader's words, and the limit that ended a process."""

import os
import signal
from typing import Any

from autograder.grader_support import raised
from autograder.grader_support.student import not_defined
from autograder.sandbox.limits import Limits
from autograder.sandbox.output_budget import OutputBudget

NOT_CALLED = "{name} was not called: this cell's time limit was already used up"
CALL_FAILED = {
    "unsendable": "{name} returned a value that cannot be sent back to the grader",
    "too_big": "{name} returned a value too big to send back to the grader",
    "uncallable": "{name} could not be called with the grader's arguments",
}
# What a value that cannot cross was, by the code the process gives (`wire.WireError.reason`), in words with the
# way out; any other code is not quoted, whatever the process sent.
UNSENDABLE = {
    "dtype:O": "an array of dtype object (Python objects in an array, as np.frompyfunc or np.array of mixed items "
               "makes)",
    "dtype:V": "an array of a structured dtype",
    "dtype:M": "an array of dates (datetime64)",
    "dtype:m": "an array of time spans (timedelta64)",
    "type": "a value that is neither numbers, text, arrays of numbers, nor lists, tuples or dicts of them",
}
UNSENDABLE_ARRAY = "{name} returned {what}, which cannot be sent back to the grader: return an array of numbers " \
                   "(for example with .astype(float))"

# A process that ended during a call, by the limit it met (`SandboxDied.limit`): said without the exit
# status or signal, which the code chooses.
STOPPED = {
    "time": "stopped: it did not finish in time",
    "memory": "stopped: it used more memory than it may",
    "output": "stopped: it sent back more than the grader accepts",
    "processes": "stopped: it started more processes than it may",
    "crash": "the submission's process ended during this call (it exited or crashed)",
}



def explain_death(message: str, limit: str, info: dict[str, Any] | None, limits: Limits) -> tuple[str, str]:
    """Name the limit that ended a process, from how it ended and the CPU time it used."""
    status = (info or {}).get("status")
    if status is None or limit in ("time", "output"):
        return message, limit
    if info.get("oom"):  # the memory cgroup's count: no guess needed
        return (f"stopped: it used more than its {limits.memory_mb} MB of memory, with all the processes it "
                "started", "memory")
    cpu = info.get("cpu", 0.0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= limits.cpu_seconds - 0.5):
            return f"stopped: it used its {limits.cpu_seconds} s of CPU time", "time"
        if sig == signal.SIGKILL:
            return f"{message} (killed, likely over the {limits.memory_mb} MB memory limit)", "memory"
        return f"{message} (killed by signal {signal.Signals(sig).name})", "crash"
    code = os.waitstatus_to_exitcode(status)
    return f"{message} (exit status {code}: os._exit or a crash)", "crash"


def checked_cell_reply(header: dict, output: OutputBudget) -> tuple[dict[str, Any], set[str]]:
    """Keep only well-formed, bounded fields of a cell reply (it comes from untrusted code): (the reply, and the
    limits it met). Printed text is taken from the submission's `output` budget."""
    limits_hit: set[str] = set()
    outputs = []
    for item in header.get("outputs", []) if isinstance(header.get("outputs"), list) else []:
        if isinstance(item, list) and len(item) == 2 and item[0] in ("stdout", "stderr") and isinstance(item[1], str):
            was_cut = output.cut
            text = output.take(item[1])
            if text is None:  # cut already, and said so
                continue
            if output.cut and not was_cut:
                limits_hit.add("output")
            outputs.append((item[0], text))
    result = header.get("result")
    error = header.get("error")
    if isinstance(error, dict):
        tb = error.get("traceback") if isinstance(error.get("traceback"), list) else []
        error = {"ename": str(error.get("ename", "Error"))[:200], "evalue": str(error.get("evalue", ""))[:2000],
                 "traceback": [str(line)[:2000] for line in tb[:100]]}
    else:
        error = None
    for limit in header.get("limits", []) if isinstance(header.get("limits"), list) else []:
        if limit in ("time", "memory", "output", "processes"):
            limits_hit.add(limit)
    return ({"outputs": outputs, "result": str(result)[:10_000] if isinstance(result, str) else None,
             "error": error}, limits_hit)


def call_failure(name: str, header: dict, cells: dict[int, str]) -> str:
    """What a failed call says, in the grader's words: the process only names which failure it was (and,
    for an exception, its type and lines, checked against `cells`, this side's copy of the cells). Nothing it
    computed is quoted (docs, "What the feedback reveals")."""
    if header.get("timeout"):
        return f"{name} did not return in time and was stopped"
    kind = header.get("kind") if isinstance(header.get("kind"), str) else None
    if kind == "raised":
        return raised.from_report(header.get("raised"), cells).describe(name)
    if kind == "undefined":
        return not_defined(name)
    what = UNSENDABLE.get(header.get("why")) if isinstance(header.get("why"), str) else None
    if kind == "unsendable" and what is not None:
        if header["why"].startswith("dtype:"):
            return UNSENDABLE_ARRAY.format(name=name, what=what)
        return f"{name} returned {what}, which cannot be sent back to the grader"
    return CALL_FAILED.get(kind, "{name} failed when called").format(name=name)
