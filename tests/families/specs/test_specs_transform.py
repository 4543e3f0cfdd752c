"""Robustness set-up: every semantic-preserving variant in the diverse preset behaves like its original
on the test and random inputs (differential testing), transformed references still prove, and the flip
rate is computed for the reference contracts."""

from __future__ import annotations

import pytest

from core.families.specs.corpus import diverse_items, entries
from core.families.specs.csyntax import strip_annotations
from core.families.specs.generator import generate_one
from core.families.specs.metrics import summarize
from core.families.specs.runtime import differential
from core.families.specs.transform import TRANSFORMATIONS, variants
from core.families.specs.verify import harness, verify
from core.verdict import Answer

# the programs some transformation applies to (a few, e.g. one-line sequential ones, have none)
NAMES = sorted({program for program, transformation in diverse_items(()) if transformation != "none"})


@pytest.mark.framac
@pytest.mark.parametrize("name", NAMES)
def test_variants_are_equivalent_by_differential_testing(name):
    entry = next(e for e in entries() if e["name"] == name)
    found = variants(entry["reference"], entry["function"])
    assert found
    inst = generate_one({"variants": "base", "programs": name}, 0, 0)
    sig, cases, reason = harness(inst)
    assert not reason
    programs = [inst.code] + [strip_annotations(v) for v in found.values()]
    table = differential(programs, inst.function, sig, cases)
    assert table is not None, "variants must compile"
    for transformation, row in zip(found, table[1:], strict=True):
        assert row == table[0], transformation
        assert all(out != "missing" for out in row)


def _one_per_transformation():
    picked = {}
    for program, transformation in diverse_items(()):
        if transformation != "none" and transformation not in picked:
            picked[transformation] = program
    return sorted(picked.items())


@pytest.mark.framac
@pytest.mark.parametrize(("transformation", "program"), _one_per_transformation())
def test_transformed_reference_proves_and_flip_rate_is_zero(transformation, program):
    assert transformation in TRANSFORMATIONS
    params = {"variants": "diverse", "programs": program}
    items = [generate_one(params, 0, i) for i in range(20)]
    original = next(i for i in items if i.meta["transformation"] == "none")
    variant = next(i for i in items if i.meta["transformation"] == transformation)
    assert variant.code != original.code
    rows = []
    for inst in (original, variant):
        answer = Answer.success({"annotated": inst.reference(), "annotations": 1})
        rows.append((inst, verify(inst, answer)))
    assert all(v.correct for _, v in rows), [v.explanation for _, v in rows]
    metrics = summarize(rows)
    assert metrics["flip_rate"] == 0.0 and metrics["flip_rate_n"] == 1
    assert metrics["flip_rate_pooled"] == 0.0 and metrics["flip_rate_pooled_n"] == 1
    assert metrics["sr_norm"] == 1.0 and metrics["fr_norm"] == 0.0
