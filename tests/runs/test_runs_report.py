"""`sembench report`: family metrics overall and per feature, pass@k, errors, comparisons, plots."""

from __future__ import annotations

import json
import sqlite3

import pytest
from runs_support import oracle_replies, run_cli, write_snapshot

from core.errors import UserError
from core.family import all_families
from core.report import compare, load_run_data, pass_at_k
from core.runner import RunConfig, run_sync
from core.store import Workspace
from tests.models.fakeserver import Reply


def _run(db, solver: str, snapshot: str = "s", **options) -> str:
    return run_sync(Workspace(db), RunConfig(snapshot=snapshot, solver=solver, **options)).run_id


def _report(*args: str) -> dict:
    result = run_cli("report", *args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_pass_at_k_estimator() -> None:
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3)
    assert pass_at_k(3, 1, 2) == pytest.approx(2 / 3)
    assert pass_at_k(3, 1, 3) == 1.0
    assert pass_at_k(5, 0, 2) == 0.0 and pass_at_k(5, 5, 1) == 1.0
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_report_json_has_family_metrics_features_and_counts(family, log_db) -> None:
    write_snapshot(log_db, family, "s", 8)
    run_id = _run(log_db, "oracle")
    report = _report(run_id)
    assert report["run"]["id"] == run_id and report["run"]["family"] == family.id
    assert report["counts"]["attempts"] == 8 and report["counts"]["missing"] == 0
    assert report["counts"]["correct"] == 8 and report["counts"]["errors"] == 0
    metrics = report["metrics"]
    assert metrics["n"] == 8
    rows = [(i, family.check(i, family.oracle_response(i))[1]) for i in load_run_data(Workspace(log_db), run_id)
            .instances.values()]
    expected = family.summarize(rows)
    assert {k: metrics["overall"][k] for k in expected} == pytest.approx(expected)
    assert set(metrics["by"]) == set(family.features)
    for groups in metrics["by"].values():
        assert sum(g["n"] for g in groups.values()) == 8 and all(g["errors"] == 0 for g in groups.values())
    assert report["pass_at_k"] == {"1": {"value": 1.0, "n": 8}}


def test_report_table_names_metrics_features_and_pass_at_k(family, log_db) -> None:
    write_snapshot(log_db, family, "s", 6)
    run_id = _run(log_db, "baseline")
    result = run_cli("report", run_id)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert run_id in out and "pass@k" in out
    for feature in family.features:
        assert f"by {feature}" in out
    first_metric = next(iter(family.summarize([])))
    assert first_metric in out


def test_pass_at_k_with_three_samples(toy, log_db, server, model_env) -> None:
    instances = write_snapshot(log_db, toy, "s", 6)
    right = oracle_replies(toy, instances)
    # Sample k is sent with seed 10 + k: only sample 2 (seed 12) is answered correctly.
    server.reply = lambda req: right(req) if req.json["seed"] % 3 == 0 else Reply(text="no idea")
    run_id = _run(log_db, "openai:m", samples=3, params={"seed": 10})
    report = _report(run_id)
    pk = report["pass_at_k"]
    assert pk["1"]["value"] == pytest.approx(1 / 3) and pk["2"]["value"] == pytest.approx(2 / 3)
    assert pk["3"]["value"] == 1.0 and pk["3"]["n"] == 6
    assert report["metrics"]["overall"]["accuracy"] == 0.0, "headline metrics are on sample 0"
    assert report["selected"]["accuracy"] == 1.0, "the family's selection picks the correct sample"


def test_errors_are_counted_per_feature_and_by_kind(toy, log_db, server, model_env) -> None:
    instances = write_snapshot(log_db, toy, "s", 4)
    server.reply = oracle_replies(toy, instances)
    server.fail_next(1, _malformed())
    run_id = _run(log_db, "openai:m", concurrency=1)
    report = _report(run_id)
    assert report["counts"]["errors"] == 1 and report["errors"]["by_kind"] == {"malformed": 1}
    assert report["metrics"]["overall"]["errors"] == 1 and report["metrics"]["overall"]["accuracy"] == 0.75
    assert sum(g["errors"] for g in report["metrics"]["by"]["parity"].values()) == 1
    table = run_cli("report", run_id).stdout
    assert "errors" in table and "malformed" in table


def _malformed():
    from tests.models.fakeserver import Fault

    return Fault.malformed()


def test_missing_verdict_is_verified_again(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 3)
    run_id = _run(log_db, "oracle")
    with sqlite3.connect(log_db) as conn:
        conn.execute("update attempts set verdict = null")
    data = load_run_data(Workspace(log_db), run_id)
    assert all(by[0].correct for by in data.verdicts.values()) and len(data.verdicts) == 3


def test_two_runs_side_by_side(family, log_db) -> None:
    write_snapshot(log_db, family, "s", 8)
    a, b = _run(log_db, "oracle"), _run(log_db, "baseline", limit=6)
    report = _report(a, b)
    assert [r["id"] for r in report["runs"]] == [a, b]
    assert report["same_instances"] and report["common_instances"] == 6
    assert report["metrics"][a]["n"] == report["metrics"][b]["n"] == 6
    assert sum(report["agreement"].values()) == 6
    assert report["agreement"].get(f"only {b}", 0) == 0, "the oracle is right wherever the baseline is"
    table = run_cli("report", a, b).stdout
    assert "comparison" in table and "Δ" in table and "6 shared instances" in table


