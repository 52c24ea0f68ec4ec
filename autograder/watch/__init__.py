"""`autograder watch`: grade submissions as they arrive in nbgrader's exchange and release their feedback."""
