"""Run a command as root of a user namespace, as a grader runs in a Kubernetes pod with `hostUsers: false`.

Two ways in (both as the machine's root, the tests' user):

- `MAP_ROOT_USER`: util-linux's `unshare --user --map-root-user --mount --pid --fork`, which maps root alone
  (no other uid exists in the namespace) and denies setgroups;
- `pod_namespace(command)`: 65,536 ids mapped and setgroups allowed, as the kubelet maps a pod's user namespace
  (to a host range of its own; here to the same ids, so that the machine's files, its Python among them under
  the 0700 /root, stay readable: the namespace is what is tested, not the host's ids), then the same
  mount and PID namespaces.

Run as a script (`python tests/user_namespace.py IDS COMMAND...`) it is the second: it forks a child that
makes the user namespace and waits until this process, still outside, has written the child's id maps.
"""

import os
import sys
from pathlib import Path

MAP_ROOT_USER = ["unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork"]
POD_IDS = 65536  # a pod's user namespace maps 0-65535 (KEP-127)


def pod_namespace(command: list[str], ids: int = POD_IDS) -> list[str]:
    """`command` run as root of a user namespace mapping `ids` ids, with its own mount and PID namespaces."""
    return [sys.executable, str(Path(__file__).resolve()), str(ids), *command]


def _main(ids: int, command: list[str]) -> int:
    from autograder.sandbox.isolation import CLONE_NEWUSER, unshare

    made_r, made_w = os.pipe()
    mapped_r, mapped_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(made_r)
        os.close(mapped_w)
        try:
            unshare(CLONE_NEWUSER)
            os.write(made_w, b"x")
            if os.read(mapped_r, 1) != b"x":
                os._exit(111)
            # Root of the new namespace (capabilities are recomputed at exec for uid 0) makes the rest.
            os.execvp("unshare", ["unshare", "--mount", "--pid", "--fork", *command])
        except BaseException as exc:  # noqa: B036 - a forked child must never return into the caller
            print(f"user namespace: {exc}", file=sys.stderr)
            os._exit(111)
    os.close(made_w)
    os.close(mapped_r)
    if os.read(made_r, 1) != b"x":
        return 111
    Path(f"/proc/{pid}/uid_map").write_text(f"0 0 {ids}")
    Path(f"/proc/{pid}/gid_map").write_text(f"0 0 {ids}")
    os.write(mapped_w, b"x")
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(_main(int(sys.argv[1]), sys.argv[2:]))
