"""The work extraction does on any reply is bounded. A reply longer than
core.extraction.MAX_REPLY_CHARS is a typed extraction failure ("too_long", with an explanation) decided
from its length: the family's extractor never reads it. Speed is measured in
tests/bench/bench_huge_reply.py; here we check the bound itself, on every path a reply is checked by."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runs_support import run_cli, write_snapshot

from core.extraction import MAX_REPLY_CHARS
from core.family import get_family
from core.store import LogStore
from tests.models.fakeserver import Reply

FILLER = "Looking at the examples, the answer may be True or False. "


def _spy(monkeypatch, family) -> list[int]:
    """Lengths of every text the family's own extractor is given: through the family's method, and through
    any module of the family that holds it directly (a fast `check` calls it without the method)."""
    import sys

    seen: list[int] = []
    original = family.extract

    def spied(function):
        def extract(text, instance=None):
            seen.append(len(text))
            return function(text, instance)
        return extract

    monkeypatch.setattr(family, "extract", spied(original))
    prefix = f"{type(family).__module__}."
    for name, module in list(sys.modules.items()):
        function = getattr(module, "extract", None)
        if name.startswith(prefix) and callable(function) and getattr(function, "__name__", "") == "extract":
            monkeypatch.setattr(module, "extract", spied(function))
    return seen


# every family: one that overrides `check` for speed must keep the bound
@pytest.mark.parametrize("family_id", ["membership", "cascade", "typeinf", "imports", "specs"])
def test_a_50_mb_reply_is_refused_by_length_and_never_scanned(family_id: str, monkeypatch,
                                                             session_tool_cache_everywhere) -> None:
    # the oracle's verdicts (specs: its reference's WP run) come from the session's tool cache
    family = get_family(family_id)
    inst = family.generate_one(family.resolve_params(sorted(family.presets())[0]), 0, 0)
    oracle = family.oracle_response(inst)
    huge = FILLER * (50_000_000 // len(FILLER)) + oracle
    family.check(inst, oracle)  # the family's modules are imported before the spy looks for them
    seen = _spy(monkeypatch, family)
    answer, verdict = family.check(inst, huge)
    assert not answer.ok and answer.error == "too_long" and answer.details["length"] == len(huge)
    assert not verdict.correct and verdict.explanation
    ((_, batched),) = family.check_many([(inst, huge)])
    assert not batched.correct
    assert seen == [], "the extractor never saw it"
    assert family.check(inst, oracle)[1].correct and seen == [len(oracle)], "replies within the bound are read"
    at_bound = oracle + " " * (MAX_REPLY_CHARS - len(oracle))
    at_answer = family.check(inst, at_bound)[0]
    # the shared bound lets it through (a family may still bound its own answers lower: specs at 200k)
    assert at_answer.details.get("length") != len(at_bound) and seen[-1] == len(at_bound)


def test_a_huge_reply_from_the_server_is_recorded_as_too_long(toy, log_db, server, model_env, monkeypatch) -> None:
    write_snapshot(log_db, toy, "s", 3)
    text = " 7" * 1_000_000  # 2 MB, under the HTTP cap
    server.reply = lambda req: Reply(text=text)
    seen = _spy(monkeypatch, toy)
    result = run_cli("run", "--snapshot", "s", "--solver", "openai:m", "--format", "json")
    assert result.exit_code == 0, result.stderr
    rows = LogStore(log_db).attempts(run_id=json.loads(result.stdout)["run"])
    assert len(rows) == 3 and all(json.loads(r["answer"])["error"] == "too_long" for r in rows)
    assert all(r["response"] == text.strip() for r in rows), "the reply itself is kept"
    # the extractor never saw the huge reply (the run's warm-up checks an empty one before any answer)
    assert all(n < len(text.strip()) for n in seen), seen


def test_huge_answers_in_verify_and_import_are_bounded_too(toy, log_db, tmp_path: Path, monkeypatch) -> None:
    instances = write_snapshot(log_db, toy, "s", 2)
    inst_file = tmp_path / "i.jsonl"
    inst_file.write_text("".join(json.dumps(i.to_json_dict()) + "\n" for i in instances), encoding="utf-8")
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": instances[0].id, "response": "9" * 50_000_000}) + "\n"
                       + json.dumps({"id": instances[1].id, "response": toy.oracle_response(instances[1])}) + "\n")
    seen = _spy(monkeypatch, toy)
    verified = run_cli("verify", "toy", "--instances", str(inst_file), "--answers", str(answers), "--format", "json")
    assert verified.exit_code == 0 and json.loads(verified.stdout)["overall"]["accuracy"] == 0.5
    imported = run_cli("import-answers", "--snapshot", "s", "--answers", str(answers), "--solver-name", "x",
                       "--format", "json")
    assert imported.exit_code == 0, imported.stderr
    assert max(seen) < MAX_REPLY_CHARS
