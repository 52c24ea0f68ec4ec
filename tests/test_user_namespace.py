"""Grading inside a user namespace, as a grader in a Kubernetes pod with `hostUsers: false` runs (the whole
`autograder grade` command and its Dask worker are inside; the machine has no Kubernetes).

- A pod's namespace (65,536 ids mapped, a read-only cgroupfs, as the kubelet and container runtime give it; only
  the capabilities deploy/kubernetes/workers.yaml gives the workers, and its read-only root): the sandbox reaches
  "full" (uid nobody, every namespace, an empty /proc) but for per-submission cgroups, so the rlimits hold memory
  and processes; the cheats, hostile submissions and hostile folders of tests/test_attacks.py and
  tests/test_hostile_folders.py that the namespace could change hold there, graded by a Dask worker.
- `unshare --user --map-root-user` (root alone mapped, setgroups denied): no uid to drop to, so "userns"
  (every namespace, the uid kept), said as such; asking for "full" there is refused in one line.
- Without SYS_ADMIN in the pod's namespace: refused in one line, as on a host without namespaces.

Cost: 18-23 CPU-seconds, children included (two grading runs, a LocalCluster, three zygotes).
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.devtools.catalogue import Answer
from tests.counting_listener import counting_listener
from tests.grading_course import ASSIGNMENT, CLI, make_course, outputs_text, result, scores, submit
from tests.test_attacks import ATTACKS, FULL, WRONG, replace_and_delete, wrong_with
from tests.test_hostile_folders import HOSTILE, NOTEBOOK
from tests.user_namespace import MAP_ROOT_USER, pod_namespace

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="making a user namespace with a map needs root")

# Who the submission's process is and what it sees of the machine's processes.
WHOAMI = wrong_with("import os\nprint('WHO', os.getuid(), os.getgid(), os.getgroups(), len(os.listdir('/proc')))")
SCORE_CHEATS = ("patch_allclose", "shadow_modules", "lying_subclass", "output_hooks", "edits_test_cells")
ESCAPES = ("reads_secrets", "writes_outside", "network")
BOMBS = ("memory_bomb", "fork_bomb", "kills_parent")
FOLDERS = ("fifo-and-links", "notebook-is-fifo", "ts-not-a-date")

# Inside the pod's namespace: the root read-only but /tmp (workers.yaml: readOnlyRootFilesystem, an emptyDir at
# /tmp, where the course of this test lies too) and the cgroupfs read-only (as a container sees it), then a Dask
# LocalCluster and `autograder grade --cluster` against it.
IN_POD = """
import subprocess, sys
subprocess.run(["mount", "--bind", "/tmp", "/tmp"], check=True)
subprocess.run(["mount", "-o", "remount,bind,ro", "/"], check=True)
for line in open("/proc/self/mounts"):
    point, kind = line.split()[1:3]
    if kind in ("cgroup", "cgroup2"):
        subprocess.run(["mount", "-o", "remount,bind,ro", point], check=True)
import distributed
with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1",
                              dashboard_address=None) as cluster:
    done = subprocess.run([sys.argv[1], "grade", sys.argv[2], "--cluster", cluster.scheduler_address])
sys.exit(done.returncode)
"""

ZYGOTE_LEVELS = """
from autograder.sandbox.sandbox_errors import SandboxError
from autograder.sandbox.zygote_handle import Zygote
with Zygote() as z:
    print("AUTO", z.info.level, z.info.missing)
try:
    Zygote("full").start()
except SandboxError as exc:
    print("FULL", exc)
"""


REFUSAL = """
from autograder.sandbox.sandbox_errors import SandboxError
from autograder.sandbox.zygote_handle import Zygote
try:
    Zygote().start()
except SandboxError as exc:
    print("REFUSED", exc)
"""


def graded(cells: dict[str, float]) -> dict[str, float]:
    """The autograded cells' scores (a manually graded cell stays 0 until staff grade it)."""
    return {name: cells[name] for name in FULL}


