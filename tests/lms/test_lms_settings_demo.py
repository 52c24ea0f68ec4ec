"""lms.toml rules (documented example, no secrets in it) and the demo step."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from autograder.devtools.demo_lms_step import demo_step, roster_step
from autograder.lms.errors import LmsError
from autograder.lms.lms_settings import load
from tests.lms.conftest import HSA, RUE, Course

REPO = Path(__file__).resolve().parents[2]


def test_example_settings_file_is_valid_and_holds_no_secret(tmp_path: Path) -> None:
    shutil.copy(REPO / "lms.example.toml", tmp_path / "lms.toml")
    settings = load(tmp_path, required=True)
    assert settings.mapping("canvas", "assignments", HSA, required=True) == 1001
    assert settings.get("lti", "private_key_env") == "LTI_PRIVATE_KEY"
    text = (REPO / "lms.example.toml").read_text()
    assert "BEGIN" not in text and "PRIVATE KEY-----" not in text


@pytest.mark.parametrize("content, message", [
    ('[canvas]\ntoken = "abc"\n', "[canvas] token looks like a secret"),
    ('[lti]\nclient_secret = "abc"\n', "[lti] client_secret looks like a secret"),
    ('[canvas]\nurll = "x"\n', "unknown key 'urll' in [canvas]"),
    ('[canvass]\n', "unknown section [canvass]"),
    ('[canvas]\ncourse_id = true\n', "[canvas] course_id must be int or str"),
    ('[moodle]\nidentifier = "nickname"\n', "identifier = 'nickname', expected one of"),
])
def test_bad_settings_are_refused(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "lms.toml").write_text(content)
    with pytest.raises(LmsError) as caught:
        load(tmp_path).choice("moodle", "identifier", "email", ("email", "username"))
    assert message in str(caught.value) and str(tmp_path / "lms.toml") in str(caught.value)
    assert "abc" not in str(caught.value), "a secret's value is never repeated back"


def test_secret_from_environment_then_file(tmp_path: Path, monkeypatch) -> None:
    course = tmp_path / "course"
    course.mkdir()
    key_file = tmp_path / "outside" / "key"
    key_file.parent.mkdir()
    key_file.write_text("from-file\n")
    (course / "lms.toml").write_text(f'[lti]\nprivate_key_env = "MY_KEY"\nprivate_key_file = "{key_file}"\n')
    settings = load(course)
    monkeypatch.setenv("MY_KEY", "from-env")
    assert settings.secret("lti", "private_key_env", "private_key_file", "X", "key") == "from-env"
    monkeypatch.delenv("MY_KEY")
    assert settings.secret("lti", "private_key_env", "private_key_file", "X", "key") == "from-file"
    key_file.unlink()
    with pytest.raises(LmsError, match="cannot read the key"):
        settings.secret("lti", "private_key_env", "private_key_file", "X", "key")


def test_demo_step(course: Course, capsys) -> None:
    (course.root / "lms.toml").unlink()
    roster_step(course.root, ["ada", "bob", "cyd", "dee"])  # the roster comes in before the submissions
    written = demo_step(course.root, [HSA, RUE])
    assert written == [course.root / "lms_roster.csv", course.root / "lms.toml",
                       course.root / "exports" / "canvas.csv"]
    assert all(p.is_file() for p in written)
    rows = list(csv.reader(io.StringIO((course.root / "exports" / "canvas.csv").read_text())))
    assert rows[0][5:] == [f"{HSA} (1001)", f"{RUE} (1002)"] and rows[1][0] == "    Points Possible"
    by_login = {r[3]: r for r in rows[2:]}
    assert by_login["bob"][5] == "29.2" and by_login["cyd"][5] == "" and by_login["ada"][6] == "20"
    assert {r[1] for r in rows[2:]} == {"2001", "2002", "2003", "2004"}
    out = capsys.readouterr().out
    assert f"Dry run: would send 3 grade(s) for {HSA} to Canvas https://canvas.example.edu course 12345" in out
    assert "Nothing was sent" in out

    # A second run keeps the instructor's settings file and gives the same export.
    before = (course.root / "exports" / "canvas.csv").read_bytes()
    (course.root / "lms.toml").write_text((course.root / "lms.toml").read_text().replace("12345", "999"))
    written = demo_step(course.root, [HSA, RUE])
    assert course.root / "lms.toml" not in written
    assert (course.root / "exports" / "canvas.csv").read_bytes() == before
    assert "course 999" in capsys.readouterr().out
