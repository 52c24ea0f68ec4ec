"""Hidden graders: one pytest module per graded function, judged through the `student` fixture."""
