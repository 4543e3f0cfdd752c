"""Completeness only where asked: `verify`, `run` and `report` take `--completeness {on,off}`. A verdict
checked with it off has no completeness (the summary counts it in `cr_missing`); `report` (on, the
default) completes a run made with it off and stores what it adds, `report --completeness off` reports
what is recorded. The contract is max_of_three's reference, whose mutants all break it at run time
(the completeness costs no WP run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from specs_helpers import corpus_instance

from core.cli import cli
from core.family import get_family
from core.instance import Snapshot
from core.store import LogStore

pytestmark = pytest.mark.framac


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    inst = corpus_instance("max_of_three")
    instances, answers = tmp_path / "instances.jsonl", tmp_path / "answers.jsonl"
    instances.write_text(inst.model_dump_json() + "\n")
    answers.write_text(json.dumps({"id": inst.id, "response": get_family("specs").oracle_response(inst)}) + "\n")
    return instances, answers


def _verify(instances: Path, answers: Path, out: Path, *flag: str) -> tuple[dict, dict]:
    result = run_cli("verify", "specs", "--instances", str(instances), "--answers", str(answers), "--out", str(out),
                     "--format", "json", *flag)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text().splitlines()[0]), json.loads(result.stdout)


def test_verify_computes_completeness_only_when_asked(tmp_path, log_db, session_tool_cache_everywhere):
    instances, answers = _inputs(tmp_path)
    verdict, summary = _verify(instances, answers, tmp_path / "off.jsonl", "--completeness", "off")
    assert verdict["status"] == "success" and "completeness" not in verdict["details"]
    assert summary["overall"]["cr_missing"] == 1 and summary["overall"]["cr"] is None
    verdict, summary = _verify(instances, answers, tmp_path / "on.jsonl", "--completeness", "on")
    comp = verdict["details"]["completeness"]
    assert comp["cr"] == 1.0 and comp["evaluated"] >= 3
    assert all(row["killed_by"] == "test" and row["input"] for row in comp["rows"]) and comp["wp_runs"] == 0
    assert summary["overall"]["cr_missing"] == 0 and summary["overall"]["cr"] == 1.0


def _write_snapshot(db: Path) -> None:
    inst = corpus_instance("max_of_three")
    store = LogStore(db)
    try:
        store.write_snapshot(Snapshot(name="s", family="specs", params={}, seed=0, count=1), [inst])
    finally:
        store.close()


def test_a_run_made_without_completeness_gets_it_from_report(log_db, session_tool_cache_everywhere):
    _write_snapshot(log_db)
    ran = run_cli("run", "--snapshot", "s", "--solver", "oracle", "--completeness", "off", "--format", "json")
    assert ran.exit_code == 0, ran.output
    run_id = json.loads(ran.stdout)["run"]
    store = LogStore(log_db)
    try:
        assert store.get_run(run_id)["options"]["completeness"] is False  # a resume checks the rest alike
        recorded = json.loads(store.attempts(run_id=run_id)[0]["verdict"])
        assert "completeness" not in recorded["details"]
    finally:
        store.close()
    as_recorded = run_cli("report", run_id, "--completeness", "off", "--format", "json")
    assert as_recorded.exit_code == 0, as_recorded.output
    overall = json.loads(as_recorded.stdout)["metrics"]["overall"]
    assert overall["cr_missing"] == 1 and overall["cr"] is None
    completed = run_cli("report", run_id, "--format", "json")
    assert completed.exit_code == 0, completed.output
    overall = json.loads(completed.stdout)["metrics"]["overall"]
    assert overall["cr_missing"] == 0 and overall["cr"] == 1.0
    store = LogStore(log_db)
    try:
        stored = json.loads(store.attempts(run_id=run_id)[0]["verdict"])["details"]["completeness"]
        assert stored["cr"] == 1.0 and stored["killed_by_test"] == stored["evaluated"]
    finally:
        store.close()
    # stored once: a report with completeness off now shows it too
    again = json.loads(run_cli("report", run_id, "--completeness", "off", "--format", "json").stdout)
    assert again["metrics"]["overall"]["cr"] == 1.0
