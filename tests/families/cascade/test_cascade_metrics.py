"""Cascade metrics: Levenshtein, Edit_Sim and the summary over verdicts (pass@k is core.report's)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.cascade import CascadeFamily, metrics
from core.families.cascade.extract import extract
from core.families.cascade.metrics import edit_sim, levenshtein, summarize
from core.families.cascade.model import CascadeInstance, apply_cascade
from core.families.cascade.verify import verify
from core.verdict import Verdict


def make(inputs: list[str], cascade: list[tuple[str, str]], length: int, k: int = 3) -> CascadeInstance:
    return CascadeInstance(
        inputs=inputs,
        outputs=[apply_cascade(s, cascade) for s in inputs],
        ground_truth={"cascade": [list(r) for r in cascade]},
        meta={"alphabet": "abcdefghijklmnopqrstuvwxyz", "max_programs": k, "cascade_length": length, "category": "1000",
              "relations": {"feeding": 1, "bleeding": 0, "counter_feeding": 0, "counter_bleeding": 0}},
    )


def reference_lev(a: str, b: str) -> int:
    """Textbook full-matrix DP, no shortcuts: the oracle for the optimised version."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    return d[len(a)][len(b)]


@pytest.mark.parametrize(
    ("a", "b", "d"),
    [("", "", 0), ("abc", "", 3), ("", "ab", 2), ("kitten", "sitting", 3), ("abab", "dd", 4),
     ("flaw", "lawn", 2), ("abc", "abc", 0), ("xabcx", "xadcx", 1), ("aaaa", "aa", 2)],
)
def test_levenshtein_known_values(a: str, b: str, d: int) -> None:
    assert levenshtein(a, b) == d == levenshtein(b, a)


@settings(max_examples=300, deadline=None)
@given(st.text("abc", max_size=12), st.text("abc", max_size=12))
def test_levenshtein_agrees_with_the_textbook_dp(a: str, b: str) -> None:
    assert levenshtein(a, b) == reference_lev(a, b)


@settings(max_examples=100, deadline=None)
@given(st.text("abcdefg", min_size=60, max_size=80), st.text("abcdefg", min_size=60, max_size=80))
def test_levenshtein_agrees_beyond_one_machine_word(a: str, b: str) -> None:
    assert levenshtein(a, b) == reference_lev(a, b)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=20), st.text(max_size=20))
def test_levenshtein_agrees_on_any_characters(a: str, b: str) -> None:
    assert levenshtein(a, b) == reference_lev(a, b)


def test_edit_sim_values() -> None:
    inputs, outputs = ["abab", "cab"], ["dd", "dd"]  # baseline 4 + 3 = 7
    assert edit_sim(inputs, outputs, outputs) == 1.0
    assert edit_sim(inputs, outputs, inputs) == 0.0
    assert edit_sim(inputs, outputs, ["dd", "ddd"]) == pytest.approx(1 - 1 / 7)
    assert edit_sim(inputs, outputs, ["xxxxxxxxxx", "dd"]) == pytest.approx(1 - 10 / 7)


def test_edit_sim_zero_denominator() -> None:
    same = ["ab", "cde"]  # inputs == outputs: measured against sum len(out) = 5
    assert edit_sim(same, same, same) == 1.0
    assert edit_sim(same, same, ["", "cde"]) == pytest.approx(1 - 2 / 5)
    assert edit_sim(same, same, ["", ""]) == 0.0
    assert edit_sim([""], [""], ["xyz"]) == pytest.approx(1 - 3 / 1)


def test_pass_at_k_lives_only_in_core_report() -> None:
    # one estimator for every family: run reports use core.report.pass_at_k; a family copy would drift
    from core.report import pass_at_k

    assert not hasattr(metrics, "pass_at_k")
    assert pass_at_k(10, 3, 2) == pytest.approx(1 - 21 / 45)


