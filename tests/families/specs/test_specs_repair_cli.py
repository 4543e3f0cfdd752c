"""Self-repair rounds are linked attempts; `sembench verify specs` prints SR, FR, unknown rate and CR with
95% intervals; `sembench specs-repair` runs the loop against the baseline."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from specs_helpers import corpus_instance, fenced

from core.families.specs.repair import self_repair

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


def test_repair_cli_against_the_baseline(tmp_path, log_db):
    insts = [corpus_instance("add_three")]
    _write(tmp_path / "i.jsonl", [i.to_json_dict() for i in insts])
    done = subprocess.run([sys.executable, "-m", "core", "specs-repair", "--instances", str(tmp_path / "i.jsonl"),
                           "--rounds", "1", "--out", str(tmp_path / "r.jsonl")], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["instances"] == 1 and len(summary["success_rate_by_round"]) == 2
    rounds = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert rounds[0]["round"] == 0 and rounds[0]["status"] in ("success", "failure", "unknown")
