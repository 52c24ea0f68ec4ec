"""`autograder report`: one self-contained HTML page per assignment, for the instructor.

`data` collects the numbers (gradebook + result files), `plots` draws them, `html` lays out the page;
`write_report` runs the three and writes `<output>/<assignment>.html`.
"""

from datetime import datetime
from pathlib import Path

from autograder.report import html, plots
from autograder.report.data import ClassData, ReportError, collect

__all__ = ["ClassData", "ReportError", "charts", "collect", "write_report"]


def charts(data: ClassData) -> dict[str, bytes]:
    """Every chart the page shows, as PNG bytes by name; a chart with nothing to show is left out."""
    drawn = {
        "scores": plots.score_histogram(data.scores, data.max_score, data.mean_score),
        "pass_rates": plots.pass_rate_chart([e.label for e in data.exercises],
                                            [data.pass_rate(e) for e in data.exercises]),
    }
    if data.misconceptions:
        drawn["misconceptions"] = plots.misconception_chart(
            [m.hint for m in data.misconceptions], [len(m.students) for m in data.misconceptions],
            data.with_misconception_data)
    if data.seconds:
        drawn["seconds"] = plots.grading_time_histogram(list(data.seconds.values()))
    return drawn


def write_report(course: Path, assignment: str, output: Path, formgrader: str = html.FORMGRADER
                 ) -> tuple[Path, ClassData]:
    """Write `output/<assignment>.html` for the course folder `course`; returns the path and the data.
    `formgrader`: the formgrader's address, for the links to cells waiting for manual grading."""
    data = collect(course, assignment)
    page = html.render(data, charts(data), datetime.now(), formgrader)
    output.mkdir(parents=True, exist_ok=True)
    path = output / f"{assignment}.html"
    path.write_text(page, encoding="utf-8")
    return path, data
