"""nbgrader preprocessors for the feedback students receive."""

import copy
import dataclasses
import html
import re
from typing import Any

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor
from traitlets import List

from autograder.feedback.exercise_outcome import (
    TO_BE_GRADED,
    PageSummary,
    by_hand,
    outcome,
    score_line,
    set_by_instructor,
)
from autograder.feedback.math_markup import with_mathml
from autograder.grader_support.verdict import TRUSTED_RUN_NOTE, is_verdict
from autograder.grades.page_grade import page_grade
from autograder.nbgrader_glue.notebook import is_test_cell


class _FeedbackPreprocessor(NbGraderPreprocessor):
    # nbconvert's HTML exporter configures `display_data_priority` on every preprocessor it runs (through
    # NbConvertBase); nbgrader's base class declares it without `config=True`, so each feedback step
    # warned that it does not recognise the option. Declared configurable here, it is taken silently.
    display_data_priority = List(config=True, help="nbconvert's output priority (not used by this step)")


class ClearHiddenTestsQuietly(_FeedbackPreprocessor, ClearHiddenTests):
    """nbgrader's `ClearHiddenTests`, taking nbconvert's configuration without a warning."""


class GradersOnly(_FeedbackPreprocessor):
    """Show what the graders found, and nothing the submission's own code output.

    Whatever a submission's process prints, displays or raises may carry what it computed from the hidden
    inputs it was called with (in the sandbox it holds them all before its first cell runs; in a kernel, from
    the first hidden check on): a later cell printing them, or the self-check's error quoting them, would make
    the feedback an answer oracle (docs, "What the feedback reveals"). So every code cell's outputs are left
    out, except in grade cells the graders' verdict (`autograder.grader_support.verdict`), the cell's score, and, for an
    error, a fixed sentence saying which kind it was. The student sees their code's own output by running
    their notebook, where the visible self-checks print the same messages on the same public examples.
    """

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        for cell in nb.cells:
            if cell.get("cell_type") == "code":
                cell["outputs"] = _graders_outputs(cell.get("outputs", [])) if is_test_cell(cell) else []
        nb.cells.insert(0, new_markdown_cell(OWN_OUTPUT_NOTE))
        return nb, resources


OWN_OUTPUT_NOTE = ("This page shows what the graders found. What your own code printed, displayed or raised "
                   "is not shown here: run your notebook to see it.")
# A grade cell's error, by kind: the sentence stands in for the error's own text, which the code wrote.
STOPPED_KINDS = {
    "TimeoutError": "this cell ran past its time limit and was stopped; it scores 0",
    "CellTimeoutError": "this cell ran past its time limit and was stopped; it scores 0",
    "KeyboardInterrupt": "this cell ran past its time limit and was stopped; it scores 0",
    "SandboxStopped": "your notebook's process was stopped in this cell (a limit, or it exited); it scores 0",
    "NotRun": "not run: your notebook's time ran out, or its process ended, before this cell; it scores 0",
}
SELF_CHECK_FAILED = ("the visible self-check in this cell failed, so this cell scores 0: run this cell in "
                     "your notebook to read its message")
TRUSTED_RUN_FAILED = ("the visible self-check passed in your notebook's process, but failed when the grader ran "
                      "it again on your functions outside it (do they keep state between calls?): this cell "
                      "scores 0")


def _graders_outputs(outputs: list) -> list:
    kept = []
    for output in outputs:
        kind = output.get("output_type")
        if is_verdict(output):
            kept.append(output)
        elif kind == "execute_result" and _is_number(output.get("data", {}).get("text/plain")):
            kept.append(output)
        elif kind == "error":
            name = output.get("ename")
            if name in STOPPED_KINDS:
                sentence = STOPPED_KINDS[name]
            elif output.get("traceback", [None])[:1] == [TRUSTED_RUN_NOTE]:
                sentence = TRUSTED_RUN_FAILED
            else:
                sentence = SELF_CHECK_FAILED
            kept.append(new_output("error", ename=name if name in STOPPED_KINDS else "SelfCheckFailed",
                                   evalue=sentence, traceback=[sentence]))
    return kept


def _is_number(text: object) -> bool:
    try:
        float(str(text))
    except ValueError:
        return False
    return True


class ClearGradeCellTracebacks(_FeedbackPreprocessor):
    """Reduce a grade cell's error to its last line (`AssertionError: ...`).

    IPython prints the lines around the failing one, and in a grade cell those are the hidden tests that
    `ClearHiddenTests` removed from the source; the message itself is what the student needs.
    """

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict,
                        cell_index: int) -> tuple[NotebookNode, ResourcesDict]:
        if is_test_cell(cell):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {explain(output)}"]
        return cell, resources


