"""Verdicts (with the decisive path), local solvers and the §5.1 metrics."""

from __future__ import annotations

import pytest
from membership_listings import listing6_instance

from core.families.membership.model import path_text, probe_at
from core.families.membership.presets import PRESETS
from core.family import get_family

FAMILY = get_family("membership")


def _instances(name: str, count: int | None = None):
    preset = PRESETS[name]
    return list(FAMILY.generate(preset.params, preset.seed, count or preset.count))


@pytest.mark.parametrize("name", ["pag-demo", "pag-default"])
def test_oracle_and_baseline_verify_on_every_instance(name: str) -> None:
    rows = []
    for inst in _instances(name):
        for solver in ("oracle", "baseline"):
            response = FAMILY.local_solvers()[solver](inst, 1.0)
            answer, verdict = FAMILY.check(inst, response)
            assert verdict.correct and verdict.score == 1.0 and verdict.status == "correct", verdict
            assert verdict.expected is inst.ground_truth["answer"]
        rows.append((inst, verdict))
    summary = FAMILY.summarize(rows)
    assert summary["balanced_accuracy"] == 1.0 and summary["youden_j"] == 1.0
    assert summary["tpr"] == 1.0 and summary["tnr"] == 1.0 and summary["accuracy"] == 1.0
    assert summary["extraction_failures"] == 0


def test_random_baseline_is_about_half_and_deterministic() -> None:
    instances = _instances("pag-sweep-b")
    solver = FAMILY.local_solvers()["random"]
    responses = [solver(inst, 1.0) for inst in instances]
    assert responses == [solver(inst, 1.0) for inst in instances]  # same answer per instance, every run
    assert set(responses) == {"True", "False"}
    rows = [(inst, FAMILY.check(inst, r)[1]) for inst, r in zip(instances, responses, strict=True)]
    summary = FAMILY.summarize(rows)
    assert 0.45 < summary["balanced_accuracy"] < 0.55
    assert -0.1 < summary["youden_j"] < 0.1
    assert 0.4 < summary["tpr"] < 0.6 and 0.4 < summary["tnr"] < 0.6


def test_metrics_definitions_and_breakdown() -> None:
    instances = _instances("pag-demo")
    rows = []
    negatives = 0
    for inst in instances:
        # a biased solver: always True, except it emits garbage on every 4th negative
        negative = inst.meta["label"] == "negative"
        response = "no idea" if negative and negatives % 4 == 0 else "True"
        negatives += negative
        rows.append((inst, FAMILY.check(inst, response)[1]))
    summary = FAMILY.summarize(rows)
    assert summary["tpr"] == 1.0 and summary["tnr"] == 0.0
    assert summary["balanced_accuracy"] == 0.5 and summary["youden_j"] == 0.0
    assert summary["accuracy"] == 0.5
    assert summary["extraction_failures"] == 8
    assert summary["predicted_true_rate"] == 1.0
    metrics = FAMILY.metrics(rows)
    assert set(metrics["by"]) == {"depth", "I", "N_max", "b", "N_T", "label"}
    assert set(metrics["by"]["depth"]) == {"2", "3"}
    assert metrics["by"]["depth"]["3"]["n"] == 32
    positive = metrics["by"]["label"]["positive"]
    assert positive["tpr"] == 1.0 and positive["tnr"] is None and positive["balanced_accuracy"] is None


def test_extraction_failure_is_wrong_and_explained() -> None:
    inst = _instances("pag-demo", 1)[0]
    answer, verdict = FAMILY.check(inst, "True or False")
    assert not answer.ok
    assert not verdict.correct and verdict.status == "extraction_error" and verdict.got is None
    assert verdict.details["extraction_error"] == "contradictory"
    assert "extracted" in verdict.explanation