def worker_capabilities() -> list[str]:
    """What the grading workers' pods add, all else dropped (deploy/kubernetes/workers.yaml)."""
    import yaml

    from autograder.devtools.repo import ROOT

    docs = yaml.safe_load_all((ROOT / "deploy" / "kubernetes" / "workers.yaml").read_text())
    worker = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "autograder-dask-worker")
    [container] = worker["spec"]["template"]["spec"]["containers"]
    capabilities = container["securityContext"]["capabilities"]
    assert capabilities["drop"] == ["ALL"]
    return capabilities["add"]


def _environment() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def _class(course: Path, names: tuple[str, ...], port: int) -> None:
    submit(course, "solution")
    submit(course, "wrong", [WRONG])
    repo = Path(__file__).resolve().parent.parent
    fill = {"{course}": str(course), "{repo}": str(repo), "{port}": str(port)}
    for name in names:
        spec = WHOAMI if name == "whoami" else ATTACKS[name]
        answers = []
        for a in spec.get("answers", []):
            code = a.code
            for key, value in fill.items():
                code = code.replace(key, value)
            answers.append(Answer(a.exercise, a.name, code))
        edit = replace_and_delete if spec.get("edit") == "replace_and_delete" else spec.get("edit")
        submit(course, name, answers, edit=edit, files=spec.get("files"))


@pytest.fixture(scope="module")
def in_pod(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("pod") / "course", "c.Execute.timeout = 3")
    with counting_listener() as (port, connections):
        _class(course, ("whoami", *SCORE_CHEATS, *ESCAPES, *BOMBS), port)
        for student in FOLDERS:
            folder = course / "submitted" / student / ASSIGNMENT
            folder.mkdir(parents=True)
            (folder / NOTEBOOK).write_bytes((course / "submitted" / "solution" / ASSIGNMENT / NOTEBOOK).read_bytes())
            HOSTILE[student][0](folder)
        started = time.monotonic()
        # With only the capabilities the workers' pods get (deploy/kubernetes/workers.yaml).
        bounding = ",".join(["-all", *(f"+{cap.lower()}" for cap in worker_capabilities())])
        command = ["setpriv", "--bounding-set", bounding, "--inh-caps", "-all", "--", sys.executable, "-c", IN_POD, CLI,
                   ASSIGNMENT]
        done = subprocess.run(pod_namespace(command), cwd=course,
                              env=_environment(), capture_output=True, text=True, timeout=600)
    return course, done, connections, time.monotonic() - started


def test_in_a_pods_namespace_the_sandbox_is_full_but_for_cgroups_and_says_so(in_pod):
    course, done, _, _ = in_pod
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr + done.stdout
    assert result(course, "solution")["sandbox_level"] == "full"
    assert "sandbox level 'full': these protections are OFF:" in done.stderr and "cgroup" in done.stderr
    assert "WHO 65534 65534 [] 0" in outputs_text(course, "whoami")  # nobody, no groups, no process in view
    assert graded(scores(course)["solution"]) == FULL


def test_in_a_pods_namespace_no_cheat_earns_more_than_the_wrong_answer(in_pod):
    course = in_pod[0]
    got = scores(course)
    for name in (*SCORE_CHEATS, *ESCAPES):
        if name == "lying_subclass":
            assert got[name]["test_concat_weights"] == 0.0 and got[name]["test_sigmoid"] == 7.0
        else:
            assert got[name] == got["wrong"], name


def test_in_a_pods_namespace_nothing_is_read_written_or_connected(in_pod):
    course, _, connections, _ = in_pod
    assert "read nothing" in outputs_text(course, "reads_secrets")
    assert "WROTE" not in outputs_text(course, "writes_outside") and not list(course.rglob("PWNED"))
    assert not Path("/var/tmp/PWNED").exists() and not Path("/tmp/SHADOWED").exists()
    assert not connections and "NET-OK" not in outputs_text(course, "network")


