"""Grading by question: one question's answers across the class, grouped so that a group is graded once
(answer_groups.py), rubric items applied to groups and written as nbgrader's manual scores."""
