"""nbgrader configuration for the RNN hidden-state course (run nbgrader commands from this folder)."""

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

c.CourseDirectory.course_id = "rnn-hidden-state"
# The self-check module next to each notebook is released with it; nothing else is.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]

# One stub inside every answer region, between ### START CODE HERE ### and ### END CODE HERE ###.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Grading: a cell gets 30 s, nbgrader's default (a hidden grade cell's checks take well under a second);
# a stuck cell is interrupted and grading goes on with the next one. `autograder grade` reads it too.
c.Execute.timeout = 30
c.Execute.interrupt_on_timeout = True

# A test cell deleted by the student is put back and run, so deleting it neither helps nor hurts.
c.OverwriteCells.add_missing_cells = True

# Warnings on stderr would zero a grade cell; the graders already silence them, this catches the rest.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"Warning: "

# Students get their feedback without the hidden tests' source, and with what the graders found but nothing
# their own code output (which could quote the hidden inputs: README, "What the feedback reveals").
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "autograder.feedback.ClearHiddenTestsQuietly",
    "autograder.feedback.GradersOnly",
    "autograder.feedback.ClearGradeCellTracebacks",
    "autograder.feedback.ScoreSummary",
]


# Graded attempts under `autograder watch`: 3 a day. Each graded attempt's feedback can carry a few hundred
# bits out of the hidden checks at the very most (`python -m autograder.devtools.oracle` measures it), and
# reading any exercise's hidden inputs and expected values takes 47 attempts at the least: more than 3 a day
# allow in 15 days. An assignment open longer wants fewer (README, "What the feedback reveals").
c.AutograderWatch.attempts = 3
c.AutograderWatch.window_hours = 24


# The formgrader's Autograde button grades through the sandboxed engine (autograder/formgrader.py). Scoped
# to the Autograde that NbGraderAPI runs: `nbgrader autograde` on the command line stays nbgrader's own.
c.NbGraderAPI.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "autograder.formgrader.QuietOverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.NbGraderAPI.Autograde.autograde_preprocessors = [
    "autograder.formgrader.SandboxedExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