def test_in_a_pods_namespace_the_rlimits_hold_memory_and_processes_without_cgroups(in_pod):
    import re

    course = in_pod[0]
    got = scores(course)
    assert "memory" in result(course, "memory_bomb")["limits_hit"] and sum(got["memory_bomb"].values()) == 46.0
    forked = int(re.search(r"forked (\d+)", outputs_text(course, "fork_bomb")).group(1))
    assert forked < 20  # RLIMIT_NPROC for nobody: 16
    assert graded(got["fork_bomb"]) == graded(got["kills_parent"]) == FULL


def test_in_a_pods_namespace_hostile_folders_cost_their_own_student_only(in_pod):
    course, done, _, _ = in_pod
    got = scores(course)
    assert sum(got["fifo-and-links"].values()) == 46.0 and sum(got["notebook-is-fifo"].values()) == 0.0
    assert "ts-not-a-date" not in got and "is not a date" in done.stdout + done.stderr
    graded = course / "autograded" / "fifo-and-links" / ASSIGNMENT
    assert not any(p.is_symlink() for p in graded.iterdir())


@pytest.fixture(scope="module")
def map_root_user(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("map-root") / "course", "c.Execute.timeout = 3")
    _class(course, ("whoami", "patch_allclose", "reads_secrets", "writes_outside"), 9)
    done = subprocess.run([*MAP_ROOT_USER, CLI, "grade", ASSIGNMENT], cwd=course, env=_environment(),
                          capture_output=True, text=True, timeout=600)
    levels = subprocess.run([*MAP_ROOT_USER, sys.executable, "-c", ZYGOTE_LEVELS], env=_environment(),
                            capture_output=True, text=True, timeout=120)
    return course, done, levels


def test_with_root_alone_mapped_the_sandbox_keeps_every_namespace_but_not_the_uid(map_root_user):
    course, done, _ = map_root_user
    assert done.returncode == 0, done.stderr[-3000:]
    assert result(course, "solution")["sandbox_level"] == "userns"
    assert "sandbox level 'userns': these protections are OFF: unprivileged uid" in " ".join(done.stderr.split())
    got = scores(course)
    assert graded(got["solution"]) == FULL and got["patch_allclose"] == got["reads_secrets"] == got["wrong"]
    assert "read nothing" in outputs_text(course, "reads_secrets") and "WROTE" not in outputs_text(course,
                                                                                                   "writes_outside")
    assert "WHO 0 0" in outputs_text(course, "whoami")  # root of its own user namespace, which maps root alone


def test_with_root_alone_mapped_full_is_refused_in_one_line(map_root_user):
    levels = map_root_user[2]
    assert levels.returncode == 0, levels.stderr[-2000:]
    lines = levels.stdout.strip().splitlines()
    assert lines[0] == "AUTO userns ['unprivileged uid']"
    assert lines[1].startswith("FULL not grading: the sandbox cannot hide") and len(lines) == 2
    assert "uid and gid 65534 (nobody) cannot be taken in this user namespace" in lines[1]
    assert json.dumps(lines)  # one line each: nothing else was printed


def test_in_a_pods_namespace_without_sys_admin_the_sandbox_refuses_in_one_line():
    """Fail closed where the pod cannot make namespaces (the workers' capabilities but SYS_ADMIN, as in the chart's
    own pods): no level below the one asked for, one line."""
    bounding = ",".join(["-all", *(f"+{cap.lower()}" for cap in worker_capabilities() if cap != "SYS_ADMIN")])
    command = ["setpriv", "--bounding-set", bounding, "--inh-caps", "-all", "--", sys.executable, "-c", REFUSAL]
    done = subprocess.run(pod_namespace(command), env=_environment(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    [line] = done.stdout.strip().splitlines()
    assert line.startswith("REFUSED not grading: the sandbox cannot hide"), line
    assert "(full isolation unavailable: [Errno 1] unshare: Operation not permitted)" in line, line
