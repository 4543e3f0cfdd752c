"""A reply reaches extraction and verification exactly as the server sent it, whatever
the API key; a real-looking key never reaches the log database, the response cache, exports or what the
CLI prints, through any field (reply text, reasoning, finish_reason, model, error texts).

Against the fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from runs_support import oracle_replies, run_cli, write_snapshot

from core.models.secrets import MARK, is_secret, redact
from core.store import LogStore
from tests.models.fakeserver import Fault, Reply

REAL_KEY = "sk-proj-Q7vLm2XcB9dR4tY8wZ1nK6pH3sF0gJ5aE"
PIECE = REAL_KEY[9:21]  # any 12 characters of it


def test_what_counts_as_a_secret() -> None:
    for dummy in ("x", "EMPTY", "ollama", "lm-studio", "token-abc123", "sk-no-key-required", "x" * 40):
        assert not is_secret(dummy), dummy
    assert is_secret(REAL_KEY) and is_secret("sk-ant-api03-" + "aB3dE5gH7jK9mN1p")
    text = f"a {REAL_KEY} b ...{REAL_KEY[5:20]}... c"
    assert redact(text, [REAL_KEY]) == f"a {MARK} b ...{MARK}... c"
    assert redact("Looking at the examples", ["x"]) == "Looking at the examples"


@pytest.mark.parametrize("dummy", ["x", "EMPTY", "ollama"])
def test_a_ground_truth_server_scores_100_percent_with_a_dummy_key(family, log_db, server, model_env, monkeypatch,
                                                                    dummy) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", dummy)
    instances = write_snapshot(log_db, family, "s", 8)
    truth = oracle_replies(family, instances)
    # Prose around the ground truth that holds the dummy key many times over ("Looking at the examples").
    prose = f"Looking at the examples (key {dummy}), {dummy}{dummy} EMPTY ollama x-ray.\n\n"
    sent: dict[str, str] = {}

    def reply(request):
        text = prose + truth(request).text.strip()  # (the provider trims whitespace around a reply)
        sent[request.messages[-1]["content"]] = text
        return Reply(text=text, reasoning=f"thinking about {dummy} and the examples")

    server.reply = reply
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--concurrency", "4", "--format", "json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["done"], summary["correct"]) == (8, 8), "the ground truth verifies: 100%"
    rows = LogStore(log_db).attempts(run_id=summary["run"])
    prompts = {r["instance_id"]: json.loads(r["prompt"])["messages"][-1]["content"] for r in rows}
    for row in rows:
        assert row["response"] == sent[prompts[row["instance_id"]]], "stored exactly as the server sent it"
        assert row["reasoning"] == f"thinking about {dummy} and the examples"
        assert "redacted" not in json.loads(row["usage"])
    exported = run_cli("export", summary["run"]).stdout
    assert "Looking at the examples" in exported and "***" not in exported and MARK not in exported


def _leaks(data: bytes) -> list[str]:
    return [what for what in (REAL_KEY, PIECE) if what.encode() in data]


def test_a_real_key_never_reaches_the_database_cache_exports_or_output(toy, log_db, server, model_env, monkeypatch,
                                                                       tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", REAL_KEY)
    instances = write_snapshot(log_db, toy, "s", 6)
    truth = oracle_replies(toy, instances)

    def echo(request):
        sent = request.headers.get("authorization", "").removeprefix("Bearer ")
        # The key in every field a server controls: text, reasoning, finish_reason, model.
        return Reply(text=f"(your key: {sent})\n{truth(request).text}", reasoning=f"key {sent[:20]}...",
                     finish_reason=f"stop:{sent}", model=f"model-{sent}")

    server.reply = echo
    body = json.dumps({"error": {"message": f"bad request for key {REAL_KEY[:24]}..."}})
    server.fail_next(1, Fault.http(400, body=body))  # an error text quoting (part of) the key
    args = ("run", "--snapshot", "s", "--solver", "openai:m", "--temperature", "0", "--concurrency", "1",
            "--format", "json")
    first = run_cli(*args)
    assert first.exit_code == 0, first.stderr
    summary = json.loads(first.stdout)
    assert summary["done"] == 6 and summary["errors"] == 1
    assert summary["correct"] == 5, "verified from the reply as sent: the ground truth, key and all"
    assert server.requests[0].headers["authorization"] == f"Bearer {REAL_KEY}", "the key was really sent"

    store = LogStore(log_db)
    rows = store.attempts(run_id=summary["run"])
    answered = [r for r in rows if r["error"] is None]
    for row in answered:
        assert row["response"].startswith(f"(your key: {MARK})\nThe answer is") and MARK in row["reasoning"]
        usage = json.loads(row["usage"])
        assert usage["redacted"] == ["reasoning", "response"]
        assert MARK in usage["finish_reason"] and MARK in usage["model"]
    (failed,) = [r for r in rows if r["error"] is not None]
    assert failed["error_kind"] == "http_4xx" and MARK in failed["error"]
    assert store.db.execute("select count(*) from response_cache").fetchone()[0] == 0, \
        "a reply holding the key is never cached (a replay must be what the server sent)"

    # Not cached, so the same deterministic run asks again (and stores nothing more of the key).
    before = len(server.requests)
    again = run_cli(*args)
    assert again.exit_code == 0 and len(server.requests) - before == 6
    out = tmp_path / "export.jsonl"
    assert run_cli("export", summary["run"], "--out", str(out)).exit_code == 0
    answers = tmp_path / "answers.jsonl"
    (tmp_path / "inst.jsonl").write_text(run_cli("snapshot", "export", "s").stdout, encoding="utf-8")
    solved = run_cli("solve", "toy", "--instances", str(tmp_path / "inst.jsonl"), "--solver", "openai:m",
                     "--out", str(answers))
    assert solved.exit_code == 0, solved.stderr
    assert MARK in answers.read_text(encoding="utf-8")
    store.db.execute("pragma wal_checkpoint(passive)")
    files = [log_db, *log_db.parent.glob("log.db-*"), out, answers]
    assert any(p.name.endswith("-wal") for p in files)
    for path in files:
        assert _leaks(path.read_bytes()) == [], path
    for result in (first, again, solved):
        assert _leaks(result.output.encode()) == []


def test_a_key_in_an_error_the_cli_prints_is_redacted(toy, log_db, server, model_env, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", REAL_KEY)
    write_snapshot(log_db, toy, "s", 8)
    server.fail_next(100, Fault.http(404, body=json.dumps({"error": {"message": f"no model for {REAL_KEY}"}})))
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--concurrency", "1")
    assert result.exit_code == 2 and "first 5 attempts all failed" in result.stderr
    assert MARK in result.stderr and _leaks(result.output.encode()) == []


@pytest.mark.parametrize("stream", [False, True])
def test_a_key_echoed_in_finish_reason_or_model_is_not_stored_or_cached(toy, log_db, server, model_env, monkeypatch,
                                                                         stream) -> None:
    import asyncio

    from core.models.base import SamplingParams
    from core.models.solver import ModelSolver
    from core.runner import RunConfig, run_sync
    from core.store import Workspace

    monkeypatch.setenv("OPENAI_API_KEY", REAL_KEY)
    instances = write_snapshot(log_db, toy, "s", 3)
    truth = oracle_replies(toy, instances)
    server.reply = lambda req: Reply(text=truth(req).text, finish_reason=REAL_KEY, model=f"echo {REAL_KEY}")
    if stream:  # the TUI's path: a streamed solve through the cache
        store = LogStore(log_db)
        solver = ModelSolver("openai:m", SamplingParams(temperature=0), cache=store)

        async def solve() -> None:
            for inst in instances:
                result = await solver.solve(inst, toy.prompt(inst), on_delta=lambda kind, chunk: None)
                assert result.response == truth(server.requests[-1]).text
            await solver.aclose()

        asyncio.run(solve())
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="openai:m",
                                                     params=SamplingParams(temperature=0)))
    assert outcome.stats.correct == 3
    store = LogStore(log_db)
    cached = [json.loads(r[0]) for r in store.db.execute("select response from response_cache")]
    assert len(cached) == 3, "metadata is redacted, so the (clean) reply itself is still cached"
    for entry in cached:
        assert entry["finish_reason"] == MARK and entry["model"] == f"echo {MARK}"
    for row in store.attempts(run_id=outcome.run_id):
        assert json.loads(row["usage"])["finish_reason"] == MARK
    store.db.execute("pragma wal_checkpoint(passive)")
    for path in [log_db, *log_db.parent.glob("log.db-*")]:
        assert _leaks(path.read_bytes()) == [], path


def test_tool_results_quoting_a_key_stay_out_of_the_log_database(tmp_path: Path, monkeypatch) -> None:
    from core.tools.cache import ToolCache
    from core.tools.process import ToolResult

    monkeypatch.setenv("OPENAI_API_KEY", REAL_KEY)
    db = tmp_path / "log.db"
    cache = ToolCache(db)
    quoting = ToolResult(argv=["tool"], rc=1, stdout=f"error in answer: {REAL_KEY}", stderr="", elapsed_s=0.1)
    clean = ToolResult(argv=["tool"], rc=0, stdout="ok", stderr="", elapsed_s=0.1)
    odd = ToolResult(argv=["tool"], rc=0, stdout="\ud800", stderr="", elapsed_s=0.1)
    for key, result in (("a", quoting), ("b", clean), ("c", odd)):
        cache.put(key, "tool", "1", result)
    with sqlite3.connect(db) as conn:
        assert [r[0] for r in conn.execute("select key from tool_cache order by key")] == ["b"]
    assert cache.get("a") is not None, "still reused within the process"
    assert _leaks(db.read_bytes()) == []


def test_a_key_named_by_the_config_file_is_a_secret_on_every_path(toy, log_db, tmp_path: Path, monkeypatch) -> None:
    # No request is made here at all: importing answers that quote a configured key still redacts it.
    other = "vllm-" + REAL_KEY[::-1]
    config = tmp_path / "c.toml"
    config.write_text('[openai]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "VLLM_KEY"\n'
                      '[anthropic]\napi_key = "sk-ant-api03-FILEKEY-0123456789abcdef"\n')
    monkeypatch.setenv("SEMBENCH_CONFIG", str(config))
    monkeypatch.setenv("VLLM_KEY", other)
    instances = write_snapshot(log_db, toy, "s", 2)
    answers = tmp_path / "a.jsonl"
    answers.write_text("".join(json.dumps({"id": i.id, "response": f"{other} / sk-ant-api03-FILEKEY-0123456789abcdef "
                                           f"{toy.oracle_response(i)}"}) + "\n" for i in instances))
    result = run_cli("import-answers", "--snapshot", "s", "--answers", str(answers), "--solver-name", "x",
                     "--format", "json")
    assert result.exit_code == 0, result.stderr
    rows = LogStore(log_db).attempts(run_id=json.loads(result.stdout)["run"])
    assert all(r["response"].startswith(f"{MARK} / {MARK} The answer is") and r["correct"] for r in rows)


@pytest.mark.parametrize("case", ["lower", "upper"])
def test_a_key_echoed_in_another_letter_case_is_redacted_everywhere(toy, log_db, server, model_env, monkeypatch,
                                                                     case) -> None:
    """A server that echoes the key lower-cased or upper-cased gives it away as surely as
    an exact copy; every stored field is redacted and such a reply is not cached."""
    monkeypatch.setenv("OPENAI_API_KEY", REAL_KEY)
    instances = write_snapshot(log_db, toy, "s", 4)
    truth = oracle_replies(toy, instances)
    recased = getattr(REAL_KEY, case)()
    assert recased != REAL_KEY

    def echo(request):
        sent = getattr(request.headers.get("authorization", "").removeprefix("Bearer "), case)()
        return Reply(text=f"(your key: {sent})\n{truth(request).text}", reasoning=f"key {sent[5:25]}...",
                     finish_reason=f"stop:{sent}", model=f"model-{sent}")

    server.reply = echo
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--temperature", "0", "--concurrency", "1",
                     "--format", "json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["done"], summary["correct"]) == (4, 4), "verified from the reply exactly as sent"
    store = LogStore(log_db)
    for row in store.attempts(run_id=summary["run"]):
        assert row["response"].startswith(f"(your key: {MARK})\nThe answer is") and MARK in row["reasoning"]
        usage = json.loads(row["usage"])
        assert usage["redacted"] == ["reasoning", "response"]
        assert MARK in usage["finish_reason"] and MARK in usage["model"]
    assert store.db.execute("select count(*) from response_cache").fetchone()[0] == 0
    exported = run_cli("export", summary["run"]).stdout
    store.db.execute("pragma wal_checkpoint(passive)")
    pieces = (recased, recased[9:21])
    for data in [*(p.read_bytes() for p in [log_db, *log_db.parent.glob("log.db-*")]), exported.encode(),
                 result.output.encode()]:
        assert not [p for p in pieces if p.encode() in data]


def test_secrets_of_the_environment_reversed_or_in_base64_are_redacted_everywhere(toy, log_db, server, model_env,
                                                                                 monkeypatch) -> None:
    """Any secret-looking variable of the user's environment (not only the providers' keys), and any key
    reversed or base64-encoded (as a program run for an answer may print it), never reaches the
    database, an export or what the CLI prints."""
    import base64

    aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    monkeypatch.setenv("OPENAI_API_KEY", REAL_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", aws)
    monkeypatch.setenv("MY_SERVICE_TOKEN", "short")  # too short to be taken for a secret: left alone
    instances = write_snapshot(log_db, toy, "s", 2)
    truth = oracle_replies(toy, instances)
    given = [aws, aws[::-1], base64.b64encode(f"AWS_SECRET_ACCESS_KEY={aws}".encode()).decode(),
             REAL_KEY[::-1], base64.b64encode(f"k:{REAL_KEY}".encode()).decode(),
             base64.urlsafe_b64encode(f"xy{aws}".encode()).decode()]

    def leak(request):
        return Reply(text=f"printed: {' | '.join(given)} short\n{truth(request).text}", reasoning=f"env: {given[2]}")

    server.reply = leak
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--concurrency", "1", "--format", "json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["done"], summary["correct"]) == (2, 2)
    store = LogStore(log_db)
    for row in store.attempts(run_id=summary["run"]):
        assert row["response"].startswith(f"printed: {MARK}") and row["response"].count(MARK) >= len(given)
        assert " short\n" in row["response"]
    exported = run_cli("export", summary["run"]).stdout
    store.db.execute("pragma wal_checkpoint(passive)")
    # each whole, and 12 characters from within the secret each holds (base64 of the variable's name is not one)
    pieces = [*given, *(text[-16:-4] for text in given), aws[4:16], aws[::-1][4:16], REAL_KEY[9:21]]
    for data in [*(p.read_bytes() for p in [log_db, *log_db.parent.glob("log.db-*")]), exported.encode(),
                 result.output.encode()]:
        assert not [p for p in pieces if p.encode() in data]


def test_the_known_secrets_answer_changes_as_soon_as_what_it_depends_on_does(tmp_path: Path, monkeypatch) -> None:
    # known_secrets() keeps its last answer while nothing it depends on changes (it is asked three times
    # per request): a key in a standard variable, in a variable the config file names, a key registered
    # by an endpoint, another config file or the file edited must each be seen by the next call.
    from core.models import config as cfg
    from core.models import secrets

    monkeypatch.setattr(cfg, "CONFIG_STAT_EVERY_S", 3600.0)  # the file is looked at on a change of path only
    first = tmp_path / "one.toml"
    first.write_text('[openai]\napi_key_env = "VLLM_KEY"\n')
    monkeypatch.setenv("SEMBENCH_CONFIG", str(first))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("VLLM_KEY", raising=False)
    before = cfg.known_secrets()
    assert cfg.known_secrets() == before
    monkeypatch.setenv("OPENAI_API_KEY", REAL_KEY)
    assert REAL_KEY in cfg.known_secrets()
    named = "vllm-" + REAL_KEY[::-1]
    monkeypatch.setenv("VLLM_KEY", named)
    assert named in cfg.known_secrets()
    registered = "sk-registered-" + REAL_KEY[5:30]
    assert registered not in cfg.known_secrets()
    secrets.register(registered)
    assert registered in cfg.known_secrets()
    second = tmp_path / "two.toml"
    filed = "sk-ant-api03-FILEKEY-0123456789abcdef"
    second.write_text(f'[anthropic]\napi_key = "{filed}"\n')
    monkeypatch.setenv("SEMBENCH_CONFIG", str(second))
    assert filed in cfg.known_secrets()
    edited = "sk-ant-api03-EDITED-fedcba9876543210"
    second.write_text(f'[anthropic]\napi_key = "{edited}"\n')
    assert edited not in cfg.known_secrets()  # not stat'ed again yet: within CONFIG_STAT_EVERY_S
    monkeypatch.setattr(cfg, "CONFIG_STAT_EVERY_S", 0.0)
    cfg._watch["last"] = (0.0, *cfg._watch["last"][1:])  # the stat falls due, as after the interval
    assert edited in cfg.known_secrets()
