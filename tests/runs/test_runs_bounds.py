"""Every count, size and index has a bound, and flags are validated up front, each
with a one-line error and exit 2; SIGINT/SIGTERM stop a run at once in every phase, loading and planning
included."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runs_support import REPO, run_cli, write_snapshot

from core.runner import plan

HUGE = "1000000000000"


def _one_line_error(result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


RUN = ["run", "--snapshot", "s", "--solver", "oracle"]


@pytest.mark.parametrize(("extra", "fragment"), [
    (["--samples", HUGE], "--samples"),
    (["--concurrency", "1000000000"], "--concurrency"),
    (["--limit", "1" + "0" * 30], "--limit"),
    (["--budget", "nan"], "--budget"),
    (["--budget", "0"], "--budget"),
    (["--budget", "-1"], "--budget"),
    (["--budget", "inf"], "--budget"),
    (["--temperature", "nan"], "--temperature"),
    (["--temperature", "inf"], "--temperature"),
    (["--temperature", "-0.5"], "--temperature"),
    (["--top-p", "1.5"], "--top-p"),
    (["--max-tokens", "1" + "0" * 30], "--max-tokens"),
    (["--seed", "1" + "0" * 30], "--seed"),
    (["--thinking-budget", HUGE], "--thinking-budget"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_run_flags_out_of_bounds_are_one_line_errors(toy, log_db, extra: list[str], fragment: str) -> None:
    write_snapshot(log_db, toy, "s", 2)
    _one_line_error(run_cli(*RUN, *extra), fragment)
    assert LogStore_runs(log_db) == 0, "refused before anything was written"


def LogStore_runs(db: Path) -> int:  # noqa: N802 - reads like the table it counts
    with sqlite3.connect(db) as conn:
        return conn.execute("select count(*) from runs").fetchone()[0]


@pytest.mark.parametrize("budget", ["nan", "0", "-1", "inf"])
def test_solve_budget_is_validated(toy, log_db, tmp_path: Path, budget: str) -> None:
    write_snapshot(log_db, toy, "s", 2)
    inst = tmp_path / "i.jsonl"
    inst.write_text(run_cli("snapshot", "export", "s").stdout, encoding="utf-8")
    _one_line_error(run_cli("solve", "toy", "--instances", str(inst), "--solver", "baseline", "--budget", budget),
                    "--budget")


def test_a_given_budget_is_used_not_replaced(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 2)
    result = run_cli(*RUN, "--budget", "0.25", "--format", "json")
    assert result.exit_code == 0
    from core.store import LogStore

    run = LogStore(log_db).get_run(json.loads(result.stdout)["run"])
    assert run["options"]["budget_s"] == 0.25


@pytest.mark.parametrize("args", [
    ["generate", "cascade", "--preset", "pbebench-lite", "--seed", "0", "--param", "input_len_max=1000000000"],
    ["generate", "cascade", "--seed", "0", "--param", "lhs_len_max=1000000", "--param", "lhs_len_min=999999"],
    ["generate", "cascade", "--seed", "0", "--param", "patience=1000000000000"],
    ["generate", "cascade", "--seed", "0", "--count", HUGE],
    ["generate", "cascade", "--seed", "1" + "0" * 30],
    ["generate", "membership", "--seed", "0", "--param", "depth=1000000000"],
], ids=["input_len_max", "lhs_len", "patience", "count", "seed", "membership-depth"])
def test_generation_sizes_are_bounded(args: list[str]) -> None:
    _one_line_error(run_cli(*args))


@pytest.mark.parametrize("sample", [1000000000, 10**30, -1])
def test_imported_sample_indices_are_bounded(toy, log_db, tmp_path: Path, sample: int) -> None:
    instances = write_snapshot(log_db, toy, "s", 2)
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": instances[0].id, "response": "1", "sample": sample}) + "\n", encoding="utf-8")
    _one_line_error(run_cli("import-answers", "--snapshot", "s", "--answers", str(answers), "--solver-name", "x"),
                    "a.jsonl:1:", "field 'sample'")
    assert LogStore_runs(log_db) == 0


def test_endpoint_settings_are_bounded(toy, log_db, tmp_path: Path, monkeypatch) -> None:
    write_snapshot(log_db, toy, "s", 2)
    config = tmp_path / "c.toml"
    config.write_text("[openai]\nbase_url = \"http://127.0.0.1:9/v1\"\nmax_concurrency = 1000000000\n")
    monkeypatch.setenv("SEMBENCH_CONFIG", str(config))
    _one_line_error(run_cli("run", "--snapshot", "s", "--solver", "openai:m"), "max_concurrency")


def test_a_plan_costs_memory_for_what_is_recorded_not_for_instances_times_samples(toy, log_db) -> None:
    from core.store import LogStore

    instances = write_snapshot(log_db, toy, "s", 3)
    todo, stats = plan(LogStore(log_db), "run-none", instances, 1000)
    assert len(todo) == 3000 and stats.total == 3000
    assert not isinstance(todo, list), "produced lazily"
    first = next(iter(todo))
    assert first == (instances[0], 0)


# ---- signals ----------------------------------------------------------------------------------------
SLOW_BOOT = """
import sys, time
sys.path[:0] = [{repo!r}, {here!r}]
import runs_support
from core.family import _REGISTRY

