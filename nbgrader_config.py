"""nbgrader configuration for the RNN hidden-state course (run nbgrader commands from this folder).

Only what is particular to this course: the framework's settings for grading and feedback (hidden tests kept out,
the score table, cell limits, the formgrader's sandboxed Autograde) are every course's defaults, installed with
the package (autograder/course/defaults.py). This course keeps its graders in autograder/graders/ (no
c.Autograder.graders).
"""

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

c.CourseDirectory.course_id = "rnn-hidden-state"
