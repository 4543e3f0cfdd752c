"""What the family kit checks, for specs: determinism, item-wise generation, prompts without spoilers,
rejected answers explain themselves, foreign instances, traces with focus and a reference."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from specs_helpers import corpus_instance, fenced

from core.family import get_family

FAM = get_family("specs")


def test_presets_and_generation_are_item_wise():
    presets = FAM.presets()
    assert presets["formalbench-c"].count >= 60 and presets["formalbench-c"].bundled
    assert presets["formalbench-c-diverse"].count > presets["formalbench-c"].count
    params = FAM.resolve_params("formalbench-c-diverse")
    batch = [i.to_json_dict() for i in FAM.generate(params, 3, 6)]
    assert batch[4] == FAM.generate_one(params, 3, 4).to_json_dict()
    assert len({b["id"] for b in batch}) == 6
    first = batch[0]
    assert set(first) >= {"code", "description", "function", "ground_truth", "meta"}
    assert set(first["ground_truth"]) == {"contract"} and {"control_flow", "loops"} <= set(first["meta"])


def test_generation_is_the_same_in_another_process():
    code = ("import json; from core.family import get_family; f = get_family('specs'); "
            "p = f.resolve_params('formalbench-c-diverse'); print(json.dumps(f.generate_one(p, 0, 7).to_json_dict()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "123"}).stdout
    here = FAM.generate_one(FAM.resolve_params("formalbench-c-diverse"), 0, 7).to_json_dict()
    assert json.loads(out) == here


def test_prompts_have_every_style_and_the_code():
    inst = corpus_instance("is_sorted")
    for style in FAM.prompt_styles:
        prompt = FAM.prompt(inst, style)
        text = " ".join(m["content"] for m in prompt.messages)
        assert inst.code.strip() in text and "a[k] <= a[k + 1]" not in text
    assert "count_zeros" in FAM.prompt(inst, "few-shot").messages[0]["content"]
    assert "weakest preconditions" in FAM.prompt(inst, "least-to-most").messages[1]["content"]
    assert "step by step" in FAM.prompt(inst, "chain-of-thought").messages[1]["content"]


@pytest.mark.framac
@pytest.mark.parametrize("reply", ["", "I cannot do this.", "```c\nint max_of_two(int a, int b) { return a; }\n```"])
def test_rejected_answers_explain_themselves(reply):
    inst = corpus_instance("max_of_two")
    answer, verdict = FAM.check(inst, reply)
    assert not verdict.correct and verdict.explanation and verdict.diff


@pytest.mark.framac
def test_perturbed_reference_is_rejected():
    inst = corpus_instance("max_of_two")
    answer, verdict = FAM.check(inst, fenced(inst.reference().replace("\\result >= b", "\\result < b")))
    assert verdict.status == "failure" and verdict.explanation and verdict.diff


@pytest.mark.framac
def test_foreign_instance_with_only_the_fixed_fields():
    ref = corpus_instance("max_of_three").reference()
    from core.families.specs.csyntax import strip_annotations

    data = {"id": "elsewhere-1", "family": "specs", "code": strip_annotations(ref), "description": "max of three",
            "function": "max_of_three", "ground_truth": {"contract": ref}, "meta": {"origin": "other tool"}}
    inst = FAM.parse_instance(data)
    assert inst.id == "elsewhere-1"
    assert FAM.feature_values(inst) == {"control_flow": "branching", "loops": 0, "transformation": "none"}
    answer, verdict = FAM.check(inst, FAM.oracle_response(inst))
    assert verdict.correct
    baseline = FAM.baseline_response(inst, 1.0)
    assert FAM.extract(baseline, inst).ok
    trace = FAM.trace(inst, answer)
    assert trace.reference is not None and trace.steps


@pytest.mark.framac
def test_trace_walks_the_goals_on_the_annotated_program():
    inst = corpus_instance("linear_search")
    wrong = inst.reference().replace("a[\\result] == x;", "a[\\result] != x;")
    answer = FAM.extract(fenced(wrong), inst)
    trace = FAM.trace(inst, answer)
    doc = trace.documents[0]
    lines = doc.text.count("\n") + 1
    goals = [s for s in trace.steps if s.kind == "goal"]
    assert goals and all(s.focus and s.focus.document == doc.name and 1 <= s.focus.line <= lines for s in trace.steps)
    assert [s.focus.line for s in goals] == sorted(s.focus.line for s in goals)
    assert any(r.name == "prover" for r in goals[0].state)
    assert any(s.kind == "counterexample" for s in trace.steps)
    assert trace.reference is not None and trace.divergence is not None
    assert all(s.data["status"] == "valid" for s in trace.reference.steps if s.kind == "goal")


@pytest.mark.framac
def test_baseline_is_a_floor_with_verified_contracts(monkeypatch):
    monkeypatch.setenv("SEMBENCH_SPECS_COMPLETENESS", "0")  # consistency only, in one pooled batch
    params = FAM.resolve_params("formalbench-c")
    insts = [FAM.generate_one(params, 0, i) for i in range(8)]
    results = [v for _, v in FAM.check_many([(i, FAM.baseline_response(i, 1.0)) for i in insts])]
    assert all("completeness" not in v.details for v in results)
    rate = sum(v.correct for v in results) / len(results)
    assert rate >= FAM.baseline_floor
