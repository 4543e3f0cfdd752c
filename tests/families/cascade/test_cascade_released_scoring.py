"""`verify`/`report --scoring released`: the released PBEBench scorer's judgement, exactly, on every answer
shape, and reports that say which scoring produced them.

The workbench's own scoring differs from the released scorer on purpose in two places (it reads an
untagged fence and our statement format; it refuses an empty lhs). Under `--scoring released` every shape
below scores as the released rules do (`cascade_released_scorer.py`, an independent reading of the
released code kept with the tests), on the released Lite file's first 29 records: Pass@1, the valid and
invalid programs among the first K, the token-level Edit_Sim, for the last and the first ```python block,
and over samples the one with the highest reward."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import cascade_released_scorer as released_scorer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.cascade.prompt import format_released_response, format_response
from core.families.cascade.released import LITE_ALPHABET
from core.family import get_family

FIXTURE = Path(__file__).parent / "fixtures" / "released" / "adaptive_balanced_1008_complete.head29.jsonl"
FAMILY = get_family("cascade")
K = 5
INSTANCES = FAMILY.import_files(FIXTURE)


def released_list(items: list[str], fence: str = "```python") -> str:
    return f"Here is my answer.\n\n{fence}\n[" + ", ".join(items) + "]\n```\n"


def rule_strings(cascade: list[tuple[str, str]], quote: str = "'") -> list[str]:
    inner = "'" if quote == '"' else '"'
    return [f"{inner}replace({quote}{a}{quote}, {quote}{b}{quote}){inner}" for a, b in cascade]


def _noop(c: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [*c[:1], (c[0][1][:1] or "a", c[0][1][:1] or "a"), *c[1:]]


# The 14 answer shapes: the ground truth written four ways, then the ways an answer goes wrong.
SHAPES: dict[str, Callable[[list[tuple[str, str]]], str]] = {
    "ground truth, single quotes inside": lambda c: released_list(rule_strings(c)),
    "ground truth, double quotes inside": lambda c: released_list(rule_strings(c, '"')),
    "ground truth, bare calls in the list": lambda c: released_list([f"replace('{a}', '{b}')" for a, b in c]),
    "ground truth, our statement format": lambda c: format_response(c),
    "a rule dropped": lambda c: released_list(rule_strings(c[1:])),
    "rules reversed": lambda c: released_list(rule_strings(c[::-1])),
    "a no-op rule": lambda c: format_released_response(_noop(c)),
    "a too-long lhs": lambda c: released_list(rule_strings([(c[0][0] * 4, c[0][1]), *c[1:]])),
    "an upper-case symbol": lambda c: released_list(rule_strings([(c[0][0], "X"), ("X", c[0][1]), *c[1:]])),
    "a non-string element": lambda c: released_list(["1", *rule_strings(c)]),
    "no fence": lambda c: "The cascade is " + ", ".join(rule_strings(c)),
    "an untagged fence": lambda c: released_list(rule_strings(c), fence="```"),
    "an empty lhs": lambda c: released_list(rule_strings([("", "a"), *c])),
    "a wrong block, then the right one": lambda c: released_list(rule_strings(c[::-1])) + released_list(rule_strings(c)),
}


def _released(instance, response: str, which: str = "last") -> tuple[bool, int, int, float]:
    s = released_scorer.score(instance.inputs, instance.outputs, response, LITE_ALPHABET, K, which)
    return s.passed, s.valid, s.invalid, s.reward


def _scored(verdict, suffix: str = "") -> tuple[bool, int, int, float]:
    d = verdict.details
    n_evaluated = d["n_evaluated" if not suffix else "n_evaluated_first"]
    return (d[f"pass@1{suffix}"] == 1.0, d[f"n_valid{suffix}"], n_evaluated - d[f"n_valid{suffix}"],
            d[f"edit_sim_tokens{suffix}"])


def test_fourteen_shapes() -> None:
    assert len(SHAPES) == 14 and INSTANCES is not None and len(INSTANCES) == 29


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_every_shape_scores_as_the_released_scorer(shape: str) -> None:
    pairs = [(inst, SHAPES[shape](inst.cascade())) for inst in INSTANCES]
    for (inst, response), (_answer, verdict) in zip(pairs, FAMILY.check_scored(pairs, "released"), strict=True):
        where = (shape, inst.meta["released_line"], response)
        for suffix, which in (("", "last"), ("_first", "first")):
            ours, theirs = _scored(verdict, suffix), _released(inst, response, which)
            assert ours[:3] == theirs[:3], (*where, which)
            assert ours[3] == pytest.approx(theirs[3]), (*where, which)
        assert verdict.correct is _released(inst, response)[0] and verdict.score == pytest.approx(
            _released(inst, response)[3])
        assert verdict.details["scoring"] == "released" and "released PBEBench scorer" in verdict.explanation


def test_the_shapes_where_the_workbench_differs_are_judged_as_released() -> None:
    inst = INSTANCES[0]
    c = inst.cascade()
    for shape, released_pass in (("an untagged fence", False), ("ground truth, our statement format", False)):
        response = SHAPES[shape](c)
        assert FAMILY.check(inst, response)[1].correct is True  # the workbench reads these
        assert FAMILY.check_scored([(inst, response)], "released")[0][1].correct is released_pass
    empty = SHAPES["an empty lhs"](c)
    workbench = FAMILY.check(inst, empty)[1].details
    released = FAMILY.check_scored([(inst, empty)], "released")[0][1].details
    assert (workbench["n_valid"], workbench["n_invalid"]) == (len(c), 1)  # the workbench refuses it
    assert (released["n_valid"], released["n_invalid"]) == (len(c) + 1, 0)  # the released code applies it
    assert released["cascade"][0] == ["", "a"]


@pytest.mark.parametrize("block", [
    "[" * 199 + "'replace(\"a\", \"b\")'" + "]" * 199,  # deep, but within Python's parser: a list
    "[" * 201 + "]" * 201,  # past it: a SyntaxError, the empty list
    "{[1]: 2}",  # a TypeError the released scorer does not catch (it stops): the empty list here, noted
    "-" * 100_000 + "1",  # a MemoryError in the parser, likewise
])
def test_odd_blocks_read_as_the_released_reader_reads_them(block: str) -> None:
    inst = INSTANCES[0]
    response = f"```python\n{block}\n```"
    _answer, verdict = FAMILY.check_scored([(inst, response)], "released")[0]
    if block.startswith("{") or block.startswith("-"):
        assert "the released scorer stops here" in " ".join(verdict.details["released_notes"])
        assert verdict.details["n_evaluated"] == 0
    else:
        assert _scored(verdict)[:3] == _released(inst, response)[:3]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_the_released_scoring_never_raises(text: str) -> None:
    for response in (text, f"```python\n{text}\n```"):
        _answer, verdict = FAMILY.check_scored([(INSTANCES[1], response)], "released")[0]
        assert verdict.details["scoring"] == "released" and verdict.explanation


def test_an_unknown_scoring_is_a_clear_error() -> None:
    from core.errors import UserError

    with pytest.raises(UserError, match="no scoring 'paper'"):
        FAMILY.scoring("paper")
    with pytest.raises(UserError, match="no scoring 'released'"):
        get_family("membership").scoring("released")


# ---- through the CLI ---------------------------------------------------------------------------------
def run_cli(*args: str):
    from click.testing import CliRunner

    from core.cli import cli

    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_verify_scoring_released_over_every_shape_and_sample(tmp_path: Path) -> None:
    # 8 records x 14 shapes, as 14 samples each (the metrics' bootstrap intervals make more slow)
    chosen = INSTANCES[:8]
    instances = _write(tmp_path / "lite.jsonl", [i.to_json_dict() for i in chosen])
    answers = [{"id": inst.id, "response": make(inst.cascade())} for inst in chosen for make in SHAPES.values()]
    answers_path = _write(tmp_path / "answers.jsonl", answers)
    out = tmp_path / "verdicts.jsonl"
    result = run_cli("verify", "cascade", "--instances", str(instances), "--answers", str(answers_path),
                     "--scoring", "released", "--out", str(out), "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    by_id = {inst.id: inst for inst in INSTANCES}
    theirs = [_released(by_id[a["id"]], a["response"]) for a in answers]
    assert report["scoring"] == "released" and report["n"] == 8 * 14
    assert report["overall"]["pass@1"] == pytest.approx(sum(t[0] for t in theirs) / len(theirs))
    assert report["overall"]["edit_sim_tokens"] == pytest.approx(sum(t[3] for t in theirs) / len(theirs))
    valid, invalid = sum(t[1] for t in theirs), sum(t[2] for t in theirs)
    assert report["overall"]["valid_rate"] == pytest.approx(valid / (valid + invalid))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["correct"] for line in lines] == [t[0] for t in theirs]
    # over the 14 samples of each instance the released scorer takes the highest reward, the first of equals
    picked = []
    for inst in chosen:
        rewards = [t for a, t in zip(answers, theirs, strict=True) if a["id"] == inst.id]
        best = max(range(len(rewards)), key=lambda i: (rewards[i][3], -i))
        picked.append(rewards[best])
    assert report["selected"]["pass@1"] == pytest.approx(sum(p[0] for p in picked) / 8)
    assert report["selected"]["edit_sim_tokens"] == pytest.approx(sum(p[3] for p in picked) / 8)
    one = _write(tmp_path / "one.jsonl", answers[:1])
    text = run_cli("verify", "cascade", "--instances", str(instances), "--answers", str(one), "--scoring", "released")
    assert "(scoring: released)" in text.stdout
    default = json.loads(run_cli("verify", "cascade", "--instances", str(instances), "--answers",
                                 str(answers_path), "--format", "json").stdout)
    assert default["scoring"] == "workbench" and default["overall"]["pass@1"] > report["overall"]["pass@1"]
    bad = run_cli("verify", "cascade", "--instances", str(instances), "--answers", str(one), "--scoring", "paper")
    assert bad.exit_code == 2 and "no scoring 'paper'" in bad.stderr


def test_report_scoring_released_rescores_a_recorded_run(tmp_path: Path, log_db) -> None:
    imported = run_cli("snapshot", "import", str(FIXTURE), "--name", "lite29", "--family", "cascade")
    assert imported.exit_code == 0, imported.output
    shapes = list(SHAPES.values())
    answers = [{"id": inst.id, "response": shapes[i % len(shapes)](inst.cascade())} for i, inst in enumerate(INSTANCES)]
    run = run_cli("import-answers", "--snapshot", "lite29", "--answers", str(_write(tmp_path / "a.jsonl", answers)),
                  "--solver-name", "shapes", "--format", "json")
    assert run.exit_code == 0, run.output
    run_id = json.loads(run.stdout)["run"]
    by_id = {inst.id: inst for inst in INSTANCES}
    theirs = [_released(by_id[a["id"]], a["response"]) for a in answers]
    released = json.loads(run_cli("report", run_id, "--scoring", "released", "--format", "json").stdout)
    assert released["scoring"] == "released"
    overall = released["metrics"]["overall"]
    assert overall["pass@1"] == pytest.approx(sum(t[0] for t in theirs) / 29)
    assert overall["edit_sim_tokens"] == pytest.approx(sum(t[3] for t in theirs) / 29)
    assert released["counts"]["correct"] == sum(t[0] for t in theirs)
    assert released["pass_at_k"]["1"]["value"] == pytest.approx(sum(t[0] for t in theirs) / 29)
    workbench = json.loads(run_cli("report", run_id, "--format", "json").stdout)
    assert workbench["scoring"] == "workbench"
    assert workbench["metrics"]["overall"]["pass@1"] > overall["pass@1"]  # untagged fences, statements
    again = json.loads(run_cli("report", run_id, "--scoring", "released", "--format", "json").stdout)
    assert again["metrics"]["overall"] == overall, "cached apart from the default report"
    text = run_cli("report", run_id, "--scoring", "released")
    assert "scoring released" in text.stdout
    both = json.loads(run_cli("report", run_id, run_id + "", "--scoring", "released", "--format", "json").stdout)
    assert both["scoring"] == "released"
