"""`autograder push --to lti` end to end: pylti1p3 (the tool) against lti1p3platform (the platform) on loopback.

The platform is the real `lti1p3platform` library, wrapped by `autograder/devtools/demo_lms/lti_platform.py` with the
checks it lacks (assertion audience, single-use jti, expiry, media types, score schema and enums).
"""

from __future__ import annotations

import json
import logging
import time
import uuid

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization

from autograder.devtools.demo_lms.demo_platform import new_key_pair
from autograder.devtools.demo_lms.lti_platform import SCORE_TYPE, Fault, LoopbackPlatform, score_problem
from autograder.lms.lti import jwks, lti_time
from tests.lms.conftest import DUE, HSA, Course, dry_run, run_cli
from tests.lms.test_lms_student_text import (
    add_hostile_students,
    assert_comments_hold_no_student_text,
    assert_terminal_safe,
)


@pytest.fixture(scope="session")
def keys() -> dict[str, tuple[str, str]]:
    return {"tool": new_key_pair(), "platform": new_key_pair()}


@pytest.fixture
def platform(in_course: Course, keys, monkeypatch: pytest.MonkeyPatch):
    tool_private, _ = keys["tool"]
    with LoopbackPlatform(*keys["platform"], tool_jwks=jwks(tool_private)) as lms:
        settings = in_course.root / "lms.toml"
        settings.write_text(settings.read_text() + f"""
[lti]
issuer = "{lms.issuer}"
client_id = "{lms.client_id}"
token_url = "{lms.token_url}"
lineitems_url = "{lms.base}/lineitems"
user_id = "lti_user_id"

[push]
retries = 3
backoff_seconds = 0.01
""")
        monkeypatch.setenv("LTI_PRIVATE_KEY", tool_private)
        yield lms
        assert lms.violations == []


def test_push_creates_the_line_item_and_posts_scores(in_course: Course, platform: LoopbackPlatform, capsys) -> None:
    assert run_cli("push", HSA, "--to", "lti") == 0
    assert list(platform.store.lineitems) == ["1"]
    item = platform.store.lineitems["1"]
    assert item["tag"] == HSA and item["label"] == HSA and item["scoreMaximum"] == 46
    assert item["endDateTime"] == lti_time(DUE)  # the gradebook's due date, sent with the column it makes
    bob = platform.scores("1", "lti-bob")
    assert len(bob) == 1
    assert bob[0]["scoreGiven"] == 29.2 and bob[0]["scoreMaximum"] == 46
    assert bob[0]["activityProgress"] == "Completed" and bob[0]["gradingProgress"] == "FullyGraded"
    assert "late penalty -7.3" in bob[0]["comment"]
    assert platform.scores("1", "lti-dee")[0]["scoreGiven"] == 0
    assert platform.scores("1", "lti-cyd") == [], "a non-submitter is left ungraded"
    assert platform.tokens_issued == 1, "one access token for the whole push"
    out = capsys.readouterr().out
    assert "sent (3): bob, dee, ada" in out and "not submitted, nothing sent (1): cyd" in out


def test_rerun_finds_the_line_item_and_sends_nothing(in_course: Course, platform: LoopbackPlatform,
                                                     capsys) -> None:
    assert run_cli("push", HSA, "--to", "lti") == 0
    capsys.readouterr()
    assert run_cli("push", HSA, "--to", "lti") == 0
    assert list(platform.store.lineitems) == ["1"], "found by tag, not created twice"
    assert all(len(history) == 1 for history in platform.store.scores.values())
    assert "already up to date, not sent again (3): bob, dee, ada" in capsys.readouterr().out
    posts = [p for m, p in platform.requests if m == "POST" and p.endswith("/scores")]
    assert len(posts) == 3


def test_configured_line_item_url_is_used(in_course: Course, platform: LoopbackPlatform) -> None:
    platform.store.lineitems["7"] = {"id": f"{platform.base}/lineitems/7", "label": "HSA", "scoreMaximum": 46,
                                     "tag": "other"}
    settings = in_course.root / "lms.toml"
    settings.write_text(settings.read_text() + f'\n[lti.assignments]\n{HSA} = "{platform.base}/lineitems/7"\n')
    assert run_cli("push", HSA, "--to", "lti") == 0
    assert list(platform.store.lineitems) == ["7"]
    assert platform.scores("7", "lti-ada")[0]["scoreGiven"] == 40.5


