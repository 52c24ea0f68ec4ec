"""The names of our tables that hold a course's exceptions and its settled grades (made by
`autograder.migrations`): declared here, where nothing is imported, so the readers of the gradebook
(`grades.facts`), `grades.settle` and the exception store name them without importing each other."""

LABEL_TABLE = "autograder_student_label"  # a student's label for the whole course
OVERRIDE_TABLE = "autograder_score_override"  # which manual scores are an instructor's override of the graders'
EVENT_TABLE = "autograder_exception_event"  # who changed what, when and why
SETTLED_TABLE = "autograder_settled_grade"  # what each grade said when last settled (`grades.settle`)
RUBRIC_ITEM_TABLE = "autograder_rubric_item"  # a question's rubric items (grading by question)
RUBRIC_APPLIED_TABLE = "autograder_rubric_applied"  # which items each student's answer was given
QUESTION_GRADE_TABLE = "autograder_question_grade"  # each (question, student) grade's version, who and when
REGRADE_TABLE = "autograder_regrade_request"  # students' regrade requests and their answers
