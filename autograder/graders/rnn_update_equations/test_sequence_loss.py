import pytest

from autograder.grader_support.judge import judge_number, judge_unmodified
from autograder.graders.rnn_update_equations import reference as ref
from autograder.graders.rnn_update_equations.cases import TARGET_PARAMS, TARGETS


@pytest.mark.points(1)
@pytest.mark.parametrize("targets", TARGET_PARAMS)
def test_many_to_many(student, targets):
    judge_number(student, "sequence_loss", targets.arrays(), ref.sequence_loss, ref.SEQUENCE_LOSS_MISTAKES,
                 many_to_many=True)


@pytest.mark.points(1)
@pytest.mark.parametrize("targets", TARGET_PARAMS)
def test_many_to_one(student, targets):
    judge_number(student, "sequence_loss", targets.arrays("last"), ref.sequence_loss, ref.SEQUENCE_LOSS_MISTAKES,
                 many_to_many=False)


@pytest.mark.points(1)
def test_default_is_many_to_many(student):
    judge_number(student, "sequence_loss", TARGETS[0].arrays("default"), ref.sequence_loss,
                 ref.SEQUENCE_LOSS_MISTAKES)


@pytest.mark.points(1)
def test_inputs_unmodified(student):
    judge_unmodified(student, "sequence_loss", TARGETS[0].arrays("unmodified"), many_to_many=False)
