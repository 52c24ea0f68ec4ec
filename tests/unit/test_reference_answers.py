"""The graders' reference answers, kept once per process (`autograder.grader_support.judge.ReferenceAnswers`)."""

import numpy as np
import pytest

from autograder.grader_support.judge import ANSWERS, ReferenceAnswers, judge
from autograder.grader_support.student import InProcessStudent


def counting(calls):
    def double(a, scale=1):
        calls.append(1)
        return a * 2 * scale
    return double


def test_the_same_inputs_are_computed_once_and_the_answer_cannot_be_changed():
    answers, calls = ReferenceAnswers(), []
    double = counting(calls)
    first = answers.get(double, {"a": np.arange(3.0)}, {"scale": 2})
    again = answers.get(double, {"a": np.arange(3.0)}, {"scale": 2})  # equal content, another array
    assert again is first and len(calls) == 1 and np.array_equal(first, [0.0, 4.0, 8.0])
    with pytest.raises(ValueError):
        first[0] = 1.0
    answers.get(double, {"a": np.arange(3.0)}, {"scale": 3})
    answers.get(double, {"a": np.arange(3.0).astype(np.float32)}, {"scale": 2})  # another dtype: another key
    assert len(calls) == 3 and len(answers) == 3


def test_past_its_limit_it_forgets_and_keeps_working():
    answers, calls = ReferenceAnswers(limit=2), []
    double = counting(calls)
    for value in (1, 2, 3):
        answers.get(double, {"a": value}, {})
    assert len(answers) == 1 and answers.get(double, {"a": 3}, {}) == 6 and len(calls) == 3
    assert answers.get(double, {"a": 1}, {}) == 2 and len(calls) == 4


def test_an_unhashable_option_is_computed_each_time():
    answers, calls = ReferenceAnswers(), []

    def first(a, among):
        calls.append(1)
        return min(among) + a

    assert answers.get(first, {"a": 1}, {"among": {1, 2}}) == answers.get(first, {"a": 1}, {"among": {1, 2}}) == 2
    assert len(calls) == 2 and len(answers) == 0


def test_judge_keeps_its_answers_in_the_process_s_set():
    def reference(a):
        return a + 1

    student = InProcessStudent({"f": lambda a: a + 1})
    before = len(ANSWERS)
    judge(student, "f", {"a": np.full(4, 123.5)}, reference)
    assert len(ANSWERS) == before + 1
    judge(student, "f", {"a": np.full(4, 123.5)}, reference)
    assert len(ANSWERS) == before + 1
