"""A killed `sembench import-answers` leaves nothing half-done, and a run an import left partial (as an
earlier release's killed import did: attempts were written one transaction at a time) is completed by a
resume, from the file the answers came from."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from runs_support import cli_command, run_cli, write_snapshot

from core.store import LogStore


def _answers(family, instances, path: Path, samples: int) -> int:
    lines = []
    for k in range(samples):
        for n, inst in enumerate(instances):
            response = family.oracle_response(inst) if (n + k) % 3 else "an answer that extracts to nothing"
            lines.append(json.dumps({"id": inst.id, "sample": k, "response": response}))
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def _attempts(db: Path, run_id: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return sorted(conn.execute("select instance_id, sample, correct, status, error from attempts "
                                   "where run_id = ?", [run_id]).fetchall())


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_a_partly_imported_run_is_completed_by_a_resume_from_its_file(family, log_db, tmp_path) -> None:
    instances = write_snapshot(log_db, family, "s", 12)
    answers = tmp_path / "answers.jsonl"
    count = _answers(family, instances, answers, 2)
    imported = run_cli("import-answers", "--snapshot", "s", "--answers", str(answers), "--solver-name", "ext1",
                       "--format", "json")
    assert imported.exit_code == 0, imported.stderr
    run_id = json.loads(imported.stdout)["run"]
    whole = _attempts(log_db, run_id)
    assert len(whole) == count
    # What a killed import left: its run "running" under a process that is gone, 5 of its attempts written.
    with sqlite3.connect(log_db) as conn:
        conn.execute("delete from attempts where run_id = ? and id not in (select id from attempts where run_id = ? "
                     "order by id limit 5)", [run_id, run_id])
        conn.execute("update runs set status = 'running', finished = null, pid = ?, heartbeat = "
                     "'2000-01-01T00:00:00.000+00:00' where id = ?", [_dead_pid(), run_id])
    resumed = run_cli("run", "--resume", run_id, "--format", "json")
    assert resumed.exit_code == 0, resumed.stderr
    assert _attempts(log_db, run_id) == whole
    assert LogStore(log_db).get_run(run_id)["status"] == "finished"
    report = json.loads(run_cli("report", run_id, "--format", "json").stdout)
    assert report["counts"]["attempts"] == count and report["counts"]["missing"] == 0

    # The file changed since (or is gone): one line saying so and how to import it again; nothing written.
    with sqlite3.connect(log_db) as conn:
        conn.execute("delete from attempts where run_id = ? and sample = 1", [run_id])
    answers.write_text(answers.read_text().replace("extracts to nothing", "extracts to nothing at all"))
    changed = run_cli("run", "--resume", run_id)
    assert changed.exit_code == 2 and "has changed since" in changed.stderr, changed.stderr
    assert "sembench import-answers --snapshot s" in changed.stderr and len(changed.stderr.strip().splitlines()) == 1
    answers.unlink()
    gone = run_cli("run", "--resume", run_id)
    assert gone.exit_code == 2 and "not there any more" in gone.stderr, gone.stderr
    assert len(_attempts(log_db, run_id)) == count - len(instances)


def test_a_killed_import_leaves_nothing_to_mend_or_a_run_a_resume_completes(family, log_db, tmp_path) -> None:
    """`kill -9` as soon as the import's run shows in the database: the run is there whole, or it is resumed
    to the whole (an import that wrote its attempts one by one was caught halfway here)."""
    instances = write_snapshot(log_db, family, "s", 100)
    answers = tmp_path / "answers.jsonl"
    count = _answers(family, instances, answers, 30)
    env = {**os.environ, "SEMBENCH_DB": str(log_db)}
    proc = subprocess.Popen(cli_command("import-answers", "--snapshot", "s", "--answers", str(answers),
                                        "--solver-name", "ext1"), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    runs: list[str] = []
    while not runs and proc.poll() is None:
        assert time.monotonic() < deadline
        with sqlite3.connect(f"file:{log_db}?mode=ro", uri=True, timeout=5) as conn:
            runs = [row[0] for row in conn.execute("select id from runs")]
        time.sleep(0.002)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    with sqlite3.connect(log_db) as conn:
        runs = [row[0] for row in conn.execute("select id from runs")]
    assert len(runs) == 1, runs
    resumed = run_cli("run", "--resume", runs[0], "--format", "json")
    assert resumed.exit_code == 0, resumed.stderr
    assert len(_attempts(log_db, runs[0])) == count
    assert LogStore(log_db).get_run(runs[0])["status"] == "finished"
