"""Instances: item i of the corpus (base) or of the program-and-transformation list (diverse, diverse-n).

The corpus is fixed, so the seed does not change the items; the item index alone does (generation is
trivially deterministic and item-wise).
"""

from __future__ import annotations

from typing import Any

from core.errors import UserError
from core.families.specs.corpus import diverse_items, diverse_n_items, entries, instance, selected
from core.families.specs.model import SpecsInstance, SpecsParams
from core.families.specs.transform import TRANSFORMATIONS


def items(params: dict[str, Any]) -> list[tuple[str, str]]:
    p = SpecsParams.model_validate(params)
    programs = selected(p.programs)
    known = {e["name"] for e in entries()}
    unknown = [name for name in programs if name not in known]
    if unknown:
        raise UserError(f"unknown corpus program(s): {', '.join(unknown)}", field="programs")
    if p.variants == "base":
        return [(e["name"], "none") for e in entries() if not programs or e["name"] in programs]
    if p.variants == "diverse-n":
        return list(diverse_n_items(programs))
    return list(diverse_items(programs))


def generate_one(params: dict[str, Any], seed: int, index: int) -> SpecsInstance:
    chosen = items(params)
    name, transformation = chosen[index % len(chosen)]
    entry = next(e for e in entries() if e["name"] == name)
    reference = entry["reference"]
    if transformation != "none":
        reference = TRANSFORMATIONS[transformation](reference, entry["function"]) or reference
    inst = instance(entry, reference, transformation)
    inst.params = dict(params)
    inst.seed = seed
    inst.index = index
    return inst.with_content_id()  # type: ignore[return-value]


def count(params: dict[str, Any]) -> int:
    return len(items(params))