def test_comparison_uses_the_family_hook_and_refuses_mixed_families(toy, log_db, monkeypatch) -> None:
    write_snapshot(log_db, toy, "s", 4)
    a, b = _run(log_db, "oracle"), _run(log_db, "baseline")
    seen: list[int] = []

    def compare_metrics(runs):
        seen.append(len(runs))
        return {"RS": 0.5}

    monkeypatch.setattr(toy, "compare_metrics", compare_metrics, raising=False)
    report = _report(a, b)
    assert report["family_comparison"] == {"RS": 0.5} and seen == [2]
    ws = Workspace(log_db)
    other = load_run_data(ws, b)
    other.family = type("Other", (), {"id": "other"})()
    with pytest.raises(UserError, match="different families"):
        compare([load_run_data(ws, a), other])


def test_plots_in_the_terminal_and_as_png(toy, log_db, tmp_path) -> None:
    write_snapshot(log_db, toy, "s", 10)
    a, b = _run(log_db, "oracle"), _run(log_db, "baseline")
    png = tmp_path / "plots" / "acc.png"
    result = run_cli("report", a, b, "--plot", "--png", str(png))
    assert result.exit_code == 0, result.stderr
    assert "accuracy by digits" in result.stdout and f"oracle {a}" in result.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    with_json = run_cli("report", a, "--format", "json", "--plot", "--feature", "parity")
    assert json.loads(with_json.stdout)["run"]["id"] == a, "stdout stays pure JSON"
    assert "accuracy by parity" in with_json.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["report", "run-nope"], "unknown run 'run-nope'"),
    (["report", "RUN", "--feature", "nope"], "unknown feature 'nope'"),
    (["report", "RUN", "--png", "/proc/forbidden/x.png"], "cannot write"),
])
def test_report_user_errors(toy, log_db, args: list[str], message: str) -> None:
    write_snapshot(log_db, toy, "s", 2)
    run_id = _run(log_db, "oracle")
    result = run_cli(*[run_id if a == "RUN" else a for a in args])
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize("family_id", sorted(all_families()))
def test_every_family_reports_and_plots(family_id: str, log_db, tmp_path, monkeypatch,
                                       session_tool_cache_everywhere) -> None:
    family = all_families()[family_id]
    # The verdicts are what is read here (the counts, the features, the plot): the tool runs (the specs
    # references' WP, GHC's checks) come from the session's cache, whichever test ran them first.
    # three instances: enough for a per-feature breakdown; specs verifies each with Frama-C's WP and its
    # run-time check, without the completeness check (a WP run per mutant: 81 s against 25 s here, for a
    # figure this test does not read; the CR and its interval are test_specs_repair_cli.py's)
    monkeypatch.setenv("SEMBENCH_SPECS_COMPLETENESS", "0")
    write_snapshot(log_db, family, "s", 3)
    run_id = _run(log_db, "oracle")
    report = _report(run_id)
    assert report["counts"]["correct"] == 3 and set(report["metrics"]["by"]) == set(family.features)
    png = tmp_path / "p.png"
    result = run_cli("report", run_id, "--plot", "--png", str(png))
    assert result.exit_code == 0 and f"accuracy by {family.features[0]}" in result.stdout
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_comparison_lists_pass_at_k_for_every_k_any_run_has(toy, log_db) -> None:
    write_snapshot(log_db, toy, "s", 4)
    one, three = _run(log_db, "oracle"), _run(log_db, "baseline", samples=3)
    report = _report(one, three)
    assert set(report["pass_at_k"][one]) == {"1"} and set(report["pass_at_k"][three]) == {"1", "2", "3"}
    table = run_cli("report", one, three).stdout
    rows = {line.split("│")[1].strip(): line for line in table.splitlines() if "pass@k=" in line}
    assert set(rows) == {"pass@k=1 (samples)", "pass@k=2 (samples)", "pass@k=3 (samples)"}
    assert "—" in rows["pass@k=3 (samples)"], "the one-sample run has no pass@3"
    assert "pass@1 " not in table, "never labelled like a family's own Pass@1 metric"


def test_terminal_plot_fits_the_terminal(monkeypatch) -> None:
    import os
    import shutil

    from core.plot import terminal_plot

    series = {"run a": [("1", 0.5, 2), ("2", 1.0, 3), ("3", 0.25, 4)]}

    def size(columns: int, lines: int) -> list[str]:
        monkeypatch.setattr(shutil, "get_terminal_size", lambda fallback=(0, 0): os.terminal_size((columns, lines)))
        text = terminal_plot(series, "depth", color=False)
        assert "accuracy by depth" in text
        return text.splitlines()

    narrow, wide = size(64, 20), size(110, 40)
    assert max(map(len, narrow)) <= 64 and len(narrow) <= 18
    assert max(map(len, wide)) > 64 and len(wide) > len(narrow), "a bigger terminal gets a bigger plot"
    explicit = terminal_plot(series, "depth", width=50, height=12, color=False).splitlines()
    assert (max(map(len, explicit)), len(explicit)) == (50, 12), "an explicit size wins (the TUI's panel)"


