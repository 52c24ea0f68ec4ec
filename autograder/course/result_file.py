"""The name of the file `autograder grade` writes beside each autograded notebook (`model.SubmissionResult`),
in a module that loads nothing: the framework's defaults name it too (`course.defaults`), so that nbgrader never
copies a student's file of that name into `autograded/`, where the report and similarity would take it for the
grader's own, nor ours into the `feedback/` folder it makes for students."""

RESULT_FILE = "autograder-result.json"
