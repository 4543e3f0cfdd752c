"""A log database that is really a snapshots database is refused without being
written to; database faults (damaged pages, /proc and /sys paths, a read-only file system, a path below a
regular file, a lock held by another writer) are one line naming the file and what to do, exit 2."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from runs_support import oracle_replies, run_cli, write_snapshot

from core.instance import Snapshot
from core.paths import BUNDLED_SNAPSHOTS
from core.store import SnapshotStore
from tests.models.fakeserver import Reply  # noqa: F401  (the server fixture's replies)


def _one_line(result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and errors[0] == lines[-1], result.stderr
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
    return errors[0]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---- snapshots databases are never log databases -------------------------------------------
@pytest.mark.skipif(not BUNDLED_SNAPSHOTS.exists(), reason="no bundled snapshots.db in this checkout")
@pytest.mark.parametrize("how", ["flag", "env"])
def test_the_bundled_snapshots_db_is_refused_as_a_log_database(how: str, monkeypatch) -> None:
    before = _digest(BUNDLED_SNAPSHOTS)
    args = ["runs"]
    if how == "flag":
        result = run_cli("--db", str(BUNDLED_SNAPSHOTS), *args)
    else:
        monkeypatch.setenv("SEMBENCH_DB", str(BUNDLED_SNAPSHOTS))
        result = run_cli(*args)
    _one_line(result, "snapshots.db", "snapshots database", "--db")
    assert _digest(BUNDLED_SNAPSHOTS) == before
    assert not Path(f"{BUNDLED_SNAPSHOTS}-wal").exists() and not Path(f"{BUNDLED_SNAPSHOTS}-shm").exists()


def test_any_snapshots_database_is_refused_and_left_untouched(toy, tmp_path: Path) -> None:
    other = tmp_path / "my-snapshots.db"  # what `sembench snapshot build --out` writes
    store = SnapshotStore(other, writable=True)
    instances = list(toy.generate({}, 0, 3))
    store.write_snapshot(Snapshot(name="mine", family="toy", count=3), instances)
    store.close()
    before = _digest(other)
    for args in (["runs"], ["run", "--snapshot", "mine", "--solver", "oracle"], ["snapshot", "list"]):
        _one_line(run_cli("--db", str(other), *args), "my-snapshots.db", "snapshots database")
    assert _digest(other) == before
    with sqlite3.connect(f"file:{other}?mode=ro", uri=True) as conn:
        assert conn.execute("pragma journal_mode").fetchone()[0] != "wal"
        assert "attempts" not in {r[0] for r in conn.execute("select name from sqlite_master")}


def test_a_log_database_with_snapshots_of_its_own_is_still_a_log_database(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 2)  # imported snapshots live in the log database too
    assert run_cli("run", "--snapshot", "s", "--solver", "oracle").exit_code == 0


# ---- faults ------------------------------------------------------------------------------------
def test_damaged_pages_in_the_middle_are_one_line(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 60)
    result = run_cli("run", "--snapshot", "s", "--solver", "oracle", "--samples", "20", "--format", "json")
    run_id = json.loads(result.stdout)["run"]
    with sqlite3.connect(log_db) as conn:
        conn.execute("pragma wal_checkpoint(truncate)")
        page = conn.execute("pragma page_size").fetchone()[0]
    data = bytearray(log_db.read_bytes())
    pages = len(data) // page
    assert pages > 20
    for n in range(pages // 3, 2 * pages // 3):  # garbage over a third of the pages, page 1 (the header) intact
        data[n * page:(n + 1) * page] = bytes([(n * 37 + i) % 251 for i in range(page)])
    log_db.write_bytes(bytes(data))
    for args in (["runs"], ["report", run_id], ["run", "--resume", run_id], ["export", run_id]):
        line = _one_line(run_cli(*args), str(log_db))
        assert "damaged" in line and ".recover" in line, line


@pytest.mark.parametrize("where", ["/proc/sembench-probe.db", "/proc/sembench-probe/log.db", "/sys/sembench-probe.db"])
def test_proc_and_sys_paths_are_one_line(where: str) -> None:
    line = _one_line(run_cli("--db", where, "runs"), where)
    assert "--db" in line


def test_a_path_below_a_regular_file_is_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("hello")
    line = _one_line(run_cli("--db", str(plain / "log.db"), "runs"), "notes.txt/log.db")
    assert "is a file, not a folder" in line


def test_a_folder_is_not_a_database_file(tmp_path: Path) -> None:
    _one_line(run_cli("--db", str(tmp_path), "runs"), "is a directory")


def _unshare_works() -> bool:
    if not shutil.which("unshare") or sys.platform != "linux":
        return False
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="needs a private mount namespace (unshare -m, root)")
def test_a_new_file_on_a_read_only_mount_is_one_line(tmp_path: Path) -> None:
    mount = tmp_path / "ro"
    mount.mkdir()
    script = (f"mount -t tmpfs -o ro tmpfs {mount} && "
              f"exec {sys.executable} -m core --db {mount}/log.db runs")
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert f"{mount}/log.db" in lines[0] and "read-only" in lines[0], lines[0]


def test_a_lock_held_by_another_writer_at_start_waits_then_is_one_line(toy, log_db, monkeypatch) -> None:
    import core.store
    import core.store.snapshots

    write_snapshot(log_db, toy, "s", 3)
    monkeypatch.setattr(core.store.snapshots, "LOCK_WAIT_S", 0.5, raising=False)
    faults = getattr(core.store, "faults", None)
    if faults is not None:
        monkeypatch.setattr(faults, "LOCK_WAIT_S", 0.5)
    holder = sqlite3.connect(log_db, timeout=0)
    holder.execute("begin exclusive")  # another process writing (a run, a migration) and not letting go
    try:
        line = _one_line(run_cli("run", "--snapshot", "s", "--solver", "oracle"), str(log_db))
    finally:
        holder.rollback()
        holder.close()
    assert "locked by another process" in line and "try again" in line
    assert run_cli("run", "--snapshot", "s", "--solver", "oracle").exit_code == 0, "fine once it is released"


def test_a_lock_on_a_new_database_is_one_line(tmp_path: Path, monkeypatch) -> None:
    import core.store.snapshots

    monkeypatch.setattr(core.store.snapshots, "LOCK_WAIT_S", 0.3, raising=False)
    db = tmp_path / "fresh.db"
    holder = sqlite3.connect(db, timeout=0)
    holder.execute("create table t (x)")
    holder.execute("begin exclusive")
    try:
        _one_line(run_cli("--db", str(db), "runs"), "fresh.db", "locked")
    finally:
        holder.rollback()
        holder.close()


def test_server_run_on_a_locked_database_names_it_too(toy, log_db, server, model_env, monkeypatch) -> None:
    # the same with a model solver: nothing is asked of the server when the run cannot be recorded
    instances = write_snapshot(log_db, toy, "s", 3)
    server.reply = oracle_replies(toy, instances)
    import core.store.snapshots

    monkeypatch.setattr(core.store.snapshots, "LOCK_WAIT_S", 0.3, raising=False)
    holder = sqlite3.connect(log_db, timeout=0)
    holder.execute("begin exclusive")
    try:
        _one_line(run_cli("run", "--snapshot", "s", "--solver", "openai:m"), "locked")
    finally:
        holder.rollback()
        holder.close()