@pytest.mark.parametrize("runs", [1, 3])
def test_the_plot_legend_never_hides_full_accuracy(runs: int) -> None:
    # plotext draws the legend over the top left, where a run at accuracy 1.0 is.
    from core.plot import terminal_plot

    series = {f"run-{n}": [("1", 1.0, 3), ("2", 1.0, 3), ("3", 0.5, 2)] for n in range(runs)}
    lines = terminal_plot(series, "depth", width=80, height=24, color=False).splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("1.00"))
    assert all(i < top for i, line in enumerate(lines) if "run-" in line), "the legend sits above 1.00"
    assert lines[top][5] != "│" and lines[top][5] != " ", "the line at 1.00 starts at the left edge, uncovered"


def test_plot_of_a_run_without_attempts_says_no_data(toy, log_db) -> None:
    from core.family import get_family
    from core.runner import create_run

    write_snapshot(log_db, toy, "s", 2)
    store = Workspace(log_db).log
    run_id = create_run(store, RunConfig(snapshot="s", solver="oracle"), get_family("toy"), total=2)
    result = run_cli("report", run_id, "--plot")
    assert result.exit_code == 0, result.stderr
    assert "accuracy by digits: no data" in result.stdout


def _stop_at_env_faults(log_db, run_id: str, n: int) -> None:
    """Make a finished run look as if an error of the environment had stopped it at its first `n`
    attempts: those are not recorded, and env_faults names them with the cause."""
    ws = Workspace(log_db)
    hit = [row[0] for row in ws.log.db.execute(
        "select instance_id from attempts where run_id = ? order by id limit ?", [run_id, n])]
    with sqlite3.connect(log_db) as conn:  # as when the run stopped at them: no attempt recorded
        conn.execute(f"delete from attempts where run_id = ? and instance_id in ({', '.join('?' * len(hit))})",
                     [run_id, *hit])
    ws.log.record_env_faults(run_id, [(iid, 0, "'frama-c' is not installed") for iid in hit])


def test_environment_errors_are_counted_apart_until_a_resume_redoes_them(family, log_db) -> None:
    """Attempts an error of the environment stopped (kept by the runner in env_faults;
    tests/families/specs/test_specs_sandbox.py makes one with Frama-C missing) are counted apart in the
    report, the JSON and the Runs screen's head: not attempts, not errors, not missing; a resume redoes
    them and the count drops to 0."""
    from tui.screens.runs import report_head

    write_snapshot(log_db, family, "s", 4)
    run_id = _run(log_db, "oracle")
    _stop_at_env_faults(log_db, run_id, 2)
    counts = _report(run_id)["counts"]
    assert counts["env_errors"] == 2 and counts["env_cause"] == "'frama-c' is not installed"
    assert counts["attempts"] == 2 and counts["errors"] == 0 and counts["missing"] == 0
    table = run_cli("report", run_id)
    assert "environment errors: 2 (cause: 'frama-c' is not installed)" in " ".join(table.stdout.split())
    head = report_head({"id": run_id, "solver": "oracle", "snapshot": "s", "status": "interrupted"},
                       _report(run_id))
    assert "environment errors: 2" in head.plain
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="oracle"), resume=run_id)
    assert outcome.status == "finished"
    counts = _report(run_id)["counts"]
    assert counts["env_errors"] == 0 and counts["env_cause"] is None and counts["attempts"] == 4
    assert "environment errors" not in run_cli("report", run_id).stdout


def test_the_runs_listing_shows_environment_errors_as_report_counts_them(family, log_db) -> None:
    """`sembench runs` shows the environment errors `report` counts (a column when some run has
    any, and `env_errors` in its JSON); a resume that redoes them takes them off."""
    write_snapshot(log_db, family, "s", 4)
    run_id, other = _run(log_db, "oracle"), _run(log_db, "oracle")
    _stop_at_env_faults(log_db, run_id, 3)
    listed = run_cli("runs", "--format", "json")
    assert listed.exit_code == 0, listed.stderr
    by_id = {r["id"]: r for r in json.loads(listed.stdout)}
    assert by_id[run_id]["env_errors"] == 3 == _report(run_id)["counts"]["env_errors"]
    assert by_id[other]["env_errors"] == 0
    shown = run_cli("runs")
    assert shown.exit_code == 0, shown.stderr
    assert "env errors" in shown.stdout
    line = next(line for line in shown.stdout.splitlines() if run_id in line)
    assert "1/4" in line and " 3 " in f" {' '.join(line.replace('│', ' ').split())} "
    run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="oracle"), resume=run_id)
    assert {r["id"]: r for r in json.loads(run_cli("runs", "--format", "json").stdout)}[run_id]["env_errors"] == 0
    assert "env errors" not in run_cli("runs").stdout
