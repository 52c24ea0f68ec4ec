"""The terminal's tables keep their titles on one line."""

from rich.console import Console

from autograder.display.terminal import exercise_table, score_table, summary_table


def rendered(table) -> list[str]:
    console = Console(width=200, record=True, color_system=None)
    console.print(table)
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_a_one_exercise_score_table_keeps_its_title_on_one_line():
    title = "tanh_step: scores per exercise"
    lines = rendered(score_table([("tanh_step", 2.0)], [("s1", [2.0]), ("s2", [1.0])], title=title))
    assert lines[0] == title
    assert lines[-1].split() == ["mean", "1.5", "1.5"]


def test_narrow_summary_and_exercise_tables_keep_their_titles_on_one_line():
    title = "a title far wider than the table below it"
    assert rendered(summary_table([("a", 1)], title=title))[0] == title
    assert rendered(exercise_table([("f", 1.0, 1.0, 1.0, "")], title=title))[0] == title
