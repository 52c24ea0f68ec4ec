"""The hub's used nonces and states (`hub.lti_login.UsedOnce`): a launch is accepted once, by any hub process,
before or after a restart, until its tokens are too old for the library to accept anyway."""

import multiprocessing

from autograder.hub.lti_login import USED_ONCE_FILE, UsedOnce, used_once_file


def test_a_value_is_first_used_once_across_a_restart_and_kinds_are_apart(tmp_path):
    nonces = UsedOnce(600, tmp_path / "used.sqlite", "nonce")
    assert nonces.first_use("n-1", now=1000) and not nonces.first_use("n-1", now=1001)
    restarted = UsedOnce(600, tmp_path / "used.sqlite", "nonce")  # a new hub process: only the file is shared
    assert not restarted.first_use("n-1", now=1300)
    assert UsedOnce(600, tmp_path / "used.sqlite", "state").first_use("n-1", now=1300)
    assert restarted.first_use("n-2", now=1300)
    # Kept only as long as a launch carrying it could still be accepted: then forgotten, the file stays small.
    assert restarted.first_use("n-1", now=1000 + 600.5)


def test_hostile_values_are_kept_as_digests(tmp_path):
    used = UsedOnce(600, tmp_path / "used.sqlite", "state")
    for value in ("'; DROP TABLE used_once; --", "x" * 100_000, "\udcff", ""):
        assert used.first_use(value, now=5) and not used.first_use(value, now=6)


def _claim(path, values, queue):
    used = UsedOnce(600, path, "nonce")
    queue.put([value for value in values if used.first_use(value)])


def test_two_hub_processes_never_both_accept_one_launch(tmp_path):
    values = [f"nonce-{i}" for i in range(60)]
    queue = multiprocessing.get_context("fork").Queue()
    workers = [multiprocessing.get_context("fork").Process(target=_claim, args=(tmp_path / "u.sqlite", values, queue))
               for _ in range(2)]
    for worker in workers:
        worker.start()
    accepted = queue.get(timeout=60) + queue.get(timeout=60)
    for worker in workers:
        worker.join(60)
    assert sorted(accepted) == sorted(values)  # each once, by one process or the other


def test_the_file_is_beside_the_hub_s_sqlite_database_else_in_its_working_folder(tmp_path, monkeypatch):
    assert used_once_file(f"sqlite:///{tmp_path}/hub/jupyterhub.sqlite") == tmp_path / "hub" / USED_ONCE_FILE
    monkeypatch.chdir(tmp_path)
    assert used_once_file("postgresql://hub@db/hub") == tmp_path / USED_ONCE_FILE
    assert used_once_file("sqlite:///:memory:") == tmp_path / USED_ONCE_FILE
