"""The OS accounts behind a hub's users: a student's or instructor's own user with a private home, made on their
first spawn, and the OS group that lets a course's instructors into its folder.

The hub never takes over an account it did not make: a name that is already a system user (root, daemon, a
colleague's login) is refused unless its comment field carries `HUB_MARK`, which only `ensure_user` writes.
"""

import grp
import hashlib
import os
import pwd
import re
import subprocess
import time
from pathlib import Path

from autograder.lms.identity_names import is_reserved

HUB_MARK = "autograder hub user"  # the comment (GECOS) field of every account ensure_user makes
# POSIX's portable user names as Debian's useradd takes them by default: a lowercase letter or underscore, then
# lowercase letters, digits, underscores and dashes; at most 32 characters (utmp's limit).
POSIX_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
LOCK_TRIES = 50  # 0.1 s apart: a few seconds for another useradd (another hub, a test) to let go of /etc/passwd


class AccountError(Exception):
    """A user the hub must not or could not give an OS account to; the message says which and why."""


def account_command(*command: str) -> subprocess.CompletedProcess:
    """Run `useradd`, `userdel`, `groupadd` or `usermod` with `command`'s arguments, again while another process
    holds the lock on /etc/passwd (they give up at once when it is held: exit status 10)."""
    for _ in range(LOCK_TRIES):
        done = subprocess.run(list(command), capture_output=True, text=True)
        if done.returncode != 10 and "lock" not in done.stderr:
            return done
        time.sleep(0.1)
    return done


def check_name(name: str) -> None:
    """Refuse a hub user name that is not a valid POSIX user name (it is also the nbgrader student id)."""
    if not POSIX_NAME.fullmatch(name):
        raise AccountError(f"{name!r} is not a valid POSIX user name (lowercase letters, digits, '_' and '-', "
                           "starting with a letter or '_', at most 32 characters): no OS account is made for it")
    if is_reserved(name):
        raise AccountError(f"{name!r} is of a name the hub keeps for its course groups and services "
                           "(identity_names.RESERVED): no OS account is made for it")


def ensure_user(name: str) -> pwd.struct_passwd:
    """The OS account of hub user `name`, made when missing (`useradd`, home mode 0700). Refuses an invalid name
    and an existing account the hub did not make."""
    check_name(name)
    try:
        found = pwd.getpwnam(name)
    except KeyError:
        done = account_command("useradd", "--create-home", "--key", "HOME_MODE=0700", "--shell", "/bin/bash",
                               "--comment", HUB_MARK, name)
        if done.returncode != 0:
            raise AccountError(f"useradd {name} failed: {done.stderr.strip()}") from None
        return pwd.getpwnam(name)
    # The mark is the comment's full-name part, which Debian's chfn lets no user change (CHFN_RESTRICT rwh in
    # /etc/login.defs); a student who sets their room or phone with chfn adds fields after it, and keeps the mark.
    if found.pw_gecos.split(",")[0] != HUB_MARK:
        raise AccountError(f"{name!r} is an existing OS account that the hub did not make (uid {found.pw_uid}): "
                           "the hub does not run servers as it")
    return found


def course_group_name(group: str) -> str:
    """The OS group standing for hub group `group`: the same name when it is a valid POSIX group name, else a
    short stable one derived from it (a long or dotted course id)."""
    if POSIX_NAME.fullmatch(group):
        return group
    return "hub-" + hashlib.sha256(group.encode()).hexdigest()[:16]


def ensure_group(name: str, owns: Path) -> grp.struct_group:
    """OS group `name`, the one the hub gives folder `owns` to: made when missing. An existing group is the hub's
    only when `owns` is its already (the hub made it and gave it the folder on an earlier start) and it is no
    account's own group; any other is refused, never adopted: a student's personal group of that name would
    otherwise be handed the course folder."""
    try:
        found = grp.getgrnam(name)
    except KeyError:
        done = account_command("groupadd", name)
        if done.returncode != 0:
            raise AccountError(f"groupadd {name} failed: {done.stderr.strip()}") from None
        return grp.getgrnam(name)
    users = [user.pw_name for user in pwd.getpwall() if user.pw_gid == found.gr_gid]
    if users or os.lstat(owns).st_gid != found.gr_gid:
        whose = f"the own group of {', '.join(users)}" if users else f"not the group of {owns}"
        raise AccountError(f"OS group {name} exists and the hub did not make it ({whose}): the hub does not adopt "
                           "it; remove it (groupdel) and start the hub again")
    return found


def set_membership(user: str, group: str, member: bool) -> None:
    """Put OS user `user` in OS group `group` or take them out, to match their hub groups at each spawn."""
    if (user in grp.getgrnam(group).gr_mem) == member:
        return
    command = ("gpasswd", "--add" if member else "--delete", user, group)
    done = account_command(*command)
    if done.returncode != 0:
        raise AccountError(f"{' '.join(command)} failed: {done.stderr.strip()}")


def hub_made_users() -> list[str]:
    """The OS users the hub made (their comment carries HUB_MARK), by name."""
    return sorted(user.pw_name for user in pwd.getpwall() if user.pw_gecos.split(",")[0] == HUB_MARK)


def remove_user(name: str) -> None:
    """OS user `name` removed with their home, after whatever they still run (their server, its kernels)."""
    subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
    done = account_command("userdel", "--remove", name)
    # userdel says 12 when the home was already gone: the account is removed all the same.
    if done.returncode not in (0, 12) and name in {user.pw_name for user in pwd.getpwall()}:
        raise AccountError(f"userdel {name} failed: {done.stderr.strip()}")


def remove_course_group(name: str, owns: Path) -> bool:
    """OS group `name` removed when the hub made it (it owns `owns`, the course folder, and is no account's own
    group: ensure_group's test), the folder given back to root's group; whether it was removed."""
    try:
        found = grp.getgrnam(name)
    except KeyError:
        return False
    if any(user.pw_gid == found.gr_gid for user in pwd.getpwall()) or os.lstat(owns).st_gid != found.gr_gid:
        raise AccountError(f"OS group {name} is not the hub's ({owns} is not its, or it is an account's own group): "
                           "left as it is")
    os.chown(owns, -1, 0)
    done = account_command("groupdel", name)
    if done.returncode != 0:
        raise AccountError(f"groupdel {name} failed: {done.stderr.strip()}")
    return True
