"""Robustness measures of the paper's §B.3 over a run's rows: the flip rate per program, the normalised
metrics M'(T), and both again on Diverse-N.

A row belongs to program P when its meta.program is P; it is P's original when meta.transformation is
"none" (the diverse presets list each program before its variants), else one of P's variants T.
- `flip_rate` (FlR as defined): for each program whose original verified, the share of its variants
  whose answer did not verify; then the mean over those programs, so each program weighs the same.
- `flip_rate_pooled`: the same pairs pooled (each (original, variant) pair weighs the same: programs
  with more variants weigh more); the figure this project reported before.
- `sr_norm`, `fr_norm`, `cr_norm` (M'(T) = sum over t in T of M(t) / |T|): per program the mean of
  success, failure and CR over its variants, then the mean over programs. CR counts only variants
  whose contract verified and has a CR, as the plain CR does.
- `dn_*`: the same on Diverse-N's variants (assets/specs/diverse-n.json) and their originals.
Each is returned as its list of per-program (or, pooled, per-pair) values; metrics.py gives the mean
and a bootstrap interval.
"""

from __future__ import annotations

from typing import Any

from core.instance import Instance
from core.verdict import Verdict

Row = tuple[Instance, Verdict]


def _cr(verdict: Verdict) -> float | None:
    done = verdict.details.get("completeness")
    if verdict.status != "success" or not isinstance(done, dict) or done.get("cr") is None:
        return None
    return float(done["cr"])


def _grouped(rows: list[Row]) -> tuple[dict[str, bool], dict[str, list[tuple[str, Verdict]]]]:
    """(original verified, by program; variants as (transformation, verdict), by program)."""
    originals: dict[str, bool] = {}
    variants: dict[str, list[tuple[str, Verdict]]] = {}
    for inst, verdict in rows:
        meta: dict[str, Any] = inst.meta if isinstance(inst.meta, dict) else {}
        program = meta.get("program")
        if not program:
            continue
        transformation = meta.get("transformation", "none")
        if transformation == "none":
            originals[program] = originals.get(program, False) or verdict.correct
        else:
            variants.setdefault(program, []).append((transformation, verdict))
    return originals, variants


def _measures(originals: dict[str, bool], variants: dict[str, list[tuple[str, Verdict]]]) -> dict[str, list[float]]:
    per_program: list[float] = []
    pooled: list[float] = []
    sr: list[float] = []
    fr: list[float] = []
    cr: list[float] = []
    for program, group in sorted(variants.items()):
        flips = [0.0 if v.correct else 1.0 for _, v in group]
        if originals.get(program):
            per_program.append(sum(flips) / len(flips))
            pooled.extend(flips)
        sr.append(sum(v.status == "success" for _, v in group) / len(group))
        fr.append(sum(v.status == "failure" for _, v in group) / len(group))
        crs = [c for c in (_cr(v) for _, v in group) if c is not None]
        if crs:
            cr.append(sum(crs) / len(crs))
    return {"flip_rate": per_program, "flip_rate_pooled": pooled, "sr_norm": sr, "fr_norm": fr, "cr_norm": cr}


def samples(rows: list[Row]) -> dict[str, list[float]]:
    """Each measure's values (see the module's text), in the order a summary shows them."""
    from core.families.specs.corpus import diverse_n_pairs  # the corpus module loads tree-sitter

    originals, variants = _grouped(rows)
    out = _measures(originals, variants)
    chosen = diverse_n_pairs()
    dn_programs = {p for p, _ in chosen}
    dn_variants = {p: [(t, v) for t, v in group if (p, t) in chosen] for p, group in variants.items()}
    dn = _measures({p: ok for p, ok in originals.items() if p in dn_programs},
                   {p: group for p, group in dn_variants.items() if group})
    out.update({f"dn_{name}": values for name, values in dn.items()})
    return out