SHORT = make(["abab", "cab"], [("ab", "c"), ("c", "d")], length=2)  # -> dd, dd ; baseline 7
LONG = make(["abc", "bca"], [("a", "b"), ("b", "c"), ("c", "d")], length=3)  # -> ddd, ddd


def block(*lines: str) -> str:
    return "```python\n" + "\n".join(lines) + "\n```\n"


def rows() -> list[tuple[CascadeInstance, Verdict]]:
    responses = [
        (SHORT, block('s = s.replace("ab", "c")', 's = s.replace("c", "d")')),  # correct, valid
        (SHORT, block('s = s.replace("ab", "c")') + block('s = s.replace("ab", "c")', 's = s.replace("", "d")')),
        (LONG, "no idea"),  # extraction error
    ]
    return [(inst, verify(inst, extract(text, inst))) for inst, text in responses]


def test_summarize_hand_computed() -> None:
    summary = summarize(rows())
    # row 2: last block = ab->c + identity: cc, cc -> 1 - 4/7, valid 1/2; first block the same outputs, valid 1/1
    assert summary["pass@1"] == pytest.approx(1 / 3)
    assert summary["edit_sim"] == pytest.approx((1 + (1 - 4 / 7) + 0) / 3)
    # Valid_Rate pooled as released: (2 + 1 + nothing) valid of (2 + 2 + nothing) programs
    assert summary["valid_rate"] == pytest.approx(3 / 4)
    assert summary["valid_rate_per_response"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert summary["pass@1_first"] == pytest.approx(1 / 3)
    assert summary["edit_sim_first"] == pytest.approx((1 + (1 - 4 / 7) + 0) / 3)
    assert summary["valid_rate_first"] == pytest.approx(3 / 3)
    assert summary["valid_rate_per_response_first"] == pytest.approx((1 + 1 + 0) / 3)
    # one token per example: the released Edit_Sim counts whole examples (2 of 2 wrong in row 2, 0 in row 3)
    assert summary["edit_sim_tokens"] == pytest.approx((1 + 0 + 0) / 3)
    assert summary["extraction_errors"] == 1.0
    for key in ("pass@1", "edit_sim", "edit_sim_tokens", "valid_rate", "valid_rate_per_response"):
        assert summary[f"{key}_lo"] <= summary[key] <= summary[f"{key}_hi"], key


def test_summarize_empty_and_foreign_verdicts() -> None:
    empty = summarize([])
    rates = ("pass@1", "edit_sim", "edit_sim_tokens", "valid_rate", "valid_rate_per_response")
    names = {*rates, *(f"{r}_first" for r in rates)}
    assert set(empty) == {*names, *(f"{n}_lo" for n in names), *(f"{n}_hi" for n in names),
                          "extraction_errors", "no_answer_within_budget"}
    assert all(empty[n] == 0.0 and empty[f"{n}_lo"] is None and empty[f"{n}_hi"] is None for n in names)
    foreign = Verdict(correct=True, score=0.75, status="valid")  # no details: falls back to correct/score
    summary = summarize([(SHORT, foreign)])
    assert summary["pass@1"] == 1.0 and summary["edit_sim"] == 0.75 and summary["edit_sim_first"] == 0.75


def test_family_metrics_break_down_by_cascade_length() -> None:
    report = CascadeFamily().metrics(rows())
    assert report["n"] == 3
    by_length = report["by"]["cascade_length"]
    assert by_length["2"]["n"] == 2 and by_length["2"]["pass@1"] == pytest.approx(0.5)
    assert by_length["3"]["extraction_errors"] == 1.0


def test_select_prefers_a_correct_sample_then_the_best_edit_sim() -> None:
    family = CascadeFamily()
    verdicts = [v for _i, v in rows()]
    assert family.select(verdicts) == 0
    assert family.select([verdicts[2], verdicts[1]]) == 1  # 1 - 4/7 beats the identity's 0
