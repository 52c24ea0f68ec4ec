"""The `autograder` framework's defaults for every course in this Python environment.

Installed with the package as {sys.prefix}/etc/jupyter/nbgrader_config.py (pyproject.toml, data-files). nbgrader
reads it before the course's own nbgrader_config.py, which overrides any of it. The values live in
autograder/course/defaults.py: this file only applies them, so an editable install follows its clone.
"""

c = get_config()  # noqa: F821 - get_config is given by traitlets when it loads this file
try:
    from autograder.course.defaults import framework_defaults
except ModuleNotFoundError as missing:
    if missing.name != "autograder":
        raise
    # This Python cannot import the framework (a student's nbgrader, run with the packages' folder on its path
    # but not the clone of an editable install): nothing is graded here, and feedback made here fails for want
    # of the step that hides the tests instead of showing them.
    c.GenerateFeedback.preprocessors = ["autograder.feedback.preprocessors.ClearHiddenTestsQuietly"]
else:
    c.merge(framework_defaults())
