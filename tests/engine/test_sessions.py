"""Human-baseline sessions are runs (solver human:NAME): seeded stratified samples, answers recorded as
they come, resumable, reported and compared like any run."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from core import sessions
from core.attempts import HumanTiming
from core.cli import cli
from core.errors import UserError
from core.family import get_family
from core.store import LogStore, Workspace


def _snapshot(tmp_path, n: int = 16) -> list:
    fam = get_family("membership")
    insts = list(fam.generate(fam.resolve_params("pag-demo"), 0, n))
    path = tmp_path / "inst.jsonl"
    path.write_text("".join(json.dumps(i.to_json_dict()) + "\n" for i in insts))
    result = CliRunner().invoke(cli, ["snapshot", "import", str(path), "--name", "mine", "--family", "membership"])
    assert result.exit_code == 0, result.output
    return insts


def test_samples_are_seeded_and_stratified() -> None:
    rows = [(f"i{k}", {"depth": k % 4, "n": k}) for k in range(40)]
    first = sessions.sample_ids(rows, 8, seed=3, stratify="depth")
    assert first == sessions.sample_ids(rows, 8, seed=3, stratify="depth")
    assert first != sessions.sample_ids(rows, 8, seed=4, stratify="depth")
    by_depth = Counter(int(iid[1:]) % 4 for iid in first)
    assert set(by_depth.values()) == {2}  # 40 rows, 10 per depth: 8 drawn, 2 per depth
    assert len(set(sessions.sample_ids(rows, 100, seed=1))) == 40  # never more than there are
    with pytest.raises(UserError):
        sessions.sample_ids(rows, 0, seed=1)


def test_a_session_records_resumes_and_reports(tmp_path, log_db) -> None:
    insts = _snapshot(tmp_path, 6)
    fam = get_family("membership")
    store = LogStore(log_db)
    ids = [i.id for i in insts[:5]]
    run_id = sessions.start_session(store, "mine", fam, sessions.SessionPlan(person="Ada  L", instance_ids=ids))
    state = sessions.load_session(store, run_id)
    assert state.plan.person == "Ada L" and state.next_id == ids[0] and state.total == 5
    by_id = {i.id: i for i in insts}
    sessions.record_answer(store, state, fam, by_id[ids[0]], fam.oracle_response(by_id[ids[0]]), 12.5)
    sessions.record_skip(store, state, fam, by_id[ids[1]], 3.0)
    store.close()
    # quit and come back: the session goes on where it stopped
    store = LogStore(log_db)
    state = sessions.load_session(store, run_id)
    assert state.done == 2 and state.next_id == ids[2] and state.answered[ids[1]]["skipped"]
    with pytest.raises(UserError, match="answered already"):
        sessions.record_answer(store, state, fam, by_id[ids[0]], "True", 1.0)
    for k, iid in enumerate(ids[2:]):
        truth = fam.oracle_response(by_id[iid])
        wrong = "False" if "True" in truth else "True"
        sessions.record_answer(store, state, fam, by_id[iid], truth if k else wrong, 10.0 + k, revealed=k == 2)
    assert state.finished and store.get_run(run_id)["status"] == "finished"
    summary = sessions.summary(state)
    assert summary["answered"] == 5 and summary["correct"] == 3 and summary["skipped"] == 1
    assert summary["mean_time_s"] == pytest.approx((12.5 + 3.0 + 10 + 11 + 12) / 5)
    revealed = [a for a in store.attempts(run_id=run_id) if '"revealed"' in (a["usage"] or "")]
    assert [a["instance_id"] for a in revealed] == [ids[4]]
    store.close()
    report = CliRunner().invoke(cli, ["report", run_id, "--format", "json"])
    assert report.exit_code == 0, report.output
    data = json.loads(report.output)
    assert data["run"]["solver"] == "human:Ada L" and data["counts"]["attempts"] == 5
    assert data["counts"]["timed"] == 5
    assert data["counts"]["mean_human_time_s"] == pytest.approx((12.5 + 3.0 + 10 + 11 + 12) / 5)
    counts = data["counts"]
    assert counts["median_human_time_s"] == 11.0  # of 3.0, 10, 11, 12, 12.5
    assert counts["median_human_time_s_lo"] <= 11.0 <= counts["median_human_time_s_hi"]
    assert counts["median_human_time_s_lo"] < counts["median_human_time_s_hi"]
    table = CliRunner().invoke(cli, ["report", run_id], env={"COLUMNS": "240"})
    assert "a person's time per instance (shown to sent): median 11.0 s (95% interval " in table.output
    assert "mean 9.7 s, total 48.5 s over 5" in table.output
    resume = CliRunner().invoke(cli, ["run", "--resume", run_id])
    assert resume.exit_code == 2 and "human session" in resume.output
    listed = sessions.sessions(Workspace(log_db).log)
    assert [r["id"] for r in listed] == [run_id]


def test_an_export_says_who_answered_how_long_and_what_was_revealed(tmp_path, log_db) -> None:
    """`sembench export RUN`: per attempt the person, the instance, the answer, the verdict, the time from
    the problem shown to the answer sent, the time to the first keystroke, the pauses, and what was
    revealed (the answer; hint features by name)."""
    insts = _snapshot(tmp_path, 3)
    fam = get_family("membership")
    store = LogStore(log_db)
    ids = [i.id for i in insts]
    run_id = sessions.start_session(store, "mine", fam, sessions.SessionPlan(person="Ada", instance_ids=ids))
    state = sessions.load_session(store, run_id)
    clock = HumanTiming(active_s=42.0, first_key_s=30.5, pauses=2, paused_s=100.0)
    sessions.record_answer(store, state, fam, insts[0], fam.oracle_response(insts[0]), clock,
                           hints=["depth"])
    sessions.record_answer(store, state, fam, insts[1], "True", 7.0, revealed=True)
    sessions.record_skip(store, state, fam, insts[2], HumanTiming(active_s=3.0, first_key_s=None))
    store.close()
    out = CliRunner().invoke(cli, ["export", run_id])
    assert out.exit_code == 0, out.output
    rows = {r["instance_id"]: r for r in map(json.loads, out.output.splitlines())}
    first = rows[ids[0]]
    assert first["person"] == "Ada" and first["correct"] is True and first["answer"]["ok"]
    assert first["verdict"]["correct"] is True
    assert (first["time_shown_to_sent_s"], first["time_to_first_key_s"], first["pauses"], first["paused_s"]) == \
        (42.0, 30.5, 2, 100.0)
    assert first["revealed"] is False and first["hints_revealed"] == ["depth"]
    assert rows[ids[1]]["revealed"] is True and rows[ids[1]]["time_shown_to_sent_s"] == 7.0
    assert rows[ids[1]]["time_to_first_key_s"] is None and rows[ids[1]]["hints_revealed"] == []
    assert rows[ids[2]]["error_kind"] == "skipped" and rows[ids[2]]["time_shown_to_sent_s"] == 3.0
    # the report's median time to the first keystroke is over the answers that have one
    report = json.loads(CliRunner().invoke(cli, ["report", run_id, "--format", "json"]).output)
    assert report["counts"]["median_first_key_s"] == 30.5 and report["counts"]["median_human_time_s"] == 7.0
