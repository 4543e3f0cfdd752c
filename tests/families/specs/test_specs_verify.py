"""Consistency outcomes: success, failure (with a counterexample where one exists, syntax and typing
errors, edited code, no annotations) and unknown; failing goals mapped to source lines."""

from __future__ import annotations

import pytest
from specs_helpers import corpus_instance, fenced

from core.families.specs.extract import extract
from core.families.specs.verify import verify

pytestmark = pytest.mark.framac


def _check(inst, text):
    return verify(inst, extract(fenced(text), inst))


def test_reference_succeeds():
    inst = corpus_instance("max_of_two")
    verdict = _check(inst, inst.reference())
    assert verdict.correct and verdict.status == "success" and verdict.score == 1.0
    assert verdict.details["proved"] == verdict.details["total_goals"] > 0


def test_wrong_postcondition_is_a_failure_with_a_counterexample():
    inst = corpus_instance("max_array")
    wrong = inst.reference().replace("\\result >= a[k];", "\\result > a[k];")
    verdict = _check(inst, wrong)
    assert verdict.status == "failure" and not verdict.correct
    cex = verdict.details["counterexample"]
    assert cex["kind"] == "Postcondition" and cex["line"] == 4
    assert cex["category"] == "PostconditionFailure"
    assert verdict.diff[0].label == "counterexample" and "a=" in verdict.diff[0].got
    assert any(row.label.startswith("line 4:") for row in verdict.diff)


def test_wrong_loop_invariant_is_caught_at_run_time():
    inst = corpus_instance("sum_to_n")
    wrong = inst.reference().replace("2 * s == (i - 1) * i;", "2 * s == i * i;")
    verdict = _check(inst, wrong)
    assert verdict.status == "failure"
    assert verdict.details["counterexample"]["kind"] == "Invariant"
    assert verdict.details["category"].startswith("LoopInvariant")


def test_syntax_and_typing_errors_are_failures_with_their_line():
    inst = corpus_instance("abs_value")
    syntax = inst.reference().replace("ensures \\result >= 0;", "ensures \\result >= ;")
    verdict = _check(inst, syntax)
    assert verdict.status == "failure" and verdict.details["category"] == "SyntaxError"
    assert verdict.details["error_line"] == 3
    typing = inst.reference().replace("ensures \\result >= 0;", "ensures \\result >= undefined_name;")
    verdict = _check(inst, typing)
    assert verdict.status == "failure" and verdict.details["category"] == "TypeError"


def test_true_but_unprovable_contract_is_a_failure_and_unknown_without_a_counterexample():
    inst = corpus_instance("sum_to_n")
    # the loop invariant relating s and i is gone: nothing false, but the postcondition cannot be proved
    # (the provers answer without a time-out: the paper's failure; unknown under the counterexample convention)
    weak = inst.reference().replace("      loop invariant 2 * s == (i - 1) * i;\n", "")
    verdict = _check(inst, weak)
    assert verdict.status == "failure" and verdict.details["outcome_cex"] == "unknown", verdict.explanation
    assert "PostconditionFailure" in verdict.details["categories"]


def test_overflowing_contract_is_classified_as_arithmetic():
    inst = corpus_instance("add_three")
    loose = inst.reference().replace("requires -100000 <= a <= 100000;\n", "")
    verdict = _check(inst, loose)
    assert verdict.status in ("unknown", "failure")
    assert "ArithmeticOverflow" in verdict.details["categories"]


def test_edited_code_is_reported():
    inst = corpus_instance("max_of_two")
    edited = inst.reference().replace("if (a >= b)", "if (a > b)")
    answer = extract(fenced(edited), inst)
    assert answer.error == "code_modified" and "line" in answer.message
    verdict = verify(inst, answer)
    assert verdict.status == "failure" and verdict.details["category"] == "CodeModified"
    assert verdict.explanation and verdict.diff


def test_program_without_annotations_is_an_invalid_response():
    inst = corpus_instance("max_of_two")
    verdict = verify(inst, extract(fenced(inst.code), inst))
    assert verdict.status == "failure" and verdict.details["category"] == "InvalidResponse"


def test_wp_does_not_need_the_users_why3_configuration(tmp_path, monkeypatch):
    from core.families.specs import tools
    from core.families.specs.wp import WpOptions, run_wp

    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.why3.conf here
    monkeypatch.delenv("WHY3CONFIG", raising=False)
    monkeypatch.setattr(tools, "_CONF", None)
    inst = corpus_instance("sign_of")
    result = run_wp(inst.reference(), WpOptions(timeout_s=6))  # other options: not a cached run
    assert result.outcome == "proved"
    assert "memlimit = 4000" in tools.why3_config()
