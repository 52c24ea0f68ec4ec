"""The feedback is not an answer oracle (docs, "What the feedback reveals"), measured by the attack of
`autograder.devtools.oracle`: a few graded submissions of notebooks that send what their process holds
through every output the feedback could show, on both grading paths.

Before the policy, two submissions read all of formula_1's hidden inputs and expected values (exception
text, printed text, returned values) and a lookup table then scored full marks. Now no text and no value
comes back; what does (an exception's type and line, a shape, a check alike or not, a score, the time) is a
few bits a submission, the same on both paths, and reading any exercise takes more graded attempts than the
course's policy allows before the due date.
"""

import math
from pathlib import Path

from autograder.course.settings import read_course
from autograder.devtools import oracle, oracle_student
from autograder.devtools.oracle_bound import capacity_bound
from autograder.devtools.oracle_page import decode_call
from autograder.devtools.repo import ROOT
from autograder.watch.attempt_policy import read_policy

SUBMISSIONS = 3  # each is graded and its feedback generated: about 10 s in the sandbox, 20 s in a kernel
DAYS_OPEN = 15  # the longest an assignment may be open for the course's default policy to meet the target
TEXT_CHANNELS = ("text", "got", "printed")  # what the feedback showed before: never a bit now


def course_policy():
    """The watcher's policy as this course runs with it: the framework's defaults under its own file."""
    return read_policy(read_course(ROOT).coursedir.config)


def test_no_exercise_can_be_read_within_the_attempts_the_course_allows_before_the_due_date():
    policy = course_policy()
    allowed = policy.attempts * math.floor(DAYS_OPEN * 24 / (policy.window.total_seconds() / 3600))
    assert 0 < allowed
    bounds = capacity_bound()
    fewest = min(n for rows in bounds.values() for name, n in rows.items() if not name.startswith("_"))
    assert fewest > allowed, (fewest, allowed)
    # The exercises no later exercise is judged after never give their expected values away at all.
    assert bounds["hidden_state_activation"]["hidden_state"] == math.inf
    assert bounds["rnn_update_equations"]["count_parameters"] == math.inf


def test_the_attack_reads_a_few_bits_a_submission_and_the_same_on_both_paths():
    runs = {path: oracle.run(path, SUBMISSIONS, log=lambda _: None) for path in ("sandbox", "kernel")}
    total = capacity_bound()["hidden_state_activation"]["_total"]
    allowed = course_policy().attempts * DAYS_OPEN
    for path, found in runs.items():
        assert not found["done"], path
        channels = {name for tally in found["channels"] for name in tally}
        assert not [name for name in channels if name.split()[-1] in TEXT_CHANNELS], (path, channels)
        assert {"formula_1 type", "formula_1 line"} <= channels, (path, channels)  # what is told, is told
        assert all(0 < bits <= total for bits in found["bits"]), (path, found["bits"])
        assert found["needed"] > allowed, (path, found["needed"])
    # One feedback policy: the two paths' verdicts on the same submissions say the same, word for word.
    assert runs["sandbox"]["verdicts"] == runs["kernel"]["verdicts"]
    assert "On its own it scores" in runs["sandbox"]["verdicts"][-1]


def test_the_attack_knows_how_to_read_what_it_is_shown():
    """The attack's decoding, on a page as the feedback showed it before: text, values and printed lines
    come back as bits (so the test above, finding none, means none were shown)."""
    plan = ["raise", [["type", 0, 4], ["line", 4, 7], ["text", 11, 16]]]
    message = "formula_1 raised TypeError: ORXAAE=XRO, at line 9: if v == 5: raise E(text)"
    assert decode_call(message, plan, None) == {"type": "0001", "line": "0000101", "text": "0000000000000001"}
    got = ["got", [["got", 0, 384]]]
    assert decode_call("got      shape (8,) int64: [1 2 3 4 5 6 7 8]", got, None)["got"].endswith("1000")
    assert Path(oracle_student.__file__).read_text().count("def attack_") == 2