def test_wrong_answer_on_a_negative_shows_the_failing_terminal_term() -> None:
    negatives = [inst for inst in _instances("pag-demo", 16) if inst.meta["label"] == "negative"]
    assert negatives
    for inst in negatives:
        _, verdict = FAMILY.check(inst, "True")
        assert not verdict.correct and verdict.status == "wrong"
        assert verdict.expected is False and verdict.got is True
        answer_row, path_row = verdict.diff
        assert (answer_row.label, answer_row.expected, answer_row.got, answer_row.ok) == ("answer", "False", "True", False)
        path = verdict.details["decisive_path"]
        assert path[0]["path"] == [] and path[0]["function"] == "is_member_0"
        for outer, inner in zip(path, path[1:], strict=False):  # each call runs on a sub-list of the last
            assert inner["path"][:-1] == outer["path"] and outer["term_at"] == f"{inner['function']}({inner['argument']})"
        last = path[-1]
        # negatives fail only in a terminal formula at depth d
        assert last["terminal"] and last["value"] is False and len(last["path"]) == inst.meta["depth"]
        assert last["actual"] == probe_at(inst.probe, [*last["path"], inst.condition.functions[last["family"]]
                                          .branches[last["branch"]].terms[last["term"]].index])
        assert all(f["value"] is False for f in path)
        assert last["term_text"] in verdict.explanation and path_text(last["path"]) in verdict.explanation
        # the path explains the expected value (calls, deciding term, result); "got" is what the answer says
        assert path_row.expected.endswith(f"decided by {last['term_at']} => False")
        assert path_row.expected.startswith("is_member_0(") and path_row.got == "the answer says True"


@pytest.mark.parametrize("response", ["True", "False", "maybe"])
def test_decisive_path_row_is_ok_exactly_when_the_answer_is(response: str) -> None:
    # positives and negatives alike: a right "False" must not show a red path row, a wrong "True" must
    for inst in _instances("pag-demo", 8):
        _, verdict = FAMILY.check(inst, response)
        answer_row, path_row = verdict.diff
        assert path_row.label == "decisive path"
        assert path_row.ok is verdict.correct is answer_row.ok
        assert path_row.ok is (response == str(inst.ground_truth["answer"]))
    raises = listing6_instance([5, 20, 30])
    assert [row.ok for row in FAMILY.check(raises, "True")[1].diff] == [False, False]


def test_no_branch_and_type_error_cases() -> None:
    no_branch = listing6_instance([1, 2, 3, 4])
    _, verdict = FAMILY.check(no_branch, "False")
    assert verdict.correct
    assert verdict.details["decisive_path"] == [
        {"function": "is_member_0", "family": 0, "path": [], "argument": "x", "length": 4, "branch": None,
         "value": False}]
    assert "no branch for length 4" in verdict.explanation

    raises = listing6_instance([5, 20, 30])  # is_member_1(5): len() of an int
    assert FAMILY.baseline_response(raises, 1.0).startswith("The code raises TypeError")
    _, verdict = FAMILY.check(raises, "True")
    assert not verdict.correct and verdict.status == "invalid_instance" and verdict.expected is None
    assert "TypeError" in verdict.explanation


def test_true_result_is_explained_and_bad_ground_truth_flagged() -> None:
    inst = listing6_instance([3, -44], answer=False)  # the recorded answer is wrong: Listing 6 gives True
    _, verdict = FAMILY.check(inst, "True")
    assert verdict.correct and verdict.expected is True
    assert verdict.details["ground_truth_mismatch"] == {"recorded": False, "evaluated": True}
    assert "all 2 term(s) in 1 call(s) hold" in verdict.explanation


def test_instances_from_other_tools_work_without_meta_or_ground_truth() -> None:
    data = {"id": "external-1", "family": "membership", "condition": listing6_instance([1]).condition.model_dump(),
            "code": listing6_instance([1]).code, "probe": [3, -44], "meta": {"source": "elsewhere"}}
    inst = FAMILY.parse_instance(data)
    assert inst.id == "external-1"
    assert FAMILY.oracle_response(inst) == "True"  # no ground truth: falls back to evaluation
    assert FAMILY.check(inst, "True")[1].correct
    assert FAMILY.trace(inst).meta["result"] is True
    assert FAMILY.feature_values(inst)["depth"] is None
