"""Names a student cannot squat (issue 40): the hub's course groups and exchange folders are made by the hub or not
used at all. A student arrives long before a course is added; whatever they make in the exchange root (1777) or get
as their personal group must never be adopted, and one squatted course must not keep the hub's others off.

Real `add_course` as root, real groupadd/useradd and nbgrader's own exchange set-up; no running hub."""

import grp
import os
import pwd
import secrets
import shutil
import tempfile
from pathlib import Path

import pytest
from traitlets.config import Config

from autograder.hub.course_config import add_course
from autograder.hub.hub_course import read_hub_course
from autograder.hub.os_accounts import AccountError, ensure_user
from autograder.lms.identity_names import is_posix_name, safe_name
from tests.os_users import account_command


def test_a_learner_whose_email_is_a_course_group_is_never_given_that_name() -> None:
    for email in ("instructors-z8d4@uni.edu", "students-z8d4@uni.edu", "hub-1f2e3d@uni.edu", "autograder-x@u.e"):
        name = safe_name(email, ("issuer", "deployment", email), lambda name: False, lambda name: False)
        assert is_posix_name(name) and not name.startswith(email.split("-")[0] + "-"), (email, name)
    assert not is_posix_name("instructors-z8d4")  # a roster id of that name is made safe too (launch_identity)
    with pytest.raises(AccountError, match="keeps for its course groups"):
        ensure_user("instructors-z8d4")  # an admin adding the user by hand gets no account either


def course_folder(scratch: Path, course_id: str) -> Path:
    folder = scratch / course_id
    folder.mkdir()
    (folder / "nbgrader_config.py").write_text(f"c = get_config()  # noqa: F821\n"
                                               f"c.CourseDirectory.course_id = {course_id!r}\n"
                                               f"c.Exchange.root = {str(scratch / 'exchange')!r}\n")
    return folder


def test_a_squatted_group_or_exchange_folder_refuses_that_course_alone(capfd) -> None:
    """Course `grp` has a student's personal group of its instructors' group's name (made by useradd before the
    name was reserved, or by anyone else); course `xch` has inbound/ and outbound/ made by that student in the
    exchange. Both are refused in one line each, nothing of theirs is adopted, and course `ok` is added."""
    tag = secrets.token_hex(3)
    scratch = Path(tempfile.mkdtemp(prefix="autograder-hub-names-"))
    os.chmod(scratch, 0o755)
    ids = {what: f"sq{what}{tag}" for what in ("grp", "xch", "ok")}
    folders = {what: course_folder(scratch, course_id) for what, course_id in ids.items()}
    squatter = read_hub_course(folders["grp"]).instructors_os_group  # instructors-sqgrp<tag>
    made = account_command("useradd", "--create-home", squatter)  # as the hub's useradd did at a first spawn
    assert made.returncode == 0, made.stderr
    try:
        uid, gid = pwd.getpwnam(squatter).pw_uid, grp.getgrnam(squatter).gr_gid
        exchange = scratch / "exchange"
        exchange.mkdir(mode=0o1777)
        os.chmod(exchange, 0o1777)
        for name in ("", "inbound", "outbound"):  # what the student could make in the 1777 root, as themself
            (exchange / ids["xch"] / name).mkdir(exist_ok=True)
            os.chown(exchange / ids["xch"] / name, uid, gid)
            os.chmod(exchange / ids["xch"] / name, 0o755)
        before = {what: folder.stat().st_gid for what, folder in folders.items()}
        c = Config()
        assert add_course(c, folders["grp"], scratch / "state") is None
        assert add_course(c, folders["xch"], scratch / "state") is None
        added = add_course(c, folders["ok"], scratch / "state")
        refusals = [line for line in capfd.readouterr().err.splitlines() if "refused" in line]
    finally:
        given = {what: folder.stat().st_gid for what, folder in folders.items()}
        given_to = grp.getgrgid(given["ok"]).gr_name
        account_command("userdel", "--remove", squatter)
        for course_id in ids.values():
            account_command("groupdel", f"instructors-{course_id}")
        owners = {name: (exchange / ids["xch"] / name).stat().st_uid for name in ("inbound", "outbound")}
        shutil.rmtree(scratch)
    assert added is not None and [course.course_id for course in c.CourseSpawner.courses] == [ids["ok"]]
    assert len(refusals) == 2, refusals
    assert f"course {ids['grp']}" in refusals[0] and f"OS group {squatter} exists and the hub did not make it" \
        in refusals[0], refusals
    assert f"course {ids['xch']}" in refusals[1] and "not made by the hub" in refusals[1], refusals
    # Nothing adopted: the refused course folder was not given to the squatter's group, the folders stay theirs
    # (the hub did not chmod them 0733 and use them), and the course added is its own group's.
    assert given["grp"] == before["grp"] != gid
    assert owners == {"inbound": uid, "outbound": uid}
    assert given_to == f"instructors-{ids['ok']}"