def test_retries_429_and_503(in_course: Course, platform: LoopbackPlatform) -> None:
    platform.faults += [Fault("POST", "/token", 503, times=1),
                        Fault("POST", r"/lineitems/\d+/scores", 429, {"Retry-After": "0"}, times=2),
                        Fault("GET", r"/lineitems/\d+/results", 502, times=1)]
    assert run_cli("push", HSA, "--to", "lti") == 0
    assert all(f.times == 0 for f in platform.faults)
    assert {u for (_, u) in platform.store.scores} == {"lti-ada", "lti-bob", "lti-dee"}


def test_failure_part_way_names_who_was_and_was_not_sent(in_course: Course, platform: LoopbackPlatform,
                                                          capsys) -> None:
    assert run_cli("push", HSA, "--to", "lti") == 0
    with in_course.gradebook() as gb:  # regrades for everyone, then the platform falls over mid-push
        for student in ("ada", "bob", "dee"):
            gb.find_grade("test_concat_weights", HSA, HSA, student).manual_score = 1
        gb.db.commit()
    sent = {"n": 0}
    original = platform._route

    def route(handler, method, path, query, raw):
        if path.endswith("/scores"):
            sent["n"] += 1
            if sent["n"] > 1:
                return platform._send(handler, 503, {"error": "down"})
        return original(handler, method, path, query, raw)

    platform._route = route
    capsys.readouterr()
    assert run_cli("push", HSA, "--to", "lti") == 1
    out = capsys.readouterr().out
    assert "sent (1): bob" in out and "NOT sent (2): dee, ada" in out and "HTTP 503" in out, out
    assert len(platform.scores("1", "lti-bob")) == 2 and len(platform.scores("1", "lti-ada")) == 1

    platform._route = original
    assert run_cli("push", HSA, "--to", "lti") == 0
    out = capsys.readouterr().out
    assert "sent (2): dee, ada" in out and "already up to date, not sent again (1): bob" in out


def test_one_refused_student_does_not_stop_the_rest(in_course: Course, platform: LoopbackPlatform,
                                                     capsys) -> None:
    platform.faults.append(Fault("POST", r"/lineitems/\d+/scores", 404, times=1))
    assert run_cli("push", HSA, "--to", "lti") == 1
    out = capsys.readouterr().out
    assert "FAILED bob: HTTP 404" in out and "sent (2): dee, ada" in out
    assert "NOT sent" not in out


def test_dry_run_needs_no_key_and_sends_nothing(in_course: Course, platform: LoopbackPlatform, monkeypatch,
                                                capsys) -> None:
    monkeypatch.delenv("LTI_PRIVATE_KEY")
    out = dry_run("lti", platform, capsys)
    assert "Dry run: would send 3 grade(s)" in out and "line item tagged 'hidden_state_activation'" in out
    assert "lti-bob" in out


def test_private_key_never_printed_or_logged(in_course: Course, platform: LoopbackPlatform, keys, capsys,
                                             caplog) -> None:
    caplog.set_level(logging.DEBUG)
    platform.faults.append(Fault("POST", "/token", 400, times=1))
    assert run_cli("push", HSA, "--to", "lti") == 1
    assert run_cli("push", HSA, "--to", "lti") == 0
    captured = capsys.readouterr()
    seen = captured.out + captured.err + caplog.text
    body = "".join(keys["tool"][0].splitlines()[1:-1])
    for chunk in (body[:40], body[200:240], body[-40:]):
        assert chunk not in seen.replace("\n", "")


def test_unusable_key_is_one_line(in_course: Course, platform: LoopbackPlatform, monkeypatch, capsys) -> None:
    monkeypatch.setenv("LTI_PRIVATE_KEY", "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----")
    assert run_cli("push", HSA, "--to", "lti") == 1
    err = capsys.readouterr().err
    assert "not an unencrypted PEM private key" in err and err.count("\n") == 1 and "not a key" not in err


