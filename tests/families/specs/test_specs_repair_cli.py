"""Self-repair rounds are linked attempts; `sembench verify specs` prints SR, FR, unknown rate and CR with
95% intervals; `sembench specs-repair` runs the loop against the baseline."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from specs_helpers import corpus_instance, fenced

from core.families.specs.prompt import sections
from core.families.specs.repair import self_repair
from core.store import LogStore
from tests.models.fakeserver import FakeServer

pytestmark = pytest.mark.framac


def test_repair_feeds_the_failure_back_until_it_verifies():
    inst = corpus_instance("max_of_two")
    wrong = inst.reference().replace("\\result >= b", "\\result > b")
    replies = iter([fenced(wrong), fenced(inst.reference())])
    prompts = []

    def solver(prompt):
        prompts.append(prompt)
        return next(replies)

    rounds = self_repair(inst, solver, rounds=3)
    assert [r.round for r in rounds] == [0, 1] and rounds[1].previous == 0
    assert rounds[0].status == "failure" and rounds[0].category == "PostconditionFailure" and rounds[1].correct
    repair_text = prompts[1].messages[1]["content"]
    assert "PostconditionFailure" in repair_text and "counterexample" in repair_text and wrong.strip() in repair_text


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_verify_cli_prints_the_rates_with_intervals(tmp_path, log_db, monkeypatch):
    monkeypatch.setenv("SEMBENCH_SPECS_MUTANTS", "3")
    insts = [corpus_instance(n) for n in ("max_of_two", "sign_of", "is_even")]
    _write(tmp_path / "i.jsonl", [i.to_json_dict() for i in insts])
    wrong = insts[2].reference().replace("n % 2 == 0", "n % 2 == 1")
    _write(tmp_path / "a.jsonl", [{"id": insts[0].id, "response": fenced(insts[0].reference())},
                                  {"id": insts[1].id, "response": "no idea"},
                                  {"id": insts[2].id, "response": fenced(wrong)}])
    done = subprocess.run([sys.executable, "-m", "core", "verify", "specs", "--instances", str(tmp_path / "i.jsonl"),
                           "--answers", str(tmp_path / "a.jsonl"), "--format", "json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    overall = json.loads(done.stdout)["metrics"]["overall"] if "metrics" in json.loads(done.stdout) \
        else json.loads(done.stdout)["overall"]
    assert overall["sr"] == pytest.approx(1 / 3) and overall["fr"] == pytest.approx(2 / 3)
    assert overall["unknown_rate"] == 0.0
    assert overall["cr"] is not None and overall["cr_lo"] <= overall["cr"] <= overall["cr_hi"]
    assert overall["sr_lo"] < overall["sr"] < overall["sr_hi"]


def _import(tmp_path, insts, name):
    _write(tmp_path / f"{name}.jsonl", [i.to_json_dict() for i in insts])
    done = subprocess.run([sys.executable, "-m", "core", "snapshot", "import", str(tmp_path / f"{name}.jsonl"),
                           "--name", name, "--family", "specs"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def _repair(*args, env=None):
    return subprocess.run([sys.executable, "-m", "core", "specs-repair", *args], capture_output=True, text=True,
                          timeout=600, env=env)


def _rounds(log_db, run_id):
    store = LogStore(log_db)
    try:
        return store.get_run(run_id), store.attempts(run_id=run_id)
    finally:
        store.close()


def test_repair_cli_against_the_baseline(tmp_path, log_db):
    _import(tmp_path, [corpus_instance("add_three")], "mine")
    done = _repair("--snapshot", "mine", "--rounds", "1")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["instances"] == 1 and len(summary["success_rate_by_round"]) == 2
    run, rows = _rounds(log_db, summary["run"])
    assert run["status"] == "finished" and run["family"] == "specs" and run["solver"] == "baseline"
    assert len(rows) == summary["attempts"] >= 1 and rows[0]["sample"] == 0
    assert json.loads(rows[0]["usage"])["repair"]["previous_attempt"] is None
    # its samples are repair rounds: `sembench run --resume` must not fill them with plain attempts
    resumed = subprocess.run([sys.executable, "-m", "core", "run", "--resume", summary["run"]], capture_output=True,
                             text=True, timeout=600)
    assert resumed.returncode == 2 and "specs-repair" in resumed.stderr and "Traceback" not in resumed.stderr
    assert len(_rounds(log_db, summary["run"])[1]) == len(rows)


def test_repair_rounds_from_a_model_are_linked_attempts(tmp_path, log_db):
    """Against a real HTTP server: a wrong contract, then (asked with the failure) the right one."""
    inst = corpus_instance("max_of_two")
    wrong = inst.reference().replace("\\result >= b", "\\result > b")
    assert wrong != inst.reference()
    _import(tmp_path, [inst], "mine")
    repair_system = sections()["repair_system"]
    with FakeServer() as srv:
        srv.reply = lambda req: fenced(inst.reference() if req.messages[0]["content"] == repair_system else wrong)
        env = {**os.environ, "OPENAI_BASE_URL": srv.base_url("openai"), "OPENAI_API_KEY": "sk-test-0123456789abcdef"}
        done = _repair("--snapshot", "mine", "--solver", "openai:m", "--rounds", "3", env=env)
        assert done.returncode == 0, done.stderr
        asked = [r.messages for r in srv.requests if r.messages]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["attempts"] == 2 and summary["success_rate_by_round"] == [0.0, 1.0, 1.0, 1.0]
    assert len(asked) == 2 and "PostconditionFailure" in asked[1][-1]["content"]
    run, rows = _rounds(log_db, summary["run"])
    assert run["status"] == "finished" and [r["sample"] for r in rows] == [0, 1]
    assert [r["correct"] for r in rows] == [0, 1] and rows[0]["status"] == "failure"
    links = [json.loads(r["usage"])["repair"] for r in rows]
    assert links[0] == {"round": 0, "previous_attempt": None, "category": "PostconditionFailure"}
    assert links[1] == {"round": 1, "previous_attempt": rows[0]["id"], "category": None}
    assert json.loads(rows[1]["prompt"])["style"] == "repair"
    # solved at round 1: rounds 2 and 3 were not needed, and are not counted as missing
    report = subprocess.run([sys.executable, "-m", "core", "report", summary["run"], "--format", "json"],
                            capture_output=True, text=True, timeout=600)
    assert report.returncode == 0, report.stderr
    counts = json.loads(report.stdout)["counts"]
    assert (counts["attempts"], counts["expected"], counts["missing"], counts["not_needed"]) == (2, 4, 0, 2)
    table = subprocess.run([sys.executable, "-m", "core", "report", summary["run"]], capture_output=True, text=True,
                           timeout=600)
    assert "(missing 0, rounds not needed 2)" in table.stdout, table.stdout


def test_repair_refuses_a_snapshot_of_another_family(log_db):
    done = _repair("--snapshot", "pag-demo", "--limit", "1")
    assert done.returncode == 2 and "specs" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
