"""The summary reports both conventions for unproved contracts and counts the verified
contracts left out of CR because their mutants could not be located."""

from __future__ import annotations

from specs_helpers import corpus_instance

from core.families.specs.metrics import summarize
from core.verdict import Verdict


def _verdict(status: str, **details) -> Verdict:
    return Verdict(correct=status == "success", score=float(status == "success"), status=status, details=details)


def test_both_conventions_and_cr_left_out_are_reported():
    inst = corpus_instance("max_of_two")
    rows = [
        (inst, _verdict("success", outcome_cex="success", completeness={"cr": 0.5})),
        (inst, _verdict("success", outcome_cex="success", completeness={
            "cr": None, "left_out": 4, "note": "mutants could not be located"})),
        (inst, _verdict("failure", outcome_cex="unknown", category="PostconditionFailure")),
        (inst, _verdict("failure", outcome_cex="failure", category="SyntaxError")),
        (inst, _verdict("unknown", outcome_cex="unknown", category="Timeout")),
        (inst, _verdict("error", outcome_cex="error", category="WpOutputMismatch")),
    ]
    out = summarize(rows)
    assert out["fr"] == 2 / 6 and out["unknown_rate"] == 1 / 6
    assert out["fr_cex"] == 1 / 6 and out["unknown_rate_cex"] == 2 / 6
    assert out["wp_mismatch"] == 1
    assert out["cr"] == 0.5 and out["cr_n"] == 1
    assert out["cr_left_out"] == 1 and out["cr_mutants_left_out"] == 4
