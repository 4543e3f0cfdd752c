"""Verification: run the extracted cascade, first vs last block, truncation to K, identity for invalid."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.cascade.extract import extract
from core.families.cascade.model import CascadeInstance, apply_cascade
from core.families.cascade.verify import apply_capped, length_limit, verify
from core.verdict import Answer, Verdict


def make(inputs: list[str], outputs: list[str] | None = None, cascade: list[tuple[str, str]] | None = None,
         k: int = 3) -> CascadeInstance:
    cascade = cascade if cascade is not None else [("ab", "c"), ("c", "d")]
    return CascadeInstance(
        inputs=inputs,
        outputs=outputs if outputs is not None else [apply_cascade(s, cascade) for s in inputs],
        ground_truth={"cascade": [list(r) for r in cascade]},
        meta={"alphabet": "abcdefghijklmnopqrstuvwxyz", "max_programs": k, "cascade_length": len(cascade), "category": "1000", "relations": {"feeding": 1}},
    )


def response(*lines: str) -> str:
    return "```python\n" + "\n".join(lines) + "\n```"


def line(lhs: str, rhs: str) -> str:
    return f's = s.replace("{lhs}", "{rhs}")'


# abab -> cc -> dd ; cab -> cc -> dd ; xyz -> xyz
INSTANCE = make(["abab", "cab", "xyz"])


def test_correct_cascade_is_correct_valid_and_exact() -> None:
    verdict = verify(INSTANCE, extract(response(line("ab", "c"), line("c", "d"))))
    assert (verdict.correct, verdict.score, verdict.status) == (True, 1.0, "valid")
    assert verdict.expected == ["dd", "dd", "xyz"] == verdict.got
    assert all(row.ok and not row.got_spans for row in verdict.diff)


def test_a_different_but_equivalent_cascade_is_correct() -> None:
    verdict = verify(INSTANCE, extract(response(line("ab", "d"), line("c", "d"))))
    assert verdict.correct and verdict.score == 1.0


def test_edit_sim_on_a_hand_computed_partial_answer() -> None:
    # sum lev(in, out) = lev(abab, dd) 4 + lev(cab, dd) 3 + 0 = 7
    # predicted: cc, cc, xyz -> sum lev(pred, out) = 2 + 2 + 0 = 4 -> 1 - 4/7
    verdict = verify(INSTANCE, extract(response(line("ab", "c"))))
    assert not verdict.correct
    assert verdict.got == ["cc", "cc", "xyz"]
    assert verdict.score == pytest.approx(1 - 4 / 7)
    assert verdict.details["lev"] == [2, 2, 0]


def test_edit_sim_is_negative_when_worse_than_doing_nothing() -> None:
    # b -> qq: abab -> aqqaqq (lev to dd 6), cab -> caqq (4), xyz (0): 1 - 10/7
    verdict = verify(INSTANCE, extract(response(line("b", "qq"))))
    assert verdict.got == ["aqqaqq", "caqq", "xyz"]
    assert verdict.score == pytest.approx(1 - 10 / 7) and verdict.score < 0


def test_zero_denominator_uses_output_length() -> None:
    same = make(["ab", "cd"], outputs=["ab", "cd"], cascade=[("q", "r")])
    exact = verify(same, extract(response(line("q", "r"))))
    assert exact.correct and exact.score == 1.0
    # predicted: "xb", "cd" -> lev 1 over sum len(out) = 4
    wrong = verify(same, extract(response(line("a", "x"))))
    assert not wrong.correct and wrong.score == pytest.approx(1 - 1 / 4)


def test_zero_denominator_with_empty_outputs_does_not_divide_by_zero() -> None:
    empty = make(["", ""], outputs=["", ""], cascade=[("q", "r")])
    assert verify(empty, extract(response(line("q", "r")))).score == 1.0


def test_first_and_last_block_are_both_scored_last_is_primary() -> None:
    text = response(line("ab", "c")) + "\nOn reflection:\n" + response(line("ab", "c"), line("c", "d"))
    verdict = verify(INSTANCE, extract(text))
    assert verdict.correct and verdict.score == 1.0
    d = verdict.details
    assert (d["pass@1"], d["pass@1_first"]) == (1.0, 0.0)
    assert d["edit_sim_first"] == pytest.approx(1 - 4 / 7)
    assert d["predicted_first"] == ["cc", "cc", "xyz"]
    assert "First code block: 1 of 3 match" in verdict.explanation


def test_programs_beyond_k_are_ignored() -> None:
    # K = 2: the third program would break every output
    text = response(line("ab", "c"), line("c", "d"), line("d", "zz"))
    verdict = verify(make(["abab", "cab", "xyz"], k=2), extract(text))
    assert verdict.correct and verdict.status == "valid"
    assert verdict.details["truncated"] == 1 and verdict.details["n_evaluated"] == 2
    assert verdict.details["valid_rate"] == 1.0
    assert "only the first 2" in verdict.explanation


@pytest.mark.parametrize(
    ("bad", "error", "words"),
    [
        ('s = s.replace("", "c")', "empty_lhs", "empty lhs"),
        ('s = s.replace(x, "c")', "non_string", "not a string literal"),
        ('s = s.replace("ab", "c", 1)', "arity", "exactly two"),
        ('s = re.sub("ab", "c", s)', "not_replace", "not a str.replace"),
        ('s = s.replace("ab" "c"', "unparsable", "not parsable"),
    ],
)
def test_each_invalid_program_is_the_identity_and_counts_against_valid_rate(bad: str, error: str, words: str) -> None:
    verdict = verify(INSTANCE, extract(response(bad, line("c", "d"))))
    # the identity then c->d: abab stays, cab -> dab, xyz
    assert verdict.got == ["abab", "dab", "xyz"]
    assert verdict.status == "invalid" and not verdict.correct
    assert verdict.details["valid_rate"] == 0.5
    assert verdict.details["cascade"] == [None, ["c", "d"]]
    assert verdict.details["invalid"][0]["rule"] == 1 and verdict.details["invalid"][0]["error"] == error
    assert "Rule 1" in verdict.explanation and words in verdict.explanation and "identity" in verdict.explanation


def test_valid_rate_counts_only_the_evaluated_programs() -> None:
    text = response(line("ab", "c"), 's = s.replace("", "x")', line("c", "d"), 's = s.replace(1, 2)')
    verdict = verify(make(["abab"], k=3), extract(text))
    assert verdict.details["valid_rate"] == pytest.approx(2 / 3) and verdict.details["n_invalid"] == 1


def test_no_code_block_is_an_extraction_error_with_the_identity() -> None:
    answer = extract("The answer is to replace ab with c.")
    verdict = verify(INSTANCE, answer)
    assert verdict.status == "extraction_error" and not verdict.correct
    assert verdict.got == INSTANCE.inputs and verdict.score == 0.0
    d = verdict.details
    assert d["extraction_error"] is True and d["valid_rate"] == 0.0 == d["valid_rate_first"]
    assert "no Markdown code block" in verdict.explanation


def test_extraction_error_is_wrong_even_when_the_identity_would_match() -> None:
    same = make(["ab"], outputs=["ab"], cascade=[("q", "r")])
    assert not verify(same, extract("nothing")).correct


def test_an_empty_block_is_invalid_with_valid_rate_zero() -> None:
    verdict = verify(INSTANCE, extract(response("# nothing to do")))
    assert verdict.status == "invalid" and verdict.details["valid_rate"] == 0.0
    assert "no replace program" in verdict.explanation


def test_diff_marks_the_differing_characters() -> None:
    inst = make(["abxab"], cascade=[("ab", "c"), ("x", "y")])  # -> cyc
    verdict = verify(inst, extract(response(line("ab", "c"))))  # -> cxc
    row = verdict.diff[0]
    assert (row.label, row.expected, row.got, row.ok) == ("abxab", "cyc", "cxc", False)
    assert row.expected_spans == [(1, 2)] and row.got_spans == [(1, 2)]
    assert row.note == "example 1: lev 1"
    assert 'Example 1 "abxab": expected "cyc", got "cxc"' in verdict.explanation


def test_one_diff_row_per_example() -> None:
    verdict = verify(INSTANCE, extract(response(line("ab", "c"))))
    assert [r.label for r in verdict.diff] == INSTANCE.inputs
    assert [r.ok for r in verdict.diff] == [False, False, True]
    assert verdict.explanation.startswith("1 of 3 outputs match")


def test_exploding_cascade_is_cut_not_exponential() -> None:
    inst = make(["aa", "ba"], k=30)
    inst.meta["max_side"] = 4  # "aaaa" is a valid side here
    text = response(*[line("a", "aaaa")] * 30)
    verdict = verify(inst, extract(text))
    limit = length_limit(inst)
    assert all(len(s) <= limit for s in verdict.got)
    assert verdict.details["overflow"] == [0, 1]
    assert "was cut" in verdict.diff[0].note and verdict.score < 0


def test_apply_capped_matches_replace_below_the_limit_and_cuts_above() -> None:
    assert apply_capped("abab", "ab", "x", 100) == ("xx", False)
    assert apply_capped("abab", "q", "x", 1) == ("abab", False)
    assert apply_capped("aaa", "a", "bbbb", 6) == ("bbbbbb", True)
    text, cut = apply_capped("a" * 10, "a", "b" * 1_000_000, 50)
    assert cut and text == "b" * 50


def test_hand_built_answers_are_accepted() -> None:
    assert verify(INSTANCE, Answer.success([["ab", "c"], ["c", "d"]])).correct
    junk = verify(INSTANCE, Answer.success({"something": "else"}))
    assert junk.status == "extraction_error" and not junk.correct
    mixed = verify(make(INSTANCE.inputs, k=4), Answer.success([["ab", "c"], ["", "x"], 7, ["c", "d"]]))
    assert mixed.correct and mixed.details["valid_rate"] == pytest.approx(2 / 4)


def test_stored_validity_flags_are_rechecked() -> None:
    forged = {"lhs": "", "rhs": "x", "valid": True, "error": None, "source": "replace('', 'x')"}
    answer = Answer.success({"first": {"programs": [forged]}, "last": {"programs": [forged]}})
    verdict = verify(INSTANCE, answer)
    assert verdict.status == "invalid" and verdict.details["invalid"][0]["error"] == "empty_lhs"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([
    "```", "```python\n", "\n", "s = s.replace(", '"ab"', '"c"', '""', "'d'", ", ", ")", "x", "1", ".replace(",
    "<think>", "</think>", "s = re.sub(", "#", "\\", "\ud800", "aaaa",
]), max_size=30).map("".join))
def test_verify_never_raises_on_any_extraction_result(text: str) -> None:
    verdict = verify(INSTANCE, extract(text, INSTANCE))
    assert verdict.status in {"valid", "invalid", "extraction_error"}
    assert len(verdict.got) == len(INSTANCE.outputs) == len(verdict.diff)
    assert verdict.correct == (verdict.got == INSTANCE.outputs and verdict.status != "extraction_error")
    assert verdict.score <= 1.0 and verdict.explanation
    assert Verdict.model_validate_json(verdict.model_dump_json()).got == verdict.got  # storable


@settings(max_examples=100, deadline=None)
@given(st.builds(Answer, ok=st.booleans(), value=st.recursive(
    st.none() | st.text(max_size=5) | st.integers() | st.booleans(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["first", "last", "programs", "lhs", "rhs", "valid", "error", "source"]), inner, max_size=4),
    max_leaves=12)))
def test_verify_never_raises_on_arbitrary_answers(answer: Answer) -> None:
    verdict = verify(INSTANCE, answer)
    assert verdict.status in {"valid", "invalid", "extraction_error"}
