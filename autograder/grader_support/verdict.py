"""The graders' verdict as a notebook output, marked as the graders' own.

A grade cell's outputs mix the graders' verdict with what the submission's code printed or raised (its
visible self-check runs the student's functions). The feedback shows the verdict and leaves the rest out
(`autograder.feedback.preprocessors.GradersOnly`), so the verdict is a display output carrying `MARK` in its metadata:
in the sandbox path only the trusted side makes display outputs (the sandboxed process can only print), so
the mark cannot be forged there; in the kernel (`nbgrader autograde`) the student's code shares the graders'
process, as it shares everything else there.
"""

from typing import Any

MARK = "autograder"
# The first line of a grade cell's error when only the grader's own run of the visible self-check failed.
TRUSTED_RUN_NOTE = ("The grader ran this self-check again on your functions, outside your notebook's process, and "
                    "it failed there: the cell scores 0.")


def verdict_output(text: str) -> dict[str, Any]:
    """The verdict as an nbformat output (plain JSON), for the autograded notebook the engine writes."""
    return {"output_type": "display_data", "data": {"text/plain": text}, "metadata": {MARK: {"verdict": True}}}


def is_verdict(output: Any) -> bool:
    metadata = output.get("metadata") if isinstance(output, dict) else None
    mark = metadata.get(MARK) if isinstance(metadata, dict) else None
    return output.get("output_type") == "display_data" and isinstance(mark, dict) and mark.get("verdict") is True


def show_in_kernel(text: str) -> None:
    """The verdict in a kernel's cell, as the same marked output; printed when there is no kernel."""
    try:
        from IPython import get_ipython
        from IPython.display import publish_display_data
    except ImportError:
        get_ipython = None
    if get_ipython is None or get_ipython() is None:
        print(text)
        return
    publish_display_data({"text/plain": text}, metadata={MARK: {"verdict": True}})
