"""Model runs against the fake OpenAI-compatible server: answers, faults, the response cache, a dead
endpoint, retrying errors on resume, and API keys that never reach the database."""

from __future__ import annotations

import itertools
import json
import socket
from collections import Counter

import pytest
from runs_support import KEY_MARKER, oracle_replies, run_cli, write_snapshot

from core.errors import UserError
from core.models.base import Message, SamplingParams
from core.models.solver import ModelSolver, is_deterministic
from core.runner import RunConfig, get_run, run_sync
from core.store import LogStore, Workspace
from tests.models.fakeserver import Fault, Reply


def _rows(db, run_id: str) -> list[dict]:
    return LogStore(db).attempts(run_id=run_id)


def test_model_run_records_answers_reasoning_tokens(family, log_db, server, model_env) -> None:
    instances = write_snapshot(log_db, family, "s", 6)
    server.reply = oracle_replies(family, instances)
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="openai:test-model", concurrency=3))
    assert outcome.status == "finished" and outcome.stats.correct == 6
    rows = _rows(log_db, outcome.run_id)
    assert len(rows) == 6 and len(server.requests) == 6
    for row in rows:
        assert row["correct"] == 1 and row["reasoning"] == "thinking about it"
        assert row["tokens_in"] > 0 and row["tokens_out"] > 0
        assert json.loads(row["usage"])["finish_reason"] == "stop"
    assert server.max_in_flight <= 3, "--concurrency bounds the requests in flight"
    prompts = sorted(json.dumps(family.prompt(i).messages) for i in instances)
    assert sorted(json.dumps(r.json["messages"]) for r in server.requests) == prompts
    assert {r.json["model"] for r in server.requests} == {"test-model"}


def test_faults_are_recorded_as_errors_and_the_run_completes(toy, log_db, server, model_env) -> None:
    instances = write_snapshot(log_db, toy, "s", 8)
    server.reply = oracle_replies(toy, instances)
    # One request in flight, so the faults land deterministically: max_retries = 2 means a fault
    # queued three times exhausts one request's retries.
    server.fail_next(3, Fault.http500())
    server.fail_next(3, Fault.http429(retry_after="1"))
    server.fail_next(3, Fault.drop())
    server.fail_next(1, Fault.malformed())
    server.fail_next(1, Fault.missing_fields())
    server.fail_next(1, Fault.http500())  # retried once, then answered
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="openai:m", concurrency=1))
    assert outcome.status == "finished"
    rows = _rows(log_db, outcome.run_id)
    kinds = Counter(r["error_kind"] for r in rows if r["error"])
    assert kinds == {"http_5xx": 1, "http_429": 1, "connection": 1, "malformed": 2}
    retries = Counter(json.loads(r["usage"])["retries"] for r in rows)
    assert retries == {2: 3, 1: 1, 0: 4}, "3 exhausted, 1 retried then answered, 2 malformed + 2 clean"
    assert sum(r["correct"] for r in rows) == 3 and len(rows) == 8
    for row in rows:
        if row["error"]:
            assert row["status"] == "error" and row["correct"] == 0 and row["verdict"] is None
            assert "\n" not in row["error"]
    report = json.loads(run_cli("report", outcome.run_id, "--format", "json").stdout)
    assert report["counts"]["errors"] == 5 and report["errors"]["by_kind"]["malformed"] == 2

    # --retry-errors redoes what never got an answer (5xx, 429, connection), not malformed replies.
    before = len(server.requests)
    result = run_cli("run", "--resume", outcome.run_id, "--retry-errors", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert len(server.requests) - before == 3
    rows = _rows(log_db, outcome.run_id)
    assert len(rows) == 8, "redone attempts replace the old ones: still one per (instance, sample)"
    assert Counter(r["error_kind"] for r in rows if r["error"]) == {"malformed": 2}


def test_identical_deterministic_run_is_answered_from_the_cache(family, log_db, server, model_env) -> None:
    instances = write_snapshot(log_db, family, "s", 5)
    server.reply = oracle_replies(family, instances)
    # Temperature 0 and no seed: the 3 samples of an instance are one request, sent once. Concurrency 8
    # puts samples 0 and 1 of the same instance in flight together, so they share one reply too.
    args = ("run", "--snapshot", "s", "--solver", "openai:m", "--samples", "3", "--temperature", "0",
            "--concurrency", "8", "--format", "json")
    first = run_cli(*args)
    assert first.exit_code == 0, first.stderr
    assert len(server.requests) == 5 and server.requests[0].json["temperature"] == 0
    assert sorted(r.messages[-1]["content"] for r in server.requests) == sorted(
        family.prompt(i).messages[-1]["content"] for i in instances), "one request per instance"
    summary = json.loads(first.stdout)
    assert summary["done"] == 15 and summary["correct"] == 15 and summary["cached"] == 10
    second = run_cli(*args)
    summary = json.loads(second.stdout)
    assert len(server.requests) == 5, "the second identical run asks the server nothing"
    assert summary["cached"] == 15 and summary["correct"] == 15
    rows = _rows(log_db, summary["run"])
    assert all(r["cached"] == 1 and r["reasoning"] == "thinking about it" for r in rows)
    # Not deterministic (default temperature): never cached, always asked.
    run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--format", "json")
    assert len(server.requests) == 10
    # --no-cache asks again even for a deterministic request.
    run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--temperature", "0", "--no-cache", "--limit", "2")
    assert len(server.requests) == 12


def test_cache_entries_written_with_the_sample_index_are_still_used(toy, log_db, server, model_env) -> None:
    from core.models.solver import ModelSolver

    instances = write_snapshot(log_db, toy, "s", 2)
    store = LogStore(log_db)
    solver = ModelSolver("openai:m", SamplingParams(temperature=0), cache=store)
    for inst in instances:  # what an older version stored: the request key plus ":<sample>"
        messages = [Message(role=m["role"], content=m["content"]) for m in toy.prompt(inst).messages]
        store.cache_put(f"{solver.cache_key(messages)}:0", "openai:m", {"text": "The answer is 1"})
    summary = json.loads(run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--samples", "2",
                                 "--temperature", "0", "--format", "json").stdout)
    assert summary["cached"] == 4 and len(server.requests) == 0


