"""The student's feedback page: nbgrader's preprocessors that make it (`preprocessors`), each exercise's outcome in
words, the graders' verdict as a marked output, LaTeX as MathML.
Its nbconvert template is `autograder/feedback_template/`.
"""
