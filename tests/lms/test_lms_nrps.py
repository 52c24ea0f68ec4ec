"""`autograder roster sync`: NRPS membership over several pages into the roster, against the loopback platform
(tests/lms/nrps_platform.py); students who left are flagged, never removed; a page link to another host is
never followed; a malformed answer imports nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

from nbgrader.api import Gradebook

from autograder.lms.identity import load_people
from autograder.lms.launch_identity import LaunchedPerson, LaunchKey, name_for_launch
from autograder.lms.nrps import parse_members
from autograder.lms.roster_sync import lms_statuses, sync_roster
from tests.lms.conftest import Course, run_cli
from tests.lms.nrps_platform import INSTRUCTOR, LEARNER, AdvantagePlatform, Garble, member


def roster(course: Course) -> tuple[dict[str, object], dict[str, str]]:
    with course.gradebook() as gb:
        return {p.id: p for p in load_people(gb)}, lms_statuses(gb)


def test_500_members_over_several_pages(in_course: Course, advantage: AdvantagePlatform, capsys) -> None:
    advantage.members = [member(n) for n in range(1, 501)] + [member(900, roles=(INSTRUCTOR,))]
    advantage.page_size = 120
    assert run_cli("roster", "sync") == 0
    out = capsys.readouterr().out
    assert "Synced 501 members of the LMS course: 500 new students, 0 updated, 1 not learners" in out
    assert advantage.requests.count(("GET", "/members")) == 5, "every page, once"
    people, status = roster(in_course)
    synced = {p.lti_user_id: p for p in people.values() if p.lti_user_id.startswith("lti-0")}
    assert len(synced) == 500 and "lti-0900" not in synced
    p = synced["lti-0007"]
    assert (p.id, p.first_name, p.last_name, p.email) == ("s0007", "Student", "N0007", "s0007@uni.example"), \
        "named as a launch names a person: from the e-mail"
    assert status["s0007"] == "active" and "ada" in people, "students never synced stay as they were"


def test_a_student_who_left_is_flagged_and_keeps_their_grades(in_course: Course, advantage: AdvantagePlatform,
                                                               capsys) -> None:
    # ada and bob are on the roster with LTI ids lti-ada and lti-bob; bob's enrolment ends, dee's is deleted.
    ada = dict(member(1), user_id="lti-ada")
    advantage.members = [ada, dict(member(2), user_id="lti-bob"), dict(member(3), user_id="lti-dee")]
    assert run_cli("roster", "sync") == 0
    people, _ = roster(in_course)
    assert {"ada", "bob", "dee"} <= set(people) and "lti-ada" not in people, "known members keep their nbgrader id"
    advantage.members = [ada, dict(member(2), user_id="lti-bob", status="Inactive")]
    capsys.readouterr()
    assert run_cli("roster", "sync") == 0
    assert "Left the LMS course (flagged, grades kept): bob, dee" in capsys.readouterr().out
    _, status = roster(in_course)
    assert (status["ada"], status["bob"], status["dee"]) == ("active", "left", "left")
    with in_course.gradebook() as gb:
        assert gb.find_submission("hidden_state_activation", "bob").score == 36.5, "grades kept"
    assert run_cli("roster") == 0
    listing = capsys.readouterr().out
    assert "2 left the LMS course" in listing and any("bob" in line and "left" in line for line in listing.splitlines())
    assert run_cli("report", "hidden_state_activation") == 0  # the class report flags them too
    page = (in_course.root / "reports" / "hidden_state_activation.html").read_text()
    assert 'data-metric="left-course">2 students no longer in the LMS course (grades kept): bob, dee<' in page
    assert '<tr data-student="bob"><td>bob <span class="bad">left the LMS course</span></td>' in page


def test_a_page_link_to_another_host_is_never_followed(in_course: Course, advantage: AdvantagePlatform,
                                                       capsys) -> None:
    advantage.members = [member(n) for n in range(1, 31)]
    advantage.page_size, advantage.foreign_next = 10, True
    assert run_cli("roster", "sync") == 1
    err = capsys.readouterr().err
    assert "membership page 1 links to another host (http://127.0.0.2:" in err and "nothing imported" in err
    assert not any(host.startswith("127.0.0.2") for host in advantage.hosts)
    people, _ = roster(in_course)
    assert not any(p.lti_user_id.startswith("lti-0") for p in people.values())


def test_a_malformed_membership_imports_nothing(in_course: Course, advantage: AdvantagePlatform, capsys) -> None:
    advantage.members = [member(1), {"user_id": "", "roles": []}]
    assert run_cli("roster", "sync") == 1
    assert "membership page 1, member 2: no user_id" in capsys.readouterr().err
    advantage.members = [member(1)]
    advantage.garbles.append(Garble("GET", "/members", times=10))
    assert run_cli("roster", "sync") == 1
    assert "membership page 1: the platform's answer is not JSON; nothing imported" in capsys.readouterr().err
    people, _ = roster(in_course)
    assert not any(p.lti_user_id.startswith("lti-0") for p in people.values())
    advantage.members = [dict(member(1), user_id="../../etc", email="../../root@x", name="")]
    advantage.garbles.clear()
    assert run_cli("roster", "sync") == 0, "a hostile LTI user id is only a key: the name is made safe"
    people, _ = roster(in_course)
    (hostile,) = [p for p in people.values() if p.lti_user_id == "../../etc"]
    assert hostile.id.startswith("root-") and "/" not in hostile.id, "named safely; root, a system user, never reused"


def test_a_new_learner_has_one_name_whichever_of_launch_and_sync_comes_first(
        in_course: Course, advantage: AdvantagePlatform, tmp_path: Path) -> None:
    eve = dict(member(7), given_name="Eve", family_name="Noether", name="Eve Noether", email="eve.noether@uni.example")
    shy = {"user_id": "lti-shy", "status": "Active", "roles": [LEARNER]}  # a platform that sends no names (Moodle may)
    other_order = tmp_path / "gradebook.db"
    shutil.copy(in_course.root / "gradebook.db", other_order)  # the same course, for the other order

    def launch(gradebook, person: dict) -> str:
        key = LaunchKey(advantage.issuer, advantage.deployment_id, person["user_id"])
        return name_for_launch(gradebook, LaunchedPerson(key, person.get("given_name", ""),
                               person.get("family_name", ""), person.get("email", ""), person.get("name", "")), True)

    def names(gradebook) -> list[str]:
        return sorted(p.id for p in load_people(gradebook) if p.lti_user_id in (eve["user_id"], shy["user_id"]))

    advantage.members = [eve, shy]
    assert run_cli("roster", "sync") == 0  # the sync first, then their launches
    with in_course.gradebook() as gb:
        synced = names(gb)
        launched = sorted(launch(gb, person) for person in (eve, shy))
        assert names(gb) == synced, "no second student"
    with Gradebook(f"sqlite:///{other_order}", course_id="rnn-test") as gb:  # their launches first, then the sync
        launched_first = sorted(launch(gb, person) for person in (eve, shy))
        sync_roster(gb, parse_members({"members": [eve, shy]}, "test"), advantage.issuer, advantage.deployment_id)
        synced_after = names(gb)
    assert synced == launched == launched_first == synced_after
    assert "eve-noether" in synced