def test_seeded_samples_differ_and_are_sent_with_seed_plus_k(toy, log_db, server, model_env) -> None:
    write_snapshot(log_db, toy, "s", 2)
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--samples", "3", "--seed", "40",
                     "--max-tokens", "64", "--top-p", "0.5", "--reasoning-effort", "low", "--stop", "###",
                     "--stop", "END")
    assert result.exit_code == 0, result.stderr
    seeds = sorted(r.json["seed"] for r in server.requests)
    assert seeds == [40, 40, 41, 41, 42, 42]
    sent = server.requests[0].json
    assert (sent["max_tokens"], sent["top_p"], sent["reasoning_effort"]) == (64, 0.5, "low")
    assert sent["stop"] == ["###", "END"], "--stop is repeatable and sent in order"


def test_cache_rule() -> None:
    assert is_deterministic("openai", SamplingParams(temperature=0))
    assert is_deterministic("openai", SamplingParams(temperature=0.7, seed=1))
    assert not is_deterministic("anthropic", SamplingParams(temperature=0.7, seed=1)), "no seed in that API"
    assert not is_deterministic("openai", SamplingParams())


def _dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_dead_endpoint_stops_the_run_with_a_clear_error(toy, log_db, model_env, monkeypatch) -> None:
    write_snapshot(log_db, toy, "s", 30)
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{_dead_port()}/v1")
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--concurrency", "2")
    assert result.exit_code == 2
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("error:")]  # besides progress lines
    assert "not answering" in line and "--resume run-" in line and "--retry-errors" in line
    assert "Traceback" not in result.output
    store = LogStore(log_db)
    (run,) = store.db.execute("select id from runs").fetchall()
    rows = store.attempts(run_id=run[0])
    assert 5 <= len(rows) < 30, "it stopped early; what it recorded is kept"
    assert all(r["error_kind"] == "connection" for r in rows)
    assert get_run(store, run[0])["status"] == "interrupted"


def test_missing_key_for_a_hosted_api_fails_before_any_request(toy, log_db, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    empty = log_db.parent / "empty.toml"
    empty.write_text("")
    monkeypatch.setenv("SEMBENCH_CONFIG", str(empty))
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        ModelSolver("openai:gpt-4o", endpoints=None)
    monkeypatch.setenv("SEMBENCH_CONFIG", str(log_db.parent / "absent.toml"))
    with pytest.raises(UserError, match="config file not found"):
        ModelSolver("openai:gpt-4o")


def test_api_key_never_reaches_the_database_or_the_export(toy, log_db, server, model_env, tmp_path) -> None:
    instances = write_snapshot(log_db, toy, "s", 4)
    server.api_key = KEY_MARKER  # the server demands the key, so it was really sent
    server.reply = oracle_replies(toy, instances)
    ok = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--temperature", "0", "--format", "json")
    run_id = json.loads(ok.stdout)["run"]
    assert json.loads(ok.stdout)["correct"] == 4
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY_MARKER}"
    # A server that rejects the key and echoes it back (as real ones do): recorded errors, key redacted.
    server.api_key = "another-key"
    bad = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--no-cache")
    assert bad.exit_code in (0, 2)
    LogStore(log_db).db.execute("pragma wal_checkpoint(truncate)")
    out = tmp_path / "export.jsonl"
    assert run_cli("export", run_id, "--out", str(out)).exit_code == 0
    for path in [log_db, *log_db.parent.glob("log.db-*"), out]:
        data = path.read_bytes()
        assert KEY_MARKER.encode() not in data, path
        assert KEY_MARKER[5:17].encode() not in data, path  # not even a piece of it
    assert "auth" in {r["error_kind"] for r in LogStore(log_db).attempts() if r["error"]}
    assert KEY_MARKER not in bad.output