# ---- the harness's added checks really reject what a strict platform rejects ------------------------------

def assertion(platform: LoopbackPlatform, private: str, **claims) -> str:
    kid = jwks(private)["keys"][0]["kid"]
    now = int(time.time())
    body = {"iss": platform.client_id, "sub": platform.client_id, "aud": platform.token_url, "iat": now,
            "exp": now + 60, "jti": str(uuid.uuid4())}
    body.update(claims)
    return jwt.encode(body, private, algorithm="RS256", headers={"kid": kid})


def token_request(platform: LoopbackPlatform, client_assertion: str) -> requests.Response:
    return requests.post(platform.token_url, timeout=10, data={
        "grant_type": "client_credentials",
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": client_assertion,
        "scope": "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    })


def test_harness_rejects_bad_assertions(keys) -> None:
    tool_private, _ = keys["tool"]
    with LoopbackPlatform(*keys["platform"], tool_jwks=jwks(tool_private)) as lms:
        good = assertion(lms, tool_private)
        assert token_request(lms, good).status_code == 200
        assert token_request(lms, good).status_code == 401, "a jti is single-use"
        assert token_request(lms, assertion(lms, tool_private, aud="https://elsewhere/token")).status_code == 401
        assert token_request(lms, assertion(lms, tool_private, exp=int(time.time()) - 5)).status_code == 401
        assert token_request(lms, assertion(lms, tool_private, exp=int(time.time()) + 86400)).status_code == 401
        other_private, _ = new_key_pair()
        forged = jwt.encode(jwt.decode(assertion(lms, tool_private), options={"verify_signature": False}),
                            other_private, algorithm="RS256", headers={"kid": jwks(tool_private)["keys"][0]["kid"]})
        assert token_request(lms, forged).status_code == 401
        assert len(lms.violations) == 5

        token = token_request(lms, assertion(lms, tool_private)).json()["access_token"]
        lms.store.lineitems["1"] = {"id": f"{lms.base}/lineitems/1", "label": "x", "scoreMaximum": 10}
        score = {"userId": "u1", "scoreGiven": 5, "scoreMaximum": 10, "timestamp": "2025-01-01T00:00:00.000+00:00",
                 "activityProgress": "Completed", "gradingProgress": "FullyGraded"}
        url = f"{lms.base}/lineitems/1/scores"
        auth = {"Authorization": f"Bearer {token}"}
        wrong_type = requests.post(url, data=json.dumps(score), timeout=10,
                                   headers={**auth, "Content-Type": "application/json"})
        assert wrong_type.status_code == 400
        right = requests.post(url, data=json.dumps(score), timeout=10, headers={**auth, "Content-Type": SCORE_TYPE})
        assert right.status_code == 200
        no_token = requests.post(url, data=json.dumps(score), timeout=10, headers={"Content-Type": SCORE_TYPE})
        assert no_token.status_code == 401


@pytest.mark.parametrize("change, problem", [
    ({"activityProgress": "Done"}, "activityProgress"),
    ({"gradingProgress": "Graded"}, "gradingProgress"),
    ({"timestamp": "2025-01-01T00:00:00"}, "timestamp"),
    ({"scoreGiven": -1}, "scoreGiven"),
    ({"scoreMaximum": 0}, "scoreMaximum"),
    ({"userId": None}, "userId"),
    ({"grade": 5}, "unknown fields"),
])
def test_score_schema_check(change: dict, problem: str) -> None:
    score = {"userId": "u1", "scoreGiven": 5, "scoreMaximum": 10, "timestamp": "2025-01-01T00:00:00.123Z",
             "activityProgress": "Completed", "gradingProgress": "FullyGraded", "comment": "ok"}
    assert score_problem(json.dumps(score)) == ""
    assert problem in score_problem(json.dumps({**score, **change}))


def test_jwks_command_prints_the_public_key_only(in_course: Course, keys, monkeypatch, capsys) -> None:
    from autograder.lms.lti import main

    tool_private, tool_public = keys["tool"]
    (in_course.root / "lms.toml").write_text('[lti]\nissuer = "x"\n')
    monkeypatch.setenv("LTI_PRIVATE_KEY", tool_private)
    assert main(["jwks"]) == 0
    printed = json.loads(capsys.readouterr().out)
    key = printed["keys"][0]
    assert key["kty"] == "RSA" and key["alg"] == "RS256" and key["use"] == "sig" and key["kid"]
    assert "d" not in key and "p" not in key, "no private parameters"
    assert jwt.PyJWK(key).key.public_numbers() == serialization.load_pem_public_key(
        tool_public.encode()).public_numbers()


def test_student_text_is_escaped_on_the_terminal_and_kept_out_of_comments(in_course: Course,
                                                                          platform: LoopbackPlatform,
                                                                          capsys) -> None:
    add_hostile_students(in_course)
    run_cli("push", HSA, "--to", "lti")
    assert_terminal_safe(capsys.readouterr().out)
    sent = [platform.scores("1", user) for user in ("lti-ada", "lti-bob", "lti-dee")]
    assert_comments_hold_no_student_text([score["comment"] for scores in sent for score in scores])


def test_concurrent_pushes_from_one_course_create_one_line_item(in_course: Course, platform: LoopbackPlatform,
                                                               keys) -> None:
    """Two `autograder push` processes at once, the platform slow to list line items: without turns, both
    would list none and both create one (PrairieLearn/PrairieLearn#15643)."""
    import subprocess
    import sys
    from pathlib import Path

    from tests.lms.conftest import subprocess_env

    platform.delays.append(("GET", "/lineitems", 1.0))
    env = {**subprocess_env(), "LTI_PRIVATE_KEY": keys["tool"][0]}
    command = [str(Path(sys.executable).parent / "autograder"), "push", HSA, "--to", "lti"]
    runs = [subprocess.Popen(command, cwd=in_course.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(2)]
    for run in runs:
        _, err = run.communicate(timeout=120)
        assert run.returncode == 0, err.decode()
    assert list(platform.store.lineitems) == ["1"]
    creates = [p for m, p in platform.requests if m == "POST" and p == "/lineitems"]
    assert len(creates) == 1, "the second run waited for the first and found its line item"
    assert platform.scores("1", "lti-ada")[0]["scoreGiven"] == 40.5


def test_a_line_item_created_elsewhere_at_the_same_time_is_the_one_kept(in_course: Course,
                                                                       platform: LoopbackPlatform) -> None:
    """Another machine's run creates its line item between this run's listing and its own create: both runs
    keep the first by id, and this run deletes its own empty duplicate."""
    platform.rival_on_create = {"label": HSA, "tag": HSA, "scoreMaximum": 46, "resourceId": HSA}
    assert run_cli("push", HSA, "--to", "lti") == 0
    assert list(platform.store.lineitems) == ["1"], "the duplicate this run made is gone"
    assert ("DELETE", "/lineitems/2") in platform.requests
    assert platform.scores("1", "lti-bob")[0]["scoreGiven"] == 29.2
    assert run_cli("push", HSA, "--to", "lti") == 0
    assert list(platform.store.lineitems) == ["1"]


def test_a_duplicate_holding_results_is_not_deleted(in_course: Course, platform: LoopbackPlatform) -> None:
    for number in ("1", "2"):
        platform.store.lineitems[number] = {"id": f"{platform.base}/lineitems/{number}", "label": HSA,
                                            "tag": HSA, "scoreMaximum": 46}
    platform.store.scores[("2", "lti-cyd")] = [{"scoreGiven": 1, "scoreMaximum": 46, "comment": "",
                                                "timestamp": "2025-01-01T00:00:00.000+00:00"}]
    assert run_cli("push", HSA, "--to", "lti") == 0
    assert sorted(platform.store.lineitems) == ["1", "2"], "a line item with grades in it is never deleted"
    assert platform.scores("1", "lti-ada")[0]["scoreGiven"] == 40.5
