"""TF-Bench's metrics (§3.4, §4.4–4.5): Acc, Acc_pure, RS = Acc_pure / Acc, RE between two runs,
error categories (Appendix G), each rate with a 95% interval (Wilson for proportions, a seeded
bootstrap over tasks for the ratios)."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from core.instance import Instance
from core.verdict import Verdict

BOOTSTRAP_ROUNDS = 1000


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float | None, float | None]:
    if n == 0:
        return None, None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap(groups: Sequence[Sequence[bool]], stat: Callable[..., float | None],
              rounds: int = BOOTSTRAP_ROUNDS, seed: int = 0) -> tuple[float | None, float | None]:
    """95% percentile interval of `stat(*resampled groups)`; each group resampled independently."""
    if any(len(g) == 0 for g in groups):
        return None, None
    rng = random.Random(seed)
    values: list[float] = []
    for _ in range(rounds):
        sample = [[g[rng.randrange(len(g))] for _ in g] for g in groups]
        v = stat(*sample)
        if v is not None and math.isfinite(v):
            values.append(v)
    if not values:
        return None, None
    values.sort()
    return values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]


def _acc(xs: Sequence[bool]) -> float:
    return sum(xs) / len(xs)


def _rs(base: Sequence[bool], pure: Sequence[bool]) -> float | None:
    a = _acc(base)
    return _acc(pure) / a if a else None


def _variant(instance: Instance) -> str:
    return str(getattr(instance, "variant", None) or "base")


def _lenient(verdict: Verdict) -> bool:
    """The lenient judgement (verdicts stored before there were two judgements have only one)."""
    return bool(verdict.details.get("correct_lenient", verdict.correct))


def _meta(instance: Instance) -> dict[str, Any]:
    return instance.meta if isinstance(getattr(instance, "meta", None), dict) else {}


def _valid(row: tuple[Instance, Verdict]) -> bool:
    """Not a released task GHC rejects at its stated type (core/families/typeinf/defects.py)."""
    return not _meta(row[0]).get("released_defect")


def _checked(rows: Sequence[tuple[Instance, Verdict]]) -> bool:
    """Whether the rows hold released tasks that GHC type-checked at import."""
    return any("released_checked" in _meta(i) for i, _ in rows)


def _split(rows: Sequence[tuple[Instance, Verdict]], judge: Callable[[Verdict], bool]) -> tuple[list[bool], list[bool]]:
    base = [judge(v) for i, v in rows if _variant(i) == "base"]
    pure = [judge(v) for i, v in rows if _variant(i) == "pure"]
    return base, pure


def _rates(out: dict[str, Any], suffix: str, base: list[bool], pure: list[bool]) -> None:
    for key, xs in ((f"acc{suffix}", base), (f"acc_pure{suffix}", pure)):
        out[key] = _acc(xs) if xs else None
        out[key + "_lo"], out[key + "_hi"] = wilson(sum(xs), len(xs))
    out[f"rs{suffix}"] = _rs(base, pure) if base and pure else None
    out[f"rs{suffix}_lo"], out[f"rs{suffix}_hi"] = bootstrap([base, pure], _rs) if base and pure else (None, None)


def summarize(rows: list[tuple[Instance, Verdict]]) -> dict[str, Any]:
    """Acc on the base rows and Acc_pure on the pure rows, never pooled (a run over one variant has the
    other None); RS = Acc_pure / Acc when both are there. `acc`, `acc_pure`, `rs` are the paper's
    judgement (TF-Bench's released post-processing); the `_lenient` ones read replies leniently."""
    base, pure = _split(rows, lambda v: v.correct)
    base_l, pure_l = _split(rows, _lenient)
    out: dict[str, Any] = {"acc": _acc(base) if base else None, "acc_pure": _acc(pure) if pure else None,
                           "rs": _rs(base, pure) if base and pure else None,
                           "acc_lenient": _acc(base_l) if base_l else None}
    _rates(out, "", base, pure)
    _rates(out, "_lenient", base_l, pure_l)
    out["n_base"], out["n_pure"] = len(base), len(pure)
    if not (base and pure):
        out["rs_missing"] = f"RS needs base and pure rows (here {len(base)} base, {len(pure)} pure)"
    if _checked(rows):
        # the paper's figures are over every task as released; these over the tasks GHC accepts
        valid = [r for r in rows if _valid(r)]
        base_v, pure_v = _split(valid, lambda v: v.correct)
        for key, xs in (("acc_valid", base_v), ("acc_pure_valid", pure_v)):
            out[key] = _acc(xs) if xs else None
            out[key + "_lo"], out[key + "_hi"] = wilson(sum(xs), len(xs))
        out["n_released_defects"] = len(rows) - len(valid)
    categories = Counter(str(v.details.get("category")) for _, v in rows if not v.correct and v.details.get("category"))
    out["extraction_failures"] = sum(v.status == "extraction_error" for _, v in rows)
    for cat, count in sorted(categories.items()):
        out[f"errors_{cat}"] = count
    return out


def compare_metrics(pairs: list[tuple[dict[str, Any], list[tuple[Instance, Verdict]]]]) -> dict[str, Any]:
    """Across runs: per solver, Acc on its base rows and Acc_pure on its pure rows (from all its runs:
    e.g. one run on the base snapshot, one on the pure) and RS = Acc_pure / Acc when it has both; with
    exactly two solvers, each with both variants, RE = ΔAcc_pure / ΔAcc of the second (in the order the
    runs are given: the TTC model) over the first (§4.5), each with intervals, and `re_solvers` naming
    them. When RS or RE cannot be computed, `rs_missing` / `re_missing` say why."""
    by_solver: dict[str, dict[str, list[bool]]] = {}
    order: list[str] = []
    for run, rows in pairs:
        solver = str(run.get("solver") or run.get("id"))
        if solver not in by_solver:
            by_solver[solver] = {"base": [], "pure": [], "base_lenient": [], "pure_lenient": [], "base_valid": [],
                                 "pure_valid": []}
            order.append(solver)
        for inst, verdict in rows:
            by_solver[solver][_variant(inst)].append(verdict.correct)
            by_solver[solver][_variant(inst) + "_lenient"].append(_lenient(verdict))
            if _checked(rows) and _valid((inst, verdict)):
                by_solver[solver][_variant(inst) + "_valid"].append(verdict.correct)
    per: dict[str, Any] = {}
    for solver in order:
        base, pure = by_solver[solver]["base"], by_solver[solver]["pure"]
        entry: dict[str, Any] = {"n_base": len(base), "n_pure": len(pure)}
        for key, xs in (("acc", base), ("acc_pure", pure), ("acc_lenient", by_solver[solver]["base_lenient"]),
                        ("acc_pure_lenient", by_solver[solver]["pure_lenient"]),
                        ("acc_valid", by_solver[solver]["base_valid"]),
                        ("acc_pure_valid", by_solver[solver]["pure_valid"])):
            if key.endswith("_valid") and not xs:
                continue  # no released tasks type-checked by GHC among its rows
            entry[key] = _acc(xs) if xs else None
            entry[key + "_lo"], entry[key + "_hi"] = wilson(sum(xs), len(xs))
        entry["rs"] = _rs(base, pure) if base and pure else None
        entry["rs_lo"], entry["rs_hi"] = bootstrap([base, pure], _rs) if base and pure else (None, None)
        if not (base and pure):
            entry["rs_missing"] = f"RS needs base and pure rows (here {len(base)} base, {len(pure)} pure)"
        per[solver] = entry
    out: dict[str, Any] = {"per_solver": per}
    if len(order) == 2:
        m, m_ttc = (by_solver[s] for s in order)
        if all(m[k] and m_ttc[k] for k in ("base", "pure")):
            def re(b0: Sequence[bool], p0: Sequence[bool], b1: Sequence[bool], p1: Sequence[bool]) -> float | None:
                delta = _acc(b1) - _acc(b0)
                return (_acc(p1) - _acc(p0)) / delta if delta else None

            groups = [m["base"], m["pure"], m_ttc["base"], m_ttc["pure"]]
            out["re"] = re(*groups)
            out["re_lo"], out["re_hi"] = bootstrap(groups, re)
            out["re_between"] = f"{order[1]} over {order[0]}"
            out["re_solvers"] = {"m": order[0], "m_ttc": order[1]}
        else:
            out["re_missing"] = "RE needs base and pure rows for both solvers"
    else:
        out["re_missing"] = (f"RE compares exactly two solvers (here {len(order)}: {', '.join(order)}), "
                             "each with runs on base and pure")
    return out
