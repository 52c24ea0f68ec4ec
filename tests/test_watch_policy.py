"""The watcher's course policy as read from `nbgrader_config.py`, and its one-line refusals."""

import subprocess
from datetime import datetime, timedelta

import pytest
from traitlets.config import Config

from autograder.watch.attempt_policy import Policy, PolicyError, read_policy
from tests.grading_course import CLI


def config(**watch) -> Config:
    c = Config()
    for key, value in watch.items():
        setattr(c.AutograderWatch, key, value)
    return c


def test_defaults_and_keys():
    assert read_policy(Config()) == Policy()
    policy = read_policy(config(attempts=3, window_hours=2, counts="best"))
    assert (policy.attempts, policy.window, policy.counts) == (3, timedelta(hours=2), "best")
    c = Config()
    c.CollectApp.check_owner = False
    assert read_policy(c).check_owner is False


@pytest.mark.parametrize("values, message", [
    (dict(attempt=3), "c.AutograderWatch.attempt: unknown setting"),
    (dict(counts="first"), "counts must be one of 'latest', 'best'"),
    (dict(attempts=-1), "attempts must be 0"),
    (dict(window_hours=0), "window_hours must be more than 0"),
    (dict(attempts="many"), "c.AutograderWatch:"),
])
def test_a_bad_value_is_one_line_naming_the_key(values, message):
    with pytest.raises(PolicyError, match=message.replace("(", r"\(")) as caught:
        read_policy(config(**values))
    assert "\n" not in str(caught.value)


def test_the_next_slot_opens_when_the_oldest_attempt_leaves_the_window():
    now = datetime(2026, 1, 1, 12)
    policy = Policy(attempts=2, window=timedelta(hours=1))
    assert policy.next_slot([], now) is None
    assert policy.next_slot([now - timedelta(minutes=10)], now) is None
    graded = [now - timedelta(minutes=50), now - timedelta(minutes=10), now - timedelta(hours=3)]
    assert policy.next_slot(graded, now) == now + timedelta(minutes=10)
    assert Policy().next_slot(graded * 10, now) is None  # no limit


def test_the_command_says_what_is_missing_in_one_line(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        f'c = get_config()\nc.CourseDirectory.course_id = "x"\nc.Exchange.root = "{tmp_path / "nowhere"}"\n'
        "c.AutograderWatch.counts = 'first'\n")
    done = subprocess.run([CLI, "watch", "a"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "counts must be one of" in done.stderr
    config_text = (tmp_path / "nbgrader_config.py").read_text().replace("c.AutograderWatch.counts = 'first'", "")
    (tmp_path / "nbgrader_config.py").write_text(config_text)
    done = subprocess.run([CLI, "watch", "a"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "no exchange inbound folder" in done.stderr and "nbgrader release_assignment" in done.stderr