def test_streaming_solver_reports_deltas_and_hits(toy, log_db, server, model_env) -> None:
    import asyncio

    instances = write_snapshot(log_db, toy, "s", 1)
    server.reply = lambda req: Reply(text="The answer is 7", reasoning="adding")
    store = LogStore(log_db)
    solver = ModelSolver("openai:m", SamplingParams(temperature=0), cache=store)
    chunks: list[tuple[str, str]] = []

    async def solve_twice() -> tuple:
        prompt = toy.prompt(instances[0])
        first = await solver.solve(instances[0], prompt, on_delta=lambda k, c: chunks.append((k, c)))
        chunks.clear()
        second = await solver.solve(instances[0], prompt, on_delta=lambda k, c: chunks.append((k, c)))
        await solver.aclose()
        return first, second

    first, second = asyncio.run(solve_twice())
    assert first.response == second.response == "The answer is 7" and not first.cached and second.cached
    assert "".join(c for k, c in chunks if k == "text") == "The answer is 7"
    assert "".join(c for k, c in chunks if k == "reasoning") == "adding"
    assert chunks == [("reasoning", "adding"), ("text", "The answer is 7")], "a hit replays the reasoning too"
    assert first.usage["prompt_tokens"] > 0 and second.reasoning == "adding"
    assert len(server.requests) == 1 and server.requests[0].stream


def _error_line(result) -> str:
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("error:")]  # besides progress lines
    return line


@pytest.mark.parametrize(("fault", "kind", "redo"), [
    (Fault.http(404, body='{"error": {"message": "The model `gpt-4oo` does not exist"}}'), "http_4xx",
     "--retry-errors=all"),
    (Fault.http(401), "auth", "--retry-errors"),
], ids=["404", "401"])
def test_a_run_failing_one_permanent_way_stops_and_can_be_redone(toy, log_db, server, model_env, fault, kind,
                                                                  redo) -> None:
    instances = write_snapshot(log_db, toy, "s", 12)
    server.reply = oracle_replies(toy, instances)
    server.fail_next(1000, fault)
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--concurrency", "1")
    assert result.exit_code == 2 and "Traceback" not in result.output
    store = LogStore(log_db)
    (run_id,) = [r[0] for r in store.db.execute("select id from runs")]
    line = _error_line(result)
    assert line.endswith(f"Fix it, then: sembench run --resume {run_id} {redo}"), line
    assert "5 of 12 attempts recorded" in line
    rows = store.attempts(run_id=run_id)
    assert len(rows) == 5 and {r["error_kind"] for r in rows} == {kind}
    assert get_run(store, run_id)["status"] == "interrupted"

    server.clear_faults()
    if kind == "http_4xx":  # not transient: plain --retry-errors keeps them and only finishes the rest
        kept = run_cli("run", "--resume", run_id, "--retry-errors", "--format", "json")
        assert kept.exit_code == 0, kept.stderr
        assert json.loads(kept.stdout)["errors"] == 5 and len(server.requests) == 5 + 7
    redone = run_cli("run", "--resume", run_id, redo, "--format", "json")
    assert redone.exit_code == 0, redone.stderr
    summary = json.loads(redone.stdout)
    assert (summary["done"], summary["errors"], summary["correct"]) == (12, 0, 12)
    assert len(store.attempts(run_id=run_id)) == 12


