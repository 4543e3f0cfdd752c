"""Robustness measures as the paper defines them (§B.3, Appendix E): the flip rate per program then
averaged (beside the pooled figure), the normalised metrics M'(T), and the Diverse-N subset chosen by
naturalness (a token trigram model's relative change in cross-entropy)."""

from __future__ import annotations

import json
import random

import pytest

from core.families.specs.corpus import DIVERSE_N, diverse_items, diverse_n_items, diverse_n_pairs
from core.families.specs.generator import count, generate_one
from core.families.specs.metrics import summarize
from core.families.specs.naturalness import MIN_VARIANTS, diverse_n_table, model_without, score, tokens
from core.families.specs.presets import PRESETS
from core.verdict import Verdict


def _verdict(status: str, cr: float | None = None) -> Verdict:
    details = {"completeness": {"cr": cr}} if cr is not None else {}
    return Verdict(correct=status == "success", score=1.0 if status == "success" else 0.0, status=status,
                   details=details)


def _rows(program: str, statuses: dict[str, str], crs: dict[str, float] | None = None):
    """The diverse preset's instances of one program, each with the verdict named by transformation."""
    params = {"variants": "diverse", "programs": program}
    crs = crs or {}
    out = []
    for i in range(count(params)):
        inst = generate_one(params, 0, i)
        t = inst.meta["transformation"]
        out.append((inst, _verdict(statuses[t], crs.get(t))))
    return out


def _transformations(program: str) -> list[str]:
    return [t for _, t in diverse_items((program,)) if t != "none"]


def test_the_two_programs_used_here_have_the_variants_the_figures_assume():
    assert _transformations("all_distinct") == ["rename_variables", "for_to_while", "while_to_for", "switch_relation",
                                                "switch_equal", "unary_to_add"]
    assert len(_transformations("abs_array")) == 4
    kept = {t for p, t in diverse_n_pairs() if p == "all_distinct"}
    assert kept == {"while_to_for", "switch_equal", "unary_to_add"}
    assert not any(p == "abs_array" for p, _ in diverse_n_pairs())


def test_flip_rate_is_per_program_then_averaged_with_the_pooled_figure_beside_it():
    a = _rows("all_distinct", {"none": "success", "rename_variables": "failure", "for_to_while": "unknown",
                               "while_to_for": "success", "switch_relation": "success", "switch_equal": "failure",
                               "unary_to_add": "success"},
              {"while_to_for": 0.5, "switch_relation": 1.0, "unary_to_add": 0.9})
    b_names = _transformations("abs_array")
    b = _rows("abs_array", {"none": "success", b_names[0]: "failure", **{t: "success" for t in b_names[1:]}})
    # a program whose original failed: no flips counted, but its variants count in M'(T)
    c_names = _transformations("bubble_sort")
    c = _rows("bubble_sort", {"none": "failure", **{t: "success" for t in c_names}})
    m = summarize(a + b + c)
    assert m["flip_rate"] == pytest.approx((3 / 6 + 1 / 4) / 2) and m["flip_rate_n"] == 2
    assert m["flip_rate_pooled"] == pytest.approx(4 / 10) and m["flip_rate_pooled_n"] == 10
    # M'(T): per program over its variants, then over programs
    assert m["sr_norm"] == pytest.approx((3 / 6 + 3 / 4 + 1.0) / 3) and m["sr_norm_n"] == 3
    assert m["fr_norm"] == pytest.approx((2 / 6 + 1 / 4 + 0.0) / 3)
    assert m["cr_norm"] == pytest.approx(0.8) and m["cr_norm_n"] == 1
    # Diverse-N: only all_distinct's three kept variants (and bubble_sort's kept ones) count
    assert m["dn_flip_rate"] == pytest.approx(1 / 3) and m["dn_flip_rate_n"] == 1
    kept_c = sum(1 for p, _ in diverse_n_pairs() if p == "bubble_sort")
    assert kept_c >= MIN_VARIANTS
    assert m["dn_sr_norm"] == pytest.approx((2 / 3 + 1.0) / 2) and m["dn_sr_norm_n"] == 2
    assert m["dn_cr_norm"] == pytest.approx((0.5 + 0.9) / 2)
    for name in ("flip_rate", "flip_rate_pooled", "sr_norm", "dn_flip_rate"):
        assert m[f"{name}_lo"] <= m[name] <= m[f"{name}_hi"]


