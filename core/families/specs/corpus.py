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
DIVERSE_N = asset("specs", "diverse-n.json")


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
def program_variants(name: str) -> dict[str, str]:
    """The annotated variants of one corpus program, by transformation."""
    entry = next(e for e in entries() if e["name"] == name)
    return variants(entry["reference"], entry["function"])


@functools.cache
def diverse_items(programs: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(program, transformation) pairs of the diverse set: each program, then its variants."""
    out: list[tuple[str, str]] = []
    for entry in entries():
        if programs and entry["name"] not in programs:
            continue
        out.append((entry["name"], "none"))
        out.extend((entry["name"], name) for name in program_variants(entry["name"]))
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



@functools.cache
def diverse_n_pairs() -> frozenset[tuple[str, str]]:
    """The (program, transformation) variants of Diverse-N, as chosen over the whole corpus and stored
    in assets/specs/diverse-n.json (`python -m core.families.specs.naturalness` rewrites it; a test
    checks that it matches the corpus and transformations of today)."""
    data = json.loads(DIVERSE_N.read_text(encoding="utf-8"))
    return frozenset((row["program"], row["transformation"]) for row in data["variants"] if row["kept"])


@functools.cache
def diverse_n_items(programs: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Diverse-N's (program, transformation) pairs: each chosen program, then its chosen variants."""
    chosen = diverse_n_pairs()
    kept_programs = {p for p, _ in chosen}
    return tuple((program, transformation) for program, transformation in diverse_items(programs)
                 if (program, transformation) in chosen or (transformation == "none" and program in kept_programs))