def test_endpoint_dying_mid_run_stops_it_with_a_resume_command_naming_the_db(toy, log_db, server, model_env,
                                                                             tmp_path) -> None:
    other = tmp_path / "elsewhere.db"  # not the default database: the resume command needs --db
    instances = write_snapshot(other, toy, "s", 40)
    right = oracle_replies(toy, instances)
    served = itertools.count(1)

    def reply(request):
        if next(served) == 6:
            server.fail_next(100_000, Fault.drop())  # the server "dies" after this reply
        return right(request)

    server.reply = reply
    result = run_cli("--db", str(other), "run", "--snapshot", "s", "--solver", "openai:m", "--concurrency", "2")
    assert result.exit_code == 2 and "Traceback" not in result.output
    store = LogStore(other)
    (run_id,) = [r[0] for r in store.db.execute("select id from runs")]
    line = _error_line(result)
    assert "not answering" in line
    assert line.endswith(f"sembench --db {other} run --resume {run_id} --retry-errors"), line
    rows = store.attempts(run_id=run_id)
    answered = [r for r in rows if r["error"] is None]
    failed = [r for r in rows if r["error"] is not None]
    assert len(answered) >= 6 and all(r["correct"] for r in answered), "successes before the death are kept"
    assert len(failed) >= 5 and {r["error_kind"] for r in failed} == {"connection"}
    assert len(rows) < 40 and get_run(store, run_id)["status"] == "interrupted"

    server.clear_faults()  # it is back: the printed command finishes the run
    again = run_cli("--db", str(other), "run", "--resume", run_id, "--retry-errors", "--format", "json")
    summary = json.loads(again.stdout)
    assert (summary["status"], summary["done"], summary["errors"]) == ("finished", 40, 0)


def test_stop_rule_looks_at_a_window_and_one_persistent_kind_from_the_start() -> None:
    from core.attempts import AttemptRecord
    from core.runner import StopRule

    def rec(kind: str | None) -> AttemptRecord:
        return AttemptRecord(instance_id="i", family="toy", solver="x", error_kind=kind,
                             error=None if kind is None else f"{kind}: boom")

    rule = StopRule(after=3, window=10)
    for kind in [None, "connection", "connection", None, "timeout", "connection", "connection"]:
        assert rule.check(rec(kind)) is None, "failures that do not dominate the window do not stop a run"
    rule = StopRule(after=3, window=10)
    assert [rule.check(rec("connection")) is None for _ in range(3)] == [True, True, False], "all of the first 3"
    rule = StopRule(after=3, window=10)
    for kind in [None] * 5 + ["timeout"] * 8:
        assert rule.check(rec(kind)) is None
    stopped = rule.check(rec("connection"))  # 9 of the last 10
    assert stopped is not None and stopped.retry == "transient" and "not answering" in stopped.reason
    assert "9 of the last 10" in stopped.reason

    rule = StopRule(after=3)
    assert [rule.check(rec("http_4xx")) is None for _ in range(3)] == [True, True, False]
    assert rule.first_count == 3
    rule = StopRule(after=3)
    assert all(rule.check(rec(k)) is None for k in ["http_4xx", "malformed", "http_4xx", "http_4xx", "http_4xx"])
    rule = StopRule(after=3)
    assert all(rule.check(rec(k)) is None for k in [None] + ["http_4xx"] * 10), "after a success: errors are data"


def test_a_key_echoed_in_a_reply_never_reaches_the_database(toy, log_db, server, model_env) -> None:
    write_snapshot(log_db, toy, "s", 3)
    server.reply = lambda req: Reply(text="you sent " + req.headers.get("authorization", ""),
                                     reasoning="I saw " + req.headers.get("authorization", ""))
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--temperature", "0", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY_MARKER}", "sent, so echoed"
    rows = LogStore(log_db).attempts(run_id=json.loads(result.stdout)["run"])
    assert len(rows) == 3 and all(r["response"] == "you sent Bearer [redacted key]" for r in rows)
    assert all(json.loads(r["usage"])["redacted"] == ["reasoning", "response"] for r in rows)
    files = [log_db, *log_db.parent.glob("log.db-*")]
    assert any(p.name.endswith("-wal") for p in files), "the WAL is read too, not just the checkpointed file"
    for path in files:
        data = path.read_bytes()
        assert KEY_MARKER.encode() not in data and KEY_MARKER[5:17].encode() not in data, path


def test_a_solver_asks_with_the_prompt_as_it_is_now(toy, log_db, server, model_env) -> None:
    """A run asks every sample with the same Prompt object: one edited in place is asked as edited, by
    the solver and by its sample clones."""
    import asyncio

    from core.trace import Prompt

    instance = write_snapshot(log_db, toy, "s", 1)[0]
    solver = ModelSolver("openai:m")
    prompt = Prompt(style="plain", messages=[{"role": "user", "content": "first question"}])

    async def ask() -> None:
        await solver.solve(instance, prompt)
        await solver.for_sample(1).solve(instance, prompt)
        prompt.messages[0]["content"] = "second question"
        await solver.for_sample(2).solve(instance, prompt)
        await solver.aclose()

    asyncio.run(ask())
    assert [r.messages[-1]["content"] for r in server.requests] == ["first question"] * 2 + ["second question"]
