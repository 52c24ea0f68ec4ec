"""The printed text one submission may keep, counted on the trusted side: what a process says of its own count
is not trusted."""

from autograder.sandbox.limits import OUTPUT_DROPPED


class OutputBudget:
    """Characters of printed text a submission may still keep (`Limits.output_chars` at first). Made once per
    submission by its tally (`grading.submission_tally`) and handed, explicitly, to every cell run that keeps
    text (`Sandbox.run_cell`), which takes from it; the one place the count lives."""

    def __init__(self, chars: int) -> None:
        self.left = chars  # -1 once cut

    @property
    def cut(self) -> bool:
        """Whether the text was cut already (and said so): everything printed since is dropped."""
        return self.left < 0

    def take(self, text: str) -> str | None:
        """`text` as kept: whole while the budget lasts, cut where it runs out (and said so), None once cut."""
        if len(text) <= self.left:
            self.left -= len(text)
            return text
        if self.cut:
            return None
        kept, self.left = text[:self.left] + OUTPUT_DROPPED, -1
        return kept

    def rewind(self, left: int) -> None:
        """Give back what a run that is thrown away took (`left`: what was left before it)."""
        self.left = left
