"""The submission's printed-text budget (`OutputBudget`): one object, taken from by every cell reply the trusted
side checks (`replies.checked_cell_reply`), cut once and said so, given back when a run is thrown away."""

from autograder.sandbox.limits import OUTPUT_DROPPED
from autograder.sandbox.output_budget import OutputBudget
from autograder.sandbox.replies import checked_cell_reply


def _reply(*texts: str) -> dict:
    return {"outputs": [["stdout", text] for text in texts]}


def test_the_budget_is_shared_by_every_reply_and_cut_once_where_it_runs_out():
    budget = OutputBudget(10)
    first, hit = checked_cell_reply(_reply("abcd", "efg"), budget)
    assert first["outputs"] == [("stdout", "abcd"), ("stdout", "efg")] and not hit and budget.left == 3
    # The next notebook's cell takes from the same budget: cut where it runs out, the limit met there only.
    second, hit = checked_cell_reply(_reply("hijklm", "nop"), budget)
    assert second["outputs"] == [("stdout", "hij" + OUTPUT_DROPPED)] and hit == {"output"} and budget.cut
    third, hit = checked_cell_reply(_reply("q"), budget)
    assert third["outputs"] == [] and not hit  # dropped, and said so once only


def test_a_run_thrown_away_gives_back_what_it_took():
    budget = OutputBudget(5)
    left = budget.left
    assert budget.take("123456") == "12345" + OUTPUT_DROPPED and budget.cut
    budget.rewind(left)
    assert budget.take("12345") == "12345" and budget.left == 0 and not budget.cut
