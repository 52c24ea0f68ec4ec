"""A throw-away PostgreSQL server for the tests: Debian's `postgresql` package (`make system-deps` installs
it), a cluster made by `initdb` in a temporary folder, reachable only through a Unix socket in that folder
(no TCP port), owned by an unprivileged user, since PostgreSQL refuses to run as root and the tests do.

The server is the child of the test process and is told to stop when that process dies, however it dies;
`stop` ends it and removes its folder.
"""

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from tests.os_users import account_command

USER = "autograder-pg"  # not `nobody`: the sandbox runs students' code as nobody, who must not own a gradebook
SUPERUSER = "postgres"


class PostgresUnavailable(Exception):
    """The server cannot be started here; the message says what to install or run."""


def binaries() -> Path:
    """The newest installed server's bin folder (`/usr/lib/postgresql/<version>/bin`)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(Path(p).parts[-3]))
    if not found:
        raise PostgresUnavailable("no PostgreSQL server installed: run `make system-deps` "
                                  "(or apt-get install postgresql)")
    return Path(found[-1]).parent


def server_user() -> pwd.struct_passwd:
    """The unprivileged account the server runs as, made (a system user without home or shell) if missing."""
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        pass
    if os.getuid() != 0:
        return pwd.getpwuid(os.getuid())  # not root: the server can run as whoever runs the tests
    done = account_command("useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                           "--shell", "/usr/sbin/nologin", USER)
    if done.returncode != 0 and "already exists" not in done.stderr:
        raise PostgresUnavailable(f"cannot create the user {USER}: {done.stderr.strip()}")
    return pwd.getpwnam(USER)


class PostgresServer:
    def __init__(self) -> None:
        self.bin = binaries()
        self.user = server_user()
        # Under /tmp, not pytest's folders (root-only): the server's user must reach its socket and data.
        self.folder = Path(tempfile.mkdtemp(prefix="autograder-pg-"))
        self.process: subprocess.Popen | None = None
        self._databases = 0

    def _as_user(self, *command: str) -> list[str]:
        if os.getuid() != 0:
            return list(command)
        # --pdeathsig: SIGQUIT (immediate shutdown) reaches the server if the test process dies first.
        return ["setpriv", f"--reuid={self.user.pw_uid}", f"--regid={self.user.pw_gid}", "--clear-groups",
                "--pdeathsig=SIGQUIT", *command]

    def start(self) -> None:
        os.chown(self.folder, self.user.pw_uid, self.user.pw_gid)
        os.chmod(self.folder, 0o700)  # the socket, and so the trust-authenticated superuser, is the tests' only
        env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8", "HOME": str(self.folder)}
        done = subprocess.run(self._as_user(str(self.bin / "initdb"), "-D", str(self.folder / "data"), "-U",
                                            SUPERUSER, "--auth=trust", "--encoding=UTF8", "--no-sync"),
                              cwd=self.folder, env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {done.stderr.strip()[-500:]}")
        # Durability is not what the tests check: no fsync, so the server costs the shared disk nothing.
        with open(self.folder / "server.log", "wb") as log:
            self.process = subprocess.Popen(
                self._as_user(str(self.bin / "postgres"), "-D", str(self.folder / "data"), "-k", str(self.folder),
                              "-c", "listen_addresses=", "-c", "fsync=off", "-c", "full_page_writes=off",
                              "-c", "synchronous_commit=off", "-c", "max_connections=50"),
                cwd=self.folder, env=env, stdout=subprocess.DEVNULL, stderr=log)
        self._wait_ready()

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise PostgresUnavailable(f"the server stopped: {self.log()[-500:]}")
            try:
                psycopg.connect(self.dsn("postgres"), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise PostgresUnavailable(f"the server did not start in 60 s: {self.log()[-500:]}") from None
                time.sleep(0.05)

    def log(self) -> str:
        try:
            return (self.folder / "server.log").read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        try:
            if self.process is not None and self.process.poll() is None:
                self.process.send_signal(signal.SIGINT)  # fast shutdown: clients are disconnected
                try:
                    self.process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def dsn(self, database: str) -> str:
        return f"dbname={database} user={SUPERUSER} host={self.folder}"

    def url(self, database: str) -> str:
        """The database's URL as a course's `c.CourseDirectory.db_url` names it."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.folder}"

    def create_database(self, template: str | None = None) -> str:
        """A new, empty database (or a copy of `template`); its name."""
        import psycopg

        self._databases += 1
        name = f"gradebook_{self._databases}"
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
        return name
