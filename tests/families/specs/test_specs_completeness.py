"""Completeness by mutation: equivalent-looking mutants are dropped by differential testing, the
reference kills its mutants, a weaker contract kills fewer."""

from __future__ import annotations

import pytest
from specs_helpers import corpus_instance

from core.families.specs.baseline import contract
from core.families.specs.mutate import apply, mutants, transfer
from core.families.specs.verify import completeness, live_mutants

pytestmark = pytest.mark.framac


def test_mutants_are_found_in_task_and_annotated_text_alike():
    inst = corpus_instance("max_array")
    found = mutants(inst.code, inst.function)
    assert {m.operator for m in found} >= {"ROR", "CRP", "UOI", "SDL"}
    located = transfer(found, inst.reference(), inst.function)
    assert located is not None
    for a, b in zip(found, located, strict=True):
        assert apply(inst.code, a).replace(" ", "") != inst.code.replace(" ", "")
        assert "/*@" in apply(inst.reference(), b)


def test_equivalent_mutant_is_dropped():
    inst = corpus_instance("max_array")
    found, live = live_mutants(inst)
    # `a[i] > m` -> `a[i] >= m` returns the same maximum on every input
    same = next(m for m in found if m.original == ">" and m.replacement == ">=")
    other = next(m for m in found if m.original == ">" and m.replacement == "<")
    assert same.ordinal not in live and other.ordinal in live


def test_reference_is_complete_and_a_weaker_contract_is_less_complete():
    inst = corpus_instance("max_of_three")
    ref = completeness(inst, inst.reference(), limit=6)
    assert ref["evaluated"] > 0 and ref["cr"] == 1.0
    weak = completeness(inst, contract(inst), limit=6)
    assert weak["evaluated"] == ref["evaluated"] and weak["cr"] < ref["cr"]


# A reference whose mutants all break it at run time, a weak contract (no postcondition: WP proves every
# mutant), and a weak contract whose loop invariant bounds nothing (WP rejects some mutants for a possible
# overflow that no input of the harness reaches, the run kills one): the rates must be WP's alone.
@pytest.mark.parametrize(("program", "weak"), [("max_of_three", False), ("max_of_three", True),
                                               ("count_positive", True)])
def test_running_mutants_first_gives_the_rate_wp_alone_gives(program, weak, monkeypatch):
    inst = corpus_instance(program)
    text = contract(inst) if weak else inst.reference()
    first = completeness(inst, text, limit=6)
    monkeypatch.setenv("SEMBENCH_SPECS_RUN_MUTANTS", "0")
    alone = completeness(inst, text, limit=6)
    assert first["cr"] == alone["cr"] and first["evaluated"] == alone["evaluated"] > 0
    assert [(r["ordinal"], r["killed"]) for r in first["rows"]] == [(r["ordinal"], r["killed"]) for r in alone["rows"]]
    by_test = [r for r in first["rows"] if r["killed_by"] == "test"]
    assert all(r["input"] and r["evidence"]["kind"] for r in by_test)
    assert first["wp_runs"] == first["evaluated"] - len(by_test) and alone["wp_runs"] == alone["evaluated"]
    if not weak:
        assert len(by_test) == first["evaluated"], "every mutant of the reference breaks it at run time"
    elif program == "count_positive":
        assert {r["killed_by"] for r in first["rows"]} == {"test", "wp", None}


def test_a_labelled_loop_invariant_no_longer_hides_the_rest_of_the_contract(monkeypatch):
    """increment_all's loop invariants name `\\at(a[k], Pre)`, which E-ACSL evaluates in the wrong state:
    their false alarm on the unmutated program discredited every run, so every mutant went to WP. Those
    invariants are left unchecked now; the mutants that break the rest are killed by their runs, at the
    rate WP alone gives."""
    inst = corpus_instance("increment_all")
    first = completeness(inst, inst.reference(), limit=4)
    assert first["run_first"]["ran"] and not first["run_first"]["reason"], first["run_first"]
    assert first["killed_by_test"] > 0
    monkeypatch.setenv("SEMBENCH_SPECS_RUN_MUTANTS", "0")
    alone = completeness(inst, inst.reference(), limit=4)
    assert [(r["ordinal"], r["killed"]) for r in first["rows"]] == [(r["ordinal"], r["killed"]) for r in alone["rows"]]
