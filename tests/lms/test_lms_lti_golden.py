"""The tool's LTI Advantage messages against the examples of the LMSs' own documentation (tests/lms/golden/lti,
each naming its source): a platform written by the same hands as the tool is not the only judge."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pylti1p3.lineitem import LineItem

from autograder.lms.lms_settings import Settings
from autograder.lms.lti import wanted_lineitem
from autograder.lms.nrps import parse_members
from autograder.lms.outbox import OutboxRow
from autograder.lms.outbox_sender import outbox_grade

GOLDEN = Path(__file__).parent / "golden" / "lti"


def example(name: str) -> dict:
    data = json.loads((GOLDEN / name).read_text())
    assert data.pop("_source").startswith("https://developerdocs.instructure.com/")
    return data


def test_our_score_has_the_fields_and_forms_of_canvas_s_example() -> None:
    doc = example("canvas_score.json")
    row = OutboxRow(7, "hw1", "ada", 40.5, 46, "2025-03-01 16:00:00.000000",
                    "attempt 2025-03-01 16:00 UTC: a 6/6; total 40.5/46", "watch", "2025-03-01 16:00:02.123456",
                    "pending", 0, None, None, None)
    ours = json.loads(outbox_grade(row, "abcasdf").get_value())
    assert set(ours) == set(doc), "the same fields"
    assert set(ours["submission"]) == set(doc["submission"])
    iso = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00"
    for score in (doc, ours):
        assert re.fullmatch(iso, score["timestamp"]) and re.fullmatch(iso, score["submission"]["submittedAt"])
        assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
        assert isinstance(score["scoreGiven"], int | float) and isinstance(score["scoreMaximum"], int | float)


def test_canvas_s_line_item_is_found_by_its_tag_and_ours_has_its_fields(tmp_path: Path) -> None:
    doc = example("canvas_lineitem.json")
    item = LineItem(doc)
    assert (item.get_id(), item.get_tag(), item.get_resource_id(), item.get_score_maximum()) == (
        doc["id"], "50", "50", 50)
    settings = Settings(tmp_path / "lms.toml", {"lti": {}})
    ours = json.loads(wanted_lineitem(settings, "hw1", 46).get_value())
    assert set(ours) <= set(doc) and ours == {"scoreMaximum": 46, "label": "hw1", "tag": "hw1", "resourceId": "hw1"}


def test_canvas_s_membership_is_read() -> None:
    members = parse_members(example("canvas_nrps_context.json"), "Canvas's example")
    assert [(m.user_id[:8], m.learner, m.status, m.email) for m in members] == [
        ("535fa085", True, "Active", "sienna@example.com"), ("86157096", False, "Active", "")]
