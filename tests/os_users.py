"""Making and removing OS users from tests that may run at once (`make test` runs test files in parallel):
`useradd` and `userdel` take a lock on /etc/passwd and give up at once when another holds it."""

import subprocess
import time

LOCK_TRIES = 50  # 0.1 s apart: a few seconds for another test's useradd to finish


def account_command(*command: str) -> subprocess.CompletedProcess:
    """Run `useradd`/`userdel` with `command`'s arguments, again while another process holds the lock."""
    for _ in range(LOCK_TRIES):
        done = subprocess.run(list(command), capture_output=True, text=True)
        if done.returncode != 10 and "lock" not in done.stderr:  # 10: cannot lock the password file
            return done
        time.sleep(0.1)
    return done
