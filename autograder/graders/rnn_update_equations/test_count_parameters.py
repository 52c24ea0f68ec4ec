import pytest

from autograder.grader_support.judge import judge_number
from autograder.graders.rnn_update_equations import reference as ref
from autograder.graders.rnn_update_equations.cases import SIZE_PARAMS


@pytest.mark.points(1)
@pytest.mark.parametrize("sizes", SIZE_PARAMS)
def test_value(student, sizes):
    judge_number(student, "count_parameters", sizes, ref.count_parameters, ref.COUNT_PARAMETERS_MISTAKES,
                 integer=True)
