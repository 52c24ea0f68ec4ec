"""The framework's nbgrader settings: the defaults of every course that uses it.

They keep the hidden tests out of students' feedback, head it with the score table, say how a grade cell runs
and is scored, send the formgrader's Autograde button through the sandbox, and date what `nbgrader collect`
collects by the exchange's clock. This is their one home.

How they reach nbgrader: the package installs `jupyter-config/nbgrader_config.py` as
`{sys.prefix}/etc/jupyter/nbgrader_config.py`, a file that only applies `framework_defaults()`. nbgrader reads
one `nbgrader_config.py` from each Jupyter config folder (`jupyter --paths`) and the course's own last, so every
course run in this Python environment starts from these, and its own file overrides any of them (a list or a
dict it sets replaces the one here; see docs, "Adding an assignment"). That file imports this module rather
than holding the values, so an editable install follows the clone without being installed again.
`autograder.course.settings` reads the same files in the same order; `autograder.course.feedback_policy` is the
guarantee for a course that overrides them.
"""

from pathlib import Path

from traitlets.config import Config

from autograder.course.result_file import RESULT_FILE
from autograder.sandbox.limits import CELL_SECONDS

# nbgrader's Autograde as NbGraderAPI runs it (the formgrader's button), with the student's code run by the
# sandboxed engine instead of in a kernel of the instructor's.
FORMGRADER_SANITIZE = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "autograder.grading.formgrader.QuietOverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
FORMGRADER_AUTOGRADE = [
    "autograder.grading.formgrader.SandboxedExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Students get their feedback without the hidden tests' source (nbgrader's own list shows it), without the
# traceback lines that quote it, with what the graders found but nothing their own code output in a grade cell
# (which could quote the hidden inputs: docs, "What the feedback reveals"), and their points per exercise first.
FEEDBACK = [
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "autograder.feedback.preprocessors.ClearHiddenTestsQuietly",
    "autograder.feedback.preprocessors.GradersOnly",
    "autograder.feedback.preprocessors.ClearGradeCellTracebacks",
    "autograder.feedback.preprocessors.MathAsMathML",
    "autograder.feedback.preprocessors.ScoreSummary",
    "autograder.feedback.preprocessors.InertMarkdown",  # last: every markdown cell, the student's, made inert
]
# The page is drawn by our `feedback` template (one table of points, each exercise headed by its real score, no
# script), found here before nbgrader's own, which stays reachable after it.
FEEDBACK_TEMPLATES = Path(__file__).resolve().parent.parent / "feedback_template"


def framework_defaults() -> Config:
    """The settings every course starts from, as a course's `nbgrader_config.py` would write them."""
    c = Config()
    # The self-check module next to each notebook is released with it: no `*.py` here. The grader's result file
    # is never copied from a submission (a student's own would pass for the grader's in the report and
    # similarity) nor into the feedback folder nbgrader makes for students.
    c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", RESULT_FILE]

    # The stub raises NotImplementedError, which the graders report as "not implemented yet".
    c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

    # A cell gets CELL_SECONDS (a hidden grade cell's checks take well under a second); a stuck cell is
    # interrupted and grading goes on with the next one. `autograder grade` reads the same value.
    c.Execute.timeout = CELL_SECONDS
    c.Execute.interrupt_on_timeout = True

    # A test cell deleted by the student is put back and run, so deleting it neither helps nor hurts.
    c.OverwriteCells.add_missing_cells = True

    # Anything on stderr zeroes a grade cell; the graders silence their warnings, this catches the rest.
    c.IgnorePattern.enabled = True
    c.IgnorePattern.pattern = r"Warning: "

    c.GenerateFeedback.preprocessors = list(FEEDBACK)
    c.HTMLExporter.extra_template_basedirs = [str(FEEDBACK_TEMPLATES), nbgrader_templates()]

    # Graded attempts under `autograder watch`: 3 a day. Each graded attempt's feedback can carry a few hundred
    # bits out of the hidden checks at the very most (`python -m autograder.devtools.oracle` measures it), and
    # reading any exercise's hidden inputs and expected values takes 47 attempts at the least: more than 3 a day
    # allow in 15 days. An assignment open longer wants fewer (docs, "What the feedback reveals").
    c.AutograderWatch.attempts = 3
    c.AutograderWatch.window_hours = 24

    # `nbgrader collect` and the formgrader's Collect button date a submission by the exchange's clock (the latest
    # change time of the student's inbound folder and of what it holds), never by the student's timestamp.txt.
    c.ExchangeFactory.collect = "autograder.collect.exchange_collect.ExchangeTimeCollect"

    # Late work: the late-penalty plugin every grading path asks (ours, nbgrader's `autograde` and its
    # formgrader), and the course's rules (`autograder.deadlines.rules`). By default no rule: full credit whenever
    # the work arrives, as nbgrader's own default; a course sets its schedule, grace and labels in its file.
    c.AssignLatePenalties.plugin_class = "autograder.deadlines.late_plugin.LateCredit"
    c.LateCredit.schedule = []
    c.LateCredit.after = None
    c.LateCredit.grace = "0s"
    c.LateCredit.assignments = {}
    c.LateCredit.labels = {}

    # Scoped to the Autograde that NbGraderAPI runs: `nbgrader autograde` on the command line stays nbgrader's own.
    c.NbGraderAPI.Autograde.sanitize_preprocessors = list(FORMGRADER_SANITIZE)
    c.NbGraderAPI.Autograde.autograde_preprocessors = list(FORMGRADER_AUTOGRADE)
    return c


def nbgrader_templates() -> str:
    """nbgrader's own template folder (its `feedback`, its formgrader's), as `GenerateFeedback` finds it."""
    import importlib.util

    spec = importlib.util.find_spec("nbgrader")  # found, not imported: its import is slow, and not needed here
    return str(Path(spec.origin).resolve().parent / "server_extensions" / "formgrader" / "templates")
