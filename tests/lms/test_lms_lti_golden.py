"""The tool's LTI Advantage messages against the examples of the LMSs' own documentation (tests/lms/golden/lti,
each naming its source): a platform written by the same hands as the tool is not the only judge. Canvas's come
from its API documentation; Moodle's documentation has none, so Moodle's are what its own source
(github.com/moodle/moodle, mod/lti) emits and accepts, each file naming the file and commit it was read from."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.lineitem import LineItem

from autograder.grades.outbox import OutboxRow
from autograder.lms.identity import load_people
from autograder.lms.lms_settings import Settings
from autograder.lms.lti import find_or_create, wanted_lineitem
from autograder.lms.nrps import parse_members
from autograder.lms.outbox_sender import outbox_grade
from autograder.lms.retry import RetryPolicy
from tests.lms.conftest import HSA, Course, run_cli
from tests.lms.nrps_platform import AdvantagePlatform
from tests.lms.test_lms_deep_link import link

GOLDEN = Path(__file__).parent / "golden" / "lti"
SOURCES = ("https://developerdocs.instructure.com/", "github.com/moodle/moodle ")
MOODLE = "https://moodle.example"  # the Moodle site of Moodle's examples (their URLs are its own)
ROW = OutboxRow(7, "hw1", "ada", 40.5, 46, "2025-03-01 16:00:00.000000",
                "attempt 2025-03-01 16:00 UTC: a 6/6; total 40.5/46", "watch", "2025-03-01 16:00:02.123456",
                "pending", 0, None, None, None)


def example(name: str) -> dict:
    data = json.loads((GOLDEN / name).read_text())
    assert data.pop("_source").startswith(SOURCES), "each example names where it comes from"
    return data


def test_our_score_has_the_fields_and_forms_of_canvas_s_example() -> None:
    doc = example("canvas_score.json")
    ours = json.loads(outbox_grade(ROW, "abcasdf").get_value())
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


def test_our_score_passes_moodle_s_checks() -> None:
    rules = example("moodle_score_rules.json")
    ours = json.loads(outbox_grade(ROW, "5").get_value())
    assert all(ours.get(field) for field in rules["required"])
    assert all(isinstance(ours[field], int | float) and not isinstance(ours[field], bool) for field in rules["numeric"])
    assert ours["gradingProgress"] == rules["kept_only_when_grading_progress"], "else Moodle stores no grade"
    stamp = datetime.fromisoformat(ours["timestamp"])
    assert stamp.tzinfo is not None and ours["timestamp"].startswith("2025-03-01T16:00:02"), "ISO 8601, zoned"
    # pylti1p3 posts the score with the one media type Moodle's score resource takes for a single score
    assert "application/vnd.ims.lis.v1.score+json" in rules["media_types"]


def test_moodle_s_line_item_is_found_by_its_tag_and_its_scores_url_is_moodle_s(tmp_path: Path) -> None:
    doc = example("moodle_lineitems.json")

    class MoodleLineItems:
        """pylti1p3's AGS client, its answer Moodle's (the fixture): what is tested is our lookup of it."""

        _service_data = {"lineitems": f"{MOODLE}/mod/lti/services.php/2/lineitems?type_id=3"}

        def get_lineitems(self) -> list[dict]:
            return doc["body"]

    settings = Settings(tmp_path / "lms.toml", {"lti": {}})
    wanted = wanted_lineitem(settings, HSA, 46)
    item = find_or_create(MoodleLineItems(), None, wanted, RetryPolicy(attempts=1))
    assert item.get_id() == doc["body"][1]["id"], "the deep-linked column, by its tag; the untagged one left alone"
    assert item.get_score_maximum() == 46.0 and item.get_resource_id() == HSA
    scores = AssignmentsGradesService._add_url_path_ending(item.get_id(), "scores")
    assert urlsplit(scores).path == "/mod/lti/services.php" + doc["_scores_template"].format(context_id=2, item_id=14)
    assert urlsplit(scores).query == "type_id=3", "the tool type Moodle needs to find the tool, kept"
    # What we make when Moodle has no column: the two fields its POST requires, and the two it files it under
    assert {"label", "scoreMaximum", "resourceId", "tag"} <= set(json.loads(wanted.get_value()))


def test_moodle_s_membership_pages_are_followed_and_read(in_course: Course, advantage: AdvantagePlatform) -> None:
    pages = [example("moodle_nrps_page1.json"), example("moodle_nrps_page2.json")]
    members_path = urlsplit(pages[0]["id"]).path

    def moodle_page(handler, path: str, query: dict[str, str], *_) -> None:
        """Moodle's page as its users_to_json writes it, its site's URLs made this platform's."""
        page = dict(pages[1 if query.get("from") == "2" else 0])
        headers = page.pop("_headers")
        link_header = {"Link": headers["Link"].replace(MOODLE, advantage.base)} if "Link" in headers else {}
        advantage._send(handler, 200, json.loads(json.dumps(page).replace(MOODLE, advantage.base)),
                        headers["Content-Type"], link_header)

    advantage.membership = lambda path: ({}, []) if path == members_path else None
    advantage._members = moodle_page
    settings = in_course.root / "lms.toml"
    settings.write_text(settings.read_text().replace(advantage.memberships_url, advantage.base + members_path))
    assert run_cli("roster", "sync") == 0
    assert advantage.requests.count(("GET", members_path)) == 2, "Moodle's Link: rel=\"next\" followed, once"
    assert [(m.user_id, m.learner) for m in parse_members(pages[0], "page 1") + parse_members(pages[1], "page 2")] \
        == [("3", False), ("5", True), ("6", True)]
    with in_course.gradebook() as gb:
        synced = {p.lti_user_id: p for p in load_people(gb) if p.lti_user_id in ("3", "5", "6")}
    assert set(synced) == {"5", "6"}, "the learners; the teacher is not graded"
    ada = synced["5"]
    assert (ada.first_name, ada.last_name, ada.email) == ("Ada", "Lovelace", "ada@uni.example")
    assert ada.id.startswith("ada-"), "named as her launch would name her (the roster's ada is someone else)"
    shy = synced["6"]
    assert not (shy.first_name or shy.last_name or shy.email), "a member Moodle sends without names has none"


def test_our_deep_link_has_what_moodle_reads(in_course: Course, advantage: AdvantagePlatform) -> None:
    moodle = example("moodle_deep_link_item.json")
    link(advantage, in_course, HSA)
    (item,) = advantage.links
    assert item["type"] == moodle["type"]
    assert all(item.get(field) for field in moodle["resource_link_fields_read"])
    assert all(item["lineItem"].get(field) for field in moodle["lineitem_fields_read"])
    assert (item["lineItem"]["resourceId"], item["lineItem"]["tag"]) == (HSA, HSA), "what Moodle files it under"
