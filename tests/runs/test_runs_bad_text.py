"""Any text a server or a file can contain (a lone surrogate from a JSON `\\ud800` escape)
is stored and verified without crashing: in a run (and its resume), `solve --out`, `verify --out` and
`import-answers` (which leaves no orphan run behind)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runs_support import oracle_replies, run_cli, write_snapshot

from core.store import LogStore
from tests.models.fakeserver import Reply

LONE = "\ud800"  # what json.loads makes of "\ud800"


@pytest.mark.parametrize("stream", [False, True])
def test_a_run_records_replies_with_lone_surrogates_and_resumes(toy, log_db, server, model_env, stream) -> None:
    import asyncio

    from core.models.base import SamplingParams
    from core.runner import RunConfig, run_async
    from core.solver_base import Solver
    from core.store import Workspace

    instances = write_snapshot(log_db, toy, "s", 12)
    truth = oracle_replies(toy, instances)
    server.reply = lambda req: Reply(text=f"{LONE}odd \udc00{LONE} text. {truth(req).text}",
                                     reasoning=f"hmm {LONE}", finish_reason=f"stop{LONE}")
    if stream:  # streamed replies go through the same store path (the TUI streams)
        from core.models.solver import ModelSolver

        original = ModelSolver.solve

        async def streamed(self: Solver, instance, prompt, on_delta=None):  # type: ignore[no-untyped-def]
            return await original(self, instance, prompt, on_delta=lambda kind, chunk: None)

        ModelSolver.solve = streamed  # type: ignore[method-assign]
    try:
        outcome = asyncio.run(run_async(Workspace(log_db), RunConfig(
            snapshot="s", solver="openai:m", concurrency=3, params=SamplingParams(temperature=0))))
    finally:
        if stream:
            ModelSolver.solve = original  # type: ignore[method-assign]
    assert outcome.status == "finished" and outcome.stats.done == 12
    assert outcome.stats.correct == 12, "verified from the reply as received, surrogates and all"
    rows = LogStore(log_db).attempts(run_id=outcome.run_id)
    assert len(rows) == 12 and all(r["response"].startswith("\ufffdodd \ufffd\ufffd text.") for r in rows)
    assert all(r["reasoning"] == "hmm \ufffd" for r in rows)
    # The response cache never holds a reply it could not replay exactly.
    assert LogStore(log_db).db.execute("select count(*) from response_cache").fetchone()[0] == 0
    resumed = run_cli("run", "--resume", outcome.run_id, "--format", "json")
    assert resumed.exit_code == 0 and json.loads(resumed.stdout)["done"] == 12
    report = run_cli("report", outcome.run_id, "--format", "json")
    assert report.exit_code == 0 and json.loads(report.stdout)
    exported = run_cli("export", outcome.run_id)
    assert exported.exit_code == 0 and len(exported.stdout.splitlines()) == 12


def test_solve_and_verify_write_such_text_and_read_it_back(toy, log_db, server, model_env, tmp_path: Path) -> None:
    instances = write_snapshot(log_db, toy, "s", 4)
    truth = oracle_replies(toy, instances)
    server.reply = lambda req: Reply(text=f"{LONE} {truth(req).text}")
    inst_file = tmp_path / "inst.jsonl"
    inst_file.write_text(run_cli("snapshot", "export", "s").stdout, encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    solved = run_cli("solve", "toy", "--instances", str(inst_file), "--solver", "openai:m", "--out", str(answers))
    assert solved.exit_code == 0, solved.stderr
    lines = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 4 and all(line["response"].startswith(LONE + " The answer is") for line in lines), \
        "written with a \\u escape, so it reads back as the very same text"
    verdicts = tmp_path / "verdicts.jsonl"
    checked = run_cli("verify", "toy", "--instances", str(inst_file), "--answers", str(answers), "--out",
                      str(verdicts), "--format", "json")
    assert checked.exit_code == 0 and json.loads(checked.stdout)["overall"]["accuracy"] == 1.0
    assert len(verdicts.read_text(encoding="utf-8").splitlines()) == 4


def test_import_answers_with_lone_surrogates_records_everything(toy, log_db, tmp_path: Path) -> None:
    instances = write_snapshot(log_db, toy, "s", 5)
    answers = tmp_path / "answers.jsonl"
    # As another harness may write them: the escape, and a reply that is nothing but surrogates.
    lines = [json.dumps({"id": inst.id, "response": f"\\ud800 {toy.oracle_response(inst)}", "reasoning": "\\udc00"})
             .replace("\\\\u", "\\u") for inst in instances[:4]]
    lines.append(json.dumps({"id": instances[4].id, "response": "\ud83d"}))
    answers.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_cli("import-answers", "--snapshot", "s", "--answers", str(answers), "--solver-name", "other",
                     "--format", "json")
    assert result.exit_code == 0, result.stderr
    store = LogStore(log_db)
    rows = store.attempts(run_id=json.loads(result.stdout)["run"])
    assert len(rows) == 5 and sum(r["correct"] for r in rows) == 4
    assert {r["reasoning"] for r in rows[:4]} == {"\ufffd"}
    assert [r["status"] for r in store.list_runs()] == ["finished"], "one run, finished: no orphan"