def explain(error: NotebookNode) -> str:
    """The error's message; a cell stopped at nbgrader's time limit carries none, so say so plainly."""
    if error.get("evalue"):
        return error["evalue"]
    if error.get("ename") in ("KeyboardInterrupt", "CellTimeoutError", "TimeoutError"):
        return "this cell ran past its time limit and was stopped (look for an endless loop); it scores 0"
    return "(no message)"


class MathAsMathML(_FeedbackPreprocessor):
    """Render the markdown cells' LaTeX as MathML, and put their headings one level down.

    The page is read offline and where scripts do not run (JupyterLab's HTML viewer), so no MathJax: the
    browser draws MathML itself (`autograder.feedback.math_markup`). The page's own title is its one `h1`, so the
    notebook's `#` becomes `##`, and so on: the headings stay in order."""

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict,
                        cell_index: int) -> tuple[NotebookNode, ResourcesDict]:
        if cell.get("cell_type") == "markdown":
            # A written answer is the student's text: never markup on the page (their other edits are theirs)
            written = bool(cell.get("metadata", {}).get("nbgrader", {}).get("solution"))
            source = with_mathml(cell.source, escape_html=written).text
            cell.source = "".join(_one_level_down(part) if i % 2 == 0 else part
                                  for i, part in enumerate(_FENCE.split(source)))
        return cell, resources


_FENCE = re.compile(r"(```.*?```|~~~.*?~~~)", re.S)


def _one_level_down(markdown: str) -> str:
    return re.sub(r"^(#{1,5})(?=[ \t])", r"#\1", markdown, flags=re.M)


def heading_level(markdown: str) -> int | None:
    """The level of the last ATX heading in a markdown cell, None when it has none."""
    found = re.findall(r"^(#{1,6})[ \t]", _FENCE.sub("", markdown), flags=re.M)
    return len(found[-1]) if found else None


class ScoreSummary(_FeedbackPreprocessor):
    """Each grade cell's real score and why (`autograder.feedback.exercise_outcome`), for the page's one table of
    points,
    named by exercise, and the heading over each exercise's grade cell (the `feedback` template draws both).

    The verdict's own count and its "the cell keeps these points if ..." line go: the heading says what the
    cell scored and which rule made it. The cell's value (its score again) goes too. The verdict is also given
    as HTML in which a number never breaks across lines (`[-` / `0.93`)."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        outcomes, level = [], 1  # the page's title is its h1
        for cell in nb.cells:
            if cell.get("cell_type") == "markdown":
                level = heading_level(cell.source) or level
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if not meta.get("grade") or "score" not in meta:
                continue
            if cell.get("cell_type") != "code":  # a written answer, scored by hand in the formgrader
                outcomes.append(by_hand(cell))
                continue
            found = outcome(cell, STOPPED_KINDS, TRUSTED_RUN_FAILED, level=min(level + 1, 6))
            outcomes.append(found)
            cell.outputs = [_shown_verdict(o, found.exercise) if is_verdict(o) else o for o in cell.outputs
                            if o.get("output_type") != "execute_result"]
        found = page_grade(resources.get("nbgrader", {}), self.config)
        if found is None:  # nbgrader's own numbers, as GetGrades read them
            penalty = float(resources.get("nbgrader", {}).get("late_penalty") or 0)
            resources["autograder"] = PageSummary(outcomes, penalty)
            return nb, resources
        # The heading, the penalty row and the deadline line: one computation (`grades.page_grade`), of the
        # gradebook as it is now; a cell an instructor scored says so, with their reason.
        outcomes = [set_by_instructor(o, found.set_by_instructor[o.grade_id]) if o.grade_id in found.set_by_instructor
                    else dataclasses.replace(o, pending=True, status=TO_BE_GRADED) if o.grade_id in found.pending
                    else o for o in outcomes]
        given = rubric_given(resources.get("nbgrader", {}))
        outcomes = [dataclasses.replace(o, rubric=tuple(given[o.grade_id]), status="scored by your instructor")
                    if o.grade_id in given and not o.pending else o for o in outcomes]
        resources["nbgrader"]["score"] = found.score
        resources["autograder"] = PageSummary(outcomes, found.penalty, found.line or "",
                                              found.grade.pending_points(found.notebook))
        return nb, resources


class InertMarkdown(_FeedbackPreprocessor):
    """Every markdown cell as HTML that cannot run nor take the page over, the feedback's last step.

    The markdown cells are the submission's: a student can edit any of them, or add one, and a markdown cell may hold
    HTML, which nbconvert's template puts on the page as it is (a script, an image's handler, a frame, a form, a
    style that hides the page would run or show on their own feedback page, which the formgrader and an LMS may show
    too). So each is rendered here as the template would (nbconvert's markdown renderer, after `MathAsMathML` drew its
    formulas and `ScoreSummary` read its headings), then kept to what only reads (`display.inert_html`, MathML
    included), and the `feedback` template puts that HTML in place of its own rendering (`resources[INERT]`).
    Every cell, not only the ones that differ from the release: the released narrative holds no HTML, and what it
    holds (headings, lists, code, links, formulas) reads the same."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        for cell in nb.cells:
            if cell.get("cell_type") == "markdown":
                cell.source = inert_markdown(cell.source, cell.get("attachments") or {})
        resources[INERT] = True
        return nb, resources


