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
