"""The course's LMS settings, `lms.toml` in the course root (see `lms.example.toml`).

It maps each assignment to its LMS column or line item and names the LMS URLs and client ids.
It never holds a secret: the Canvas token and the LTI private key come from an environment variable
or from a file outside the course folder, and a secret-looking key in `lms.toml` is refused. Secrets
are read only when a push really sends, and never appear in a message.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import LmsError

FILENAME = "lms.toml"
IDENTITY_CHOICES = ("student_id", "email", "lms_user_id", "sis_user_id", "login_id", "lti_user_id")

# section -> key -> expected type; a `dict` value is a table of assignment -> value.
SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "roster": {"canvas_id_from": str, "sync_seconds": (int, float)},
    "canvas": {"url": str, "course_id": (int, str), "token_env": str, "token_file": str,
               "batch_size": int, "assignments": dict},
    "moodle": {"identifier": str, "items": dict},
    "blackboard": {"username": str, "columns": dict, "names": dict},
    "brightspace": {"key": str, "items": dict},
    # auth_login_url, jwks_url, deployment_ids, context_id, resource_links: what a JupyterHub's LTI 1.3 login
    # checks a launch against (autograder/hub/course_registration.py).
    "lti": {"issuer": str, "client_id": str, "token_url": str, "audience": str,
            "lineitems_url": str, "memberships_url": str, "private_key_env": str, "private_key_file": str,
            "user_id": str, "assignments": dict, "auth_login_url": str, "jwks_url": str, "deployment_ids": list,
            "context_id": str, "resource_links": dict},
    "push": {"retries": int, "backoff_seconds": (int, float), "poll_seconds": (int, float),
             "scan_seconds": (int, float)},
}
# Keys an earlier release read, each with what replaces it: refused by name, never silently ignored.
RENAMED = {("lti", "deployment_id"): "use deployment_ids, a list of the platform's deployment ids"}
SECRET_WORDS = ("token", "secret", "password", "private_key", "api_key")
SECRET_POINTERS = ("token_env", "token_file", "private_key_env", "private_key_file")


@dataclass
class Settings:
    path: Path
    data: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def course(self) -> Path:
        return self.path.parent

    def section(self, name: str) -> dict[str, Any]:
        return self.data.get(name, {})

    def get(self, section: str, key: str, default: Any = None) -> Any:
        return self.section(section).get(key, default)

    def require(self, section: str, key: str) -> Any:
        value = self.section(section).get(key)
        if value in (None, ""):
            raise LmsError(f"{self.path}: [{section}] {key} is not set")
        return value

    def mapping(self, section: str, table: str, assignment: str, required: bool) -> Any:
        value = self.section(section).get(table, {}).get(assignment)
        if value in (None, "") and required:
            raise LmsError(f"{self.path}: no [{section}.{table}] entry for assignment {assignment!r}")
        return value

    def choice(self, section: str, key: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.get(section, key, default)
        if value not in choices:
            raise LmsError(f"{self.path}: [{section}] {key} = {value!r}, expected one of {', '.join(choices)}")
        return value

    def secret(self, section: str, env_key: str, file_key: str, default_env: str, what: str) -> str:
        """The secret from the named environment variable, else from the named file outside the course."""
        env_name = self.get(section, env_key, default_env)
        value = os.environ.get(env_name, "")
        if value.strip():
            return value.strip()
        file_name = self.get(section, file_key)
        if file_name:
            secret_path = Path(os.path.expanduser(file_name))
            if not secret_path.is_absolute():
                secret_path = self.course / secret_path
            check_outside_course(self, secret_path, f"[{section}] {file_key}")
            try:
                text = secret_path.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise LmsError(f"{secret_path}: cannot read the {what} ({exc.strerror})") from exc
            if not text:
                raise LmsError(f"{secret_path}: the {what} file is empty")
            return text
        raise LmsError(
            f"no {what}: set the environment variable {env_name}"
            f"{' or the file ' + str(file_name) if file_name else f' or [{section}] {file_key} in {self.path.name}'}"
        )


def deployment_ids(settings: Settings) -> list[str]:
    """The platform's deployment ids this course accepts (`[lti] deployment_ids`, what the hub's login checks a
    launch against), in the file's order; empty when none is listed."""
    found = settings.get("lti", "deployment_ids", [])
    if not all(isinstance(d, str) and d for d in found):
        raise LmsError(f"{settings.path}: [lti] deployment_ids must be a list of the platform's deployment ids "
                       "(non-empty strings)")
    return list(found)


def check_outside_course(settings: Settings, secret_path: Path, key: str) -> None:
    """A secret file inside the course folder could be committed or released with it: refuse it."""
    course = settings.course.resolve()
    resolved = secret_path.resolve()
    if resolved == course or course in resolved.parents:
        raise LmsError(f"{settings.path}: {key} points inside the course folder; keep secrets outside it")


def _check(path: Path, data: dict[str, Any]) -> None:
    for section, body in data.items():
        if section not in SCHEMA:
            raise LmsError(f"{path}: unknown section [{section}] (known: {', '.join(SCHEMA)})")
        if not isinstance(body, dict):
            raise LmsError(f"{path}: {section} must be a [{section}] table")
        for key, value in body.items():
            lowered = key.lower()
            pointer = key in SECRET_POINTERS or lowered.endswith("_url")  # names where a secret is, or an endpoint
            if not pointer and any(word in lowered for word in SECRET_WORDS):
                raise LmsError(
                    f"{path}: [{section}] {key} looks like a secret; secrets go in an environment variable "
                    f"or a file outside the course folder, never in {path.name}"
                )
            expected = SCHEMA[section].get(key)
            if (section, key) in RENAMED:
                raise LmsError(f"{path}: [{section}] {key} is not read: {RENAMED[section, key]}")
            if expected is None:
                raise LmsError(f"{path}: unknown key {key!r} in [{section}] (known: {', '.join(SCHEMA[section])})")
            if not isinstance(value, expected) or isinstance(value, bool):
                names = expected.__name__ if isinstance(expected, type) else " or ".join(t.__name__ for t in expected)
                raise LmsError(f"{path}: [{section}] {key} must be {names}")


def load(course: Path, required: bool = False) -> Settings:
    """`lms.toml` of the course; an empty Settings when the file does not exist and is not required."""
    path = course / FILENAME
    if not path.is_file():
        if required:
            raise LmsError(f"{path}: not found (copy lms.example.toml to {FILENAME} and fill it in)")
        return Settings(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise LmsError(f"{path}: not UTF-8 text") from exc
    except tomllib.TOMLDecodeError as exc:
        raise LmsError(f"{path}: not valid TOML ({exc})") from exc
    _check(path, data)
    return Settings(path, data)