class SlowToy(runs_support.ToyFamily):
    def parse_instance(self, data):
        with open({counter!r}, "a") as f:
            f.write("x")
        time.sleep(0.05)  # a snapshot that takes long to load (a big one, a slow disk)
        return super().parse_instance(data)

_REGISTRY["toy"] = SlowToy()
from core.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_while_loading_stops_the_run_at_once(toy, log_db, tmp_path: Path, sig: int) -> None:
    count = 400  # 20 s of loading if nothing stops it
    write_snapshot(log_db, toy, "s", count)
    counter = tmp_path / "parsed"
    counter.write_text("")
    boot = SLOW_BOOT.format(repo=str(REPO), here=str(Path(__file__).parent), counter=str(counter))
    env = {**os.environ, "SEMBENCH_DB": str(log_db)}
    proc = subprocess.Popen([sys.executable, "-c", boot, "run", "--snapshot", "s", "--solver", "oracle"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(counter.read_text()) < 5:  # loading has begun
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.01)
    finally:
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert len(counter.read_text()) < count / 2, "the load stopped at the signal, not at its end"
    assert LogStore_runs(log_db) == 0, "interrupted before the run was created: nothing recorded"


def test_a_run_recorded_with_out_of_range_options_is_a_one_line_error_on_resume(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 2)
    run_id = json.loads(run_cli(*RUN, "--format", "json").stdout)["run"]
    with sqlite3.connect(log_db) as conn:  # e.g. recorded by an older release without the bounds
        conn.execute("update runs set samples = 5000, status = 'interrupted' where id = ?", [run_id])
    _one_line_error(run_cli("run", "--resume", run_id), run_id, "samples")


def test_solve_refuses_bad_sampling_options_whatever_the_solver(tmp_path: Path) -> None:
    """`solve` validates the sampling flags as `run` does, for a local solver too (which ignores them):
    a 17th stop sequence was accepted without a word there."""
    instances = tmp_path / "i.jsonl"
    made = run_cli("generate", "cascade", "--count", "2", "--seed", "1")
    assert made.exit_code == 0, made.output
    instances.write_text(made.stdout)
    stops = [arg for n in range(17) for arg in ("--stop", f"s{n}")]
    base = ["solve", "cascade", "--instances", str(instances), "--solver", "baseline"]
    _one_line_error(run_cli(*base, *stops), "--stop")
    assert run_cli(*base, *stops[:32]).exit_code == 0  # 16 are within the bound
