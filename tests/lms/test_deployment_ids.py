"""One name for deployment ids (issue 42): `[lti] deployment_ids`, the list the hub's login reads, is what roster
sync and deep linking read too; the singular `deployment_id` they read before (undocumented: a course that set
only the list got roster-synced identities with an empty deployment) is refused in one line naming the file."""

from __future__ import annotations

import pytest

from autograder.lms.errors import LmsError
from autograder.lms.gradebook import Linkable
from autograder.lms.lms_settings import load
from autograder.lms.roster_sync import roster_deployment
from tests.lms.conftest import HSA, Course
from tests.lms.nrps_platform import AdvantagePlatform

LAUNCH_URL = "https://hub.example.edu/hub/lti13/launch"


def test_the_singular_key_is_refused_in_one_line_naming_the_file(tmp_path) -> None:
    (tmp_path / "lms.toml").write_text('[lti]\nissuer = "https://lms.example"\ndeployment_id = "1:abc"\n')
    with pytest.raises(LmsError) as refused:
        load(tmp_path)
    assert str(refused.value) == f"{tmp_path / 'lms.toml'}: [lti] deployment_id is not read: use deployment_ids, " \
                                 "a list of the platform's deployment ids"


@pytest.mark.parametrize("listed, used", [([], ""), (["1:abc"], "1:abc"), (["2:course", "1:account"], "2:course")])
def test_roster_sync_keys_learners_by_the_one_deployment_or_the_first_listed(tmp_path, listed, used) -> None:
    (tmp_path / "lms.toml").write_text(f"[lti]\ndeployment_ids = {listed!r}\n".replace("'", '"'))
    assert roster_deployment(load(tmp_path)) == used


def test_a_deployment_id_that_is_not_text_is_one_line(tmp_path) -> None:
    (tmp_path / "lms.toml").write_text("[lti]\ndeployment_ids = [1]\n")
    with pytest.raises(LmsError, match=r"lms.toml: \[lti\] deployment_ids must be a list of the platform's"):
        roster_deployment(load(tmp_path))


def test_deep_linking_accepts_every_listed_deployment_and_no_other(in_course: Course,
                                                                   advantage: AdvantagePlatform) -> None:
    from autograder.lms.deep_link import respond

    advantage.settings.data["lti"]["deployment_ids"] = ["2:another-course", advantage.deployment_id]
    assert respond(advantage.settings, advantage.tool_key, advantage.deep_linking_request(), Linkable(HSA, 46, None),
                   LAUNCH_URL), "the second listed deployment is one of this course's"
    advantage.settings.data["lti"]["deployment_ids"] = ["2:another-course"]
    with pytest.raises(LmsError, match="another deployment"):
        respond(advantage.settings, advantage.tool_key, advantage.deep_linking_request(), Linkable(HSA, 46, None),
                LAUNCH_URL)


def test_a_synced_learner_is_named_as_their_launch_into_the_course_names_them(
        in_course: Course, advantage: AdvantagePlatform, tmp_path) -> None:
    """Their readable name taken, a learner's name is made distinct by their LMS key (issuer, deployment, user id):
    with an empty deployment, the sync named them otherwise than their launch (from the one deployment listed)."""
    import shutil

    from nbgrader.api import Gradebook

    from autograder.lms.identity import load_people
    from autograder.lms.launch_identity import LaunchedPerson, LaunchKey, name_for_launch
    from tests.lms.conftest import run_cli
    from tests.lms.nrps_platform import member

    eve = dict(member(7), given_name="Eve", family_name="Noether", name="Eve Noether", email="eve.noether@uni.example")
    with in_course.gradebook() as gb:
        gb.add_student("eve-noether")  # another Eve, by hand: the readable name is taken
    launched_first = tmp_path / "gradebook.db"
    shutil.copy(in_course.root / "gradebook.db", launched_first)
    advantage.members = [eve]
    assert run_cli("roster", "sync") == 0
    with in_course.gradebook() as gb:
        (synced,) = [p.id for p in load_people(gb) if p.lti_user_id == eve["user_id"]]
    with Gradebook(f"sqlite:///{launched_first}", course_id="rnn-test") as gb:
        key = LaunchKey(advantage.issuer, advantage.deployment_id, eve["user_id"])
        launched = name_for_launch(gb, LaunchedPerson(key, "Eve", "Noether", eve["email"], eve["name"]), True)
    assert synced == launched != "eve-noether"
