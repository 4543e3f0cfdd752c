"""A run stops when failures dominate a sliding window of recent attempts (with the
resume command), not on a fixed count in a row. Against the fake server on 127.0.0.1: an endpoint that
answers everything with 500 or 429 stops after a few attempts; one where 60% of requests succeed and the
rest stall and time out together (bursts of timeouts in a row) runs to the end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runs_support import oracle_replies, run_cli, write_snapshot

from core.store import LogStore
from tests.models.fakeserver import Fault


@pytest.mark.parametrize("fault", [Fault.http500(), Fault.http429(retry_after="0")], ids=["500", "429"])
def test_an_endpoint_failing_every_request_stops_the_run_early(toy, log_db, server, model_env, fault) -> None:
    instances = write_snapshot(log_db, toy, "s", 200)
    server.reply = oracle_replies(toy, instances)
    server.fail_next(100_000, fault)
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--concurrency", "4")
    assert result.exit_code == 2 and "Traceback" not in result.output
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    store = LogStore(log_db)
    (run_id,) = [r[0] for r in store.db.execute("select id from runs")]
    assert "of the last" in line and line.endswith(f"Fix it, then: sembench run --resume {run_id} --retry-errors")
    recorded = len(store.attempts(run_id=run_id))
    assert recorded < 20, f"stopped after {recorded} attempts, not 200"
    # max_retries + 1 = 3 requests per attempt, recorded or in flight (4) when the run stopped; not 600
    assert len(server.requests) <= 3 * (recorded + 4)

    server.clear_faults()  # back: the printed command finishes the run
    again = run_cli("run", "--resume", run_id, "--retry-errors", "--format", "json")
    summary = json.loads(again.stdout)
    assert (summary["status"], summary["done"], summary["errors"]) == ("finished", 200, 0)


def test_an_endpoint_that_answers_most_requests_is_not_given_up_on(toy, log_db, server, model_env,
                                                                   tmp_path: Path, monkeypatch) -> None:
    instances = write_snapshot(log_db, toy, "s", 150)
    server.reply = oracle_replies(toy, instances)
    config = tmp_path / "stall.toml"
    config.write_text("[openai]\ntimeout_s = 0.3\nmax_retries = 0\nmax_concurrency = 8\n", encoding="utf-8")
    monkeypatch.setenv("SEMBENCH_CONFIG", str(config))
    for i in range(150):  # 2 requests in 5 stall past the read timeout; they time out in bursts
        server.fail_next(1, Fault.delay(3.0 if i % 5 in (1, 3) else 0.0))
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--concurrency", "8", "--format", "json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["status"] == "finished" and summary["done"] == 150
    rows = LogStore(log_db).attempts(run_id=summary["run"])
    kinds = [r["error_kind"] for r in rows]
    assert kinds.count("timeout") == 60 and summary["correct"] == 90
    longest = max(len(run) for run in "".join("t" if k else "." for k in kinds).split("."))
    assert longest >= 5, "timeouts did come in a burst longer than the old 5-in-a-row rule allowed"