def test_a_base_run_has_the_measures_named_and_empty():
    m = summarize([(generate_one({"variants": "base", "programs": "abs_array"}, 0, 0), _verdict("success"))])
    for name in ("flip_rate", "flip_rate_pooled", "sr_norm", "fr_norm", "cr_norm", "dn_flip_rate", "dn_sr_norm"):
        assert name in m and m[name] is None and m[f"{name}_n"] == 0


def test_diverse_n_file_matches_the_corpus_and_transformations_of_today():
    stored = json.loads(DIVERSE_N.read_text(encoding="utf-8"))
    fresh = diverse_n_table()
    assert [(r["program"], r["transformation"], r["kept"]) for r in stored["variants"]] == \
        [(r["program"], r["transformation"], r["kept"]) for r in fresh["variants"]]  # type: ignore[index]
    for old, new in zip(stored["variants"], fresh["variants"], strict=True):  # type: ignore[arg-type]
        assert old["score"] == pytest.approx(new["score"], abs=1e-6)


def test_diverse_n_keeps_the_more_natural_half_for_programs_with_three_or_more():
    rows = json.loads(DIVERSE_N.read_text(encoding="utf-8"))["variants"]
    kept = [r for r in rows if r["kept"]]
    assert 0 < len(kept) <= (len(rows) + 1) // 2
    per_program: dict[str, int] = {}
    for r in kept:
        per_program[r["program"]] = per_program.get(r["program"], 0) + 1
    assert min(per_program.values()) >= MIN_VARIANTS
    ranked = sorted(rows, key=lambda r: r["score"])
    cut = ranked[(len(rows) + 1) // 2 - 1]["score"]
    assert all(r["score"] <= cut for r in kept)


def test_naturalness_scores_a_program_against_the_rest_of_the_corpus():
    entry_code = "int f(int a, int b) {\n  int s = a + b;\n  return s;\n}\n"
    assert score("no_such_program", entry_code, entry_code) == 0.0
    toks = tokens(entry_code)
    shuffled = toks[:]
    random.Random(1).shuffle(shuffled)
    model = model_without("no_such_program")
    assert model.cross_entropy(shuffled) > model.cross_entropy(toks)
    # leave-one-out: a corpus program is less predictable once its own text is left out
    from core.families.specs.corpus import entries
    from core.families.specs.csyntax import strip_annotations

    code = strip_annotations(next(e for e in entries() if e["name"] == "bubble_sort")["reference"])
    assert model_without("bubble_sort").cross_entropy(tokens(code)) > model_without("x").cross_entropy(tokens(code))


def test_diverse_n_preset_lists_each_kept_program_before_its_kept_variants():
    items = diverse_n_items(())
    assert PRESETS["formalbench-c-diverse-n"].count == len(items)
    assert {(p, t) for p, t in items if t != "none"} == set(diverse_n_pairs())
    params = {"variants": "diverse-n", "programs": ""}
    seen: set[str] = set()
    for i in range(len(items)):
        inst = generate_one(params, 0, i)
        program, transformation = inst.meta["program"], inst.meta["transformation"]
        if transformation == "none":
            seen.add(program)
        else:
            assert program in seen and (program, transformation) in diverse_n_pairs()


def test_the_report_shows_both_flip_rates_and_the_normalised_metrics_named():
    from rich.console import Console

    from core.report_view import summary_table

    names = _transformations("all_distinct")
    m = summarize(_rows("all_distinct", {"none": "success", names[0]: "failure",
                                         **{t: "success" for t in names[1:]}}))
    console = Console(width=200, record=True)
    console.print(summary_table("overall", m))
    text = console.export_text()
    for name in ("flip_rate ", "flip_rate_pooled", "sr_norm", "fr_norm", "cr_norm", "dn_flip_rate",
                 "dn_flip_rate_pooled", "dn_sr_norm"):
        assert name in text
    assert "0.1667 [" in text  # 1 of 6 variants flipped, with its interval
