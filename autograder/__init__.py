"""Autograded RNN exercises: hidden graders, sandboxed grading and course tooling."""
