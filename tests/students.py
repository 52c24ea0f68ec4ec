"""Students as real, separate OS users (nbgrader's exchange knows a student by the OS user name), made for
a test and removed after it, running nbgrader and JupyterLab from this project's venv.

The venv's own interpreter lies under root's home (mode 0700), which other users cannot enter; the
system's Python 3.11 runs the same installed packages (the venv's site-packages are readable by all)."""

import os
import secrets
import shutil
import socket
import subprocess
import sysconfig
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.os_users import account_command

SYSTEM_PYTHON = Path("/usr/bin/python3.11")
VENV = Path(sysconfig.get_paths()["data"])
SITE_PACKAGES = sysconfig.get_paths()["purelib"]


@dataclass
class Student:
    name: str
    home: Path

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "USER": self.name, "LOGNAME": self.name, "PATH": "/usr/bin:/bin",
                "PYTHONPATH": SITE_PACKAGES, "LANG": "C.UTF-8",
                # nbgrader's lab extension and server extensions, as the venv's own Python would find them, with
                # the instructor's tools switched off for students (jupyter-config/student, docs, "Setting it up")
                "JUPYTER_PATH": str(VENV / "share" / "jupyter"),
                "JUPYTER_CONFIG_PATH": f"{VENV / 'etc' / 'jupyter-student'}:{VENV / 'etc' / 'jupyter'}"}

    def command(self, *args: str) -> list[str]:
        return ["runuser", "-u", self.name, "--", "env", "-i", *(f"{k}={v}" for k, v in self.env().items()),
                str(SYSTEM_PYTHON), *args]

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(*args), cwd=self.home, capture_output=True, text=True, timeout=timeout)

    def nbgrader(self, *args: str) -> str:
        done = self.run("-m", "nbgrader", *args)
        assert done.returncode == 0, f"{self.name}: nbgrader {' '.join(args)}:\n{done.stderr[-2000:]}"
        return done.stderr

    def shell(self, script: str) -> subprocess.CompletedProcess:
        return subprocess.run(["runuser", "-u", self.name, "--", "sh", "-c", script], cwd=self.home,
                              capture_output=True, text=True, timeout=60)


def check_can_make_students() -> None:
    assert os.geteuid() == 0, "these tests make OS users (useradd): run them as root, as CI does"
    assert SYSTEM_PYTHON.is_file(), f"{SYSTEM_PYTHON} is missing: apt-get install python3.11"
    assert shutil.which("useradd") and shutil.which("runuser"), "useradd and runuser are missing (Debian's passwd)"
    # The students import the venv's packages: every folder above them must let other users through (a
    # checkout inside `mktemp -d`, mode 0700, does not).
    closed = [folder for folder in Path(SITE_PACKAGES).parents if not folder.stat().st_mode & 0o001]
    assert not closed, (f"{closed[0]} (mode {closed[0].stat().st_mode & 0o777:o}) keeps other users out of the "
                        f"venv the test students run from: chmod o+x it, or clone elsewhere")


@contextmanager
def students(count: int, exchange: Path, course_id: str):
    """`count` OS users with private homes (0700) and nbgrader configured for the exchange; removed after,
    with whatever they still run."""
    check_can_make_students()
    made = []
    try:
        for _ in range(count):
            name = f"agw{secrets.token_hex(4)}"
            done = account_command("useradd", "-m", "-K", "HOME_MODE=0700", "-s", "/bin/sh", name)
            assert done.returncode == 0, f"useradd {name}: {done.stderr}"
            student = Student(name, Path("/home") / name)
            made.append(student)
            config = student.home / ".jupyter" / "nbgrader_config.py"
            config.parent.mkdir()
            config.write_text(f'c = get_config()\nc.Exchange.root = "{exchange}"\n'
                              f'c.CourseDirectory.course_id = "{course_id}"\n')
            shutil.chown(config.parent, name, name)
            shutil.chown(config, name, name)
        yield made
    finally:
        for student in made:
            subprocess.run(["pkill", "-KILL", "-u", student.name], capture_output=True)
            account_command("userdel", "-r", student.name)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def jupyterlab(student: Student, log: Path):
    """JupyterLab as `student`, on 127.0.0.1 only; yields its URL with the token. Stopped whatever happens."""
    port, token = free_port(), secrets.token_hex(16)
    with open(log, "w") as out:
        process = subprocess.Popen(student.command(
            "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={student.home}", "--LabApp.news_url=", "--ServerApp.open_browser=False"),
            cwd=student.home, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert process.poll() is None, f"JupyterLab ended:\n{log.read_text()[-3000:]}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"JupyterLab did not listen:\n{log.read_text()[-3000:]}"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/lab?token={token}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
