"""The corpus written for this project (assets/specs/corpus): one annotated C file per program plus
index.json (function, control-flow class, description, test inputs, array lengths, value ranges)."""

from __future__ import annotations

import functools
import json
from typing import Any

from core.families.specs.csyntax import control_flow, loop_count, strip_annotations
from core.families.specs.model import SpecsInstance
from core.families.specs.transform import variants
from core.paths import asset

CORPUS = asset("specs", "corpus")


@functools.cache
def entries() -> tuple[dict[str, Any], ...]:
    data = json.loads((CORPUS / "index.json").read_text(encoding="utf-8"))
    out = []
    for entry in sorted(data, key=lambda e: e["name"]):
        entry = dict(entry)
        entry["reference"] = (CORPUS / f"{entry['name']}.c").read_text(encoding="utf-8")
        out.append(entry)
    return tuple(out)


def instance(entry: dict[str, Any], reference: str, transformation: str = "none") -> SpecsInstance:
    function = entry["function"]
    meta = {"control_flow": control_flow(reference, function), "loops": loop_count(reference, function),
            "program": entry["name"], "transformation": transformation}
    return SpecsInstance(code=strip_annotations(reference), description=entry["description"], function=function,
                         tests=entry["tests"], arrays=entry["arrays"], ranges=entry["ranges"],
                         ground_truth={"contract": reference}, meta=meta)


@functools.cache
def diverse_items(programs: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(program, transformation) pairs of the diverse set: each program, then its variants."""
    out: list[tuple[str, str]] = []
    for entry in entries():
        if programs and entry["name"] not in programs:
            continue
        out.append((entry["name"], "none"))
        out.extend((entry["name"], name) for name in variants(entry["reference"], entry["function"]))
    return tuple(out)


def selected(programs: str) -> tuple[str, ...]:
    return tuple(sorted(p.strip() for p in programs.split(",") if p.strip()))


def feature_values(inst: SpecsInstance) -> dict[str, Any]:
    """control_flow and loops from meta (computed from the code when a foreign instance lacks them)."""
    meta = inst.meta if isinstance(inst.meta, dict) else {}
    cf = meta.get("control_flow")
    loops = meta.get("loops")
    if cf is None:
        cf = control_flow(inst.code, inst.function)
    if loops is None:
        loops = loop_count(inst.code, inst.function)
    return {"control_flow": cf, "loops": loops, "transformation": meta.get("transformation", "none")}