INERT = "autograder_inert_markdown"  # resources: the markdown cells' sources are HTML made inert (the template's key)


def inert_markdown(markdown: str, attachments: dict) -> str:
    """A markdown cell as inert HTML: nbconvert's rendering (as `HTMLExporter.markdown2html`, no anchor links: the
    headings' ids go, as every `id` does) made inert."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
    from nbconvert.filters.strings import strip_files_prefix

    from autograder.display.inert_html import inert_html

    renderer = IPythonRenderer(escape=False, allow_harmful_protocols=False, exclude_anchor_links=True,
                               attachments=attachments if isinstance(attachments, dict) else {})
    try:
        rendered = MarkdownWithMath(renderer=renderer).render(markdown)
    except Exception:  # noqa: BLE001 - a student's cell the renderer cannot read (a broken attachment): its text
        rendered = f"<pre>{html.escape(markdown)}</pre>"
    return inert_html(strip_files_prefix(rendered), math=True)


def _shown_verdict(output: NotebookNode, exercise: str) -> NotebookNode:
    lines = str(output.get("data", {}).get("text/plain", "")).rstrip("\n").split("\n")
    count = next((i for i, line in enumerate(lines) if score_line(exercise).fullmatch(line)), None)
    text = "\n".join(line for i, line in enumerate(lines)
                     if i != count and not line.strip().startswith("(the cell keeps these points"))
    # Only these two forms: in the kernel the submission's code could publish a marked output of its own.
    output["data"] = {"text/plain": text, "text/html": f'<pre class="verdict">{unbroken_numbers(text)}</pre>'}
    return output


def unbroken_numbers(text: str) -> str:
    """`text` as HTML, each number standing as a word (`[-0.9303,`, `1e-05]`, `-inf`) kept on one line: a
    browser may break a line after a minus sign."""
    parts = _NUMBER.split(text)
    return "".join(f'<span class="unbroken">{html.escape(part)}</span>' if i % 2 else html.escape(part)
                   for i, part in enumerate(parts))


_NUMBER = re.compile(r"(?<!\S)([\[(]*[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+|inf|nan)[\]),;:]*)(?!\S)")


GRADERS_ONLY = "autograder.feedback.preprocessors.GradersOnly"
INERT_MARKDOWN = "autograder.feedback.preprocessors.InertMarkdown"
NBGRADER_DEFAULT = ["nbgrader.preprocessors.GetGrades", "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor"]


def with_graders_only(config: Any) -> Any:
    """The course's configuration with `GradersOnly` among its feedback preprocessors and `InertMarkdown` last (a
    copy; the course's own list if it has them): the watcher releases feedback after every attempt, and a course
    that forgot a line in nbgrader_config.py must not turn it into an answer oracle, nor run a student's HTML."""
    from traitlets.config import Config

    config = copy.deepcopy(Config(config)) if config is not None else Config()
    listed = list(config.GenerateFeedback.get("preprocessors", NBGRADER_DEFAULT))
    names = [item if isinstance(item, str) else f"{item.__module__}.{item.__name__}" for item in listed]
    if not (INERT_MARKDOWN in names or InertMarkdown in listed):  # and the markdown cells made inert, last
        listed.append(INERT_MARKDOWN)
    if not (GRADERS_ONLY in names or GradersOnly in listed):
        later = [i for i, name in enumerate(names)
                 if name.rsplit(".", 1)[-1] in ("ClearGradeCellTracebacks", "ScoreSummary")]
        listed.insert(later[0] if later else len(names), GRADERS_ONLY)
    config.GenerateFeedback.preprocessors = listed
    return config


def rubric_given(nbgrader: dict[str, Any]) -> dict[str, list[tuple[float, str]]]:
    """The rubric items an instructor gave this page's student, by question (`by_question.rubric`); none when the
    gradebook has no rubric or cannot be read this way (the page keeps its scores)."""
    from sqlalchemy import create_engine, inspect, text
    from sqlalchemy.pool import NullPool

    from autograder.by_question.rubric import given_items
    from autograder.deadlines.tables import RUBRIC_ITEM_TABLE

    assignment, student, db_url = nbgrader.get("assignment"), nbgrader.get("student"), nbgrader.get("db_url")
    notebook = nbgrader.get("notebook")
    if not (assignment and student and db_url and notebook):
        return {}
    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            if not inspect(connection).has_table(RUBRIC_ITEM_TABLE):
                return {}
            return given_items(lambda sql, params: [tuple(r) for r in connection.execute(text(sql), params)],
                               assignment, notebook, student)
    except Exception:  # a server gone, a gradebook of another release: the page keeps its scores
        return {}
    finally:
        engine.dispose()
