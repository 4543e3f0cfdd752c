"""The baseline's budget is an amount of work: the same answers beside CPU hogs, its own status when spent."""

from __future__ import annotations

import os
import subprocess
import sys

from core.families.cascade import baseline
from core.families.cascade.extract import NO_ANSWER_MARK
from core.families.cascade.metrics import summarize
from core.family import get_family

FAMILY = get_family("cascade")
# small budgets keep the test quick; the hard items spend theirs, the easy ones answer well within it
BUDGET_S = 0.05


def _items() -> list:
    lite = FAMILY.resolve_params("pbebench-lite")
    hard = FAMILY.resolve_params("pbebench")
    items = [FAMILY.generate_one(lite, 0, i) for i in range(10)]
    # PBEBench items of 20 rules (index 18 of each block of 19 lengths): far beyond 5,000 units of work
    items += [FAMILY.generate_one(hard, 0, i) for i in (18, 37)]
    return items


def _answers(items: list) -> list[str]:
    return [FAMILY.baseline_response(instance, BUDGET_S) for instance in items]


def test_same_answers_beside_cpu_hogs() -> None:
    items = _items()
    quiet = _answers(items)
    assert any(NO_ANSWER_MARK in a for a in quiet), "some item must spend its budget for the test to mean anything"
    assert any("```python" in a for a in quiet)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 2))]
    try:
        loaded = _answers(items)
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()
    assert loaded == quiet


def test_work_not_time_decides() -> None:
    inputs, outputs = ["abab", "cab"], ["dd", "dd"]
    assert baseline.solve(inputs, outputs, 3, 0.0) is None  # no work allowed: no answer
    found, why = baseline.solve_with_status(inputs, outputs, 3, 0.0, work=10_000)
    assert found is not None and why == "found"
    assert baseline.solve_with_status(inputs, outputs, 3, 0.0, work=0) == (None, "budget")
    assert baseline.work_for(2.0) == 2 * baseline.WORK_PER_SECOND


def test_out_of_budget_is_its_own_status_not_an_extraction_error() -> None:
    instance = _items()[-1]
    response = FAMILY.baseline_response(instance, 0.001)
    answer, verdict = FAMILY.check(instance, response)
    assert not answer.ok and answer.error == "no_answer_within_budget"
    assert verdict.status == "no_answer_within_budget" and not verdict.correct
    assert verdict.explanation and verdict.diff
    summary = summarize([(instance, verdict)])
    assert summary["no_answer_within_budget"] == 1.0 and summary["extraction_errors"] == 0.0


def test_baseline_proposes_only_valid_programs() -> None:
    # sides of at most max_side characters, from the instance's alphabet: the released validity rules
    lite = FAMILY.resolve_params("pbebench-lite")
    for index in range(6):
        instance = FAMILY.generate_one(lite, 3, index)
        answer, verdict = FAMILY.check(instance, FAMILY.baseline_response(instance, 5.0))
        assert verdict.correct and verdict.status == "valid", instance.id
        for lhs, rhs in verdict.details["cascade"]:
            assert len(lhs) <= 3 and len(rhs) <= 3 and set(lhs + rhs) <= set(instance.meta["alphabet"])
