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


def summarize(rows: list[tuple[Instance, Verdict]]) -> dict[str, Any]:
    n = len(rows)
    correct = sum(v.correct for _, v in rows)
    lo, hi = wilson(correct, n)
    out: dict[str, Any] = {"acc": correct / n if n else None, "acc_lo": lo, "acc_hi": hi}
    base = [v.correct for i, v in rows if _variant(i) == "base"]
    pure = [v.correct for i, v in rows if _variant(i) == "pure"]
    for key, xs in (("acc_base", base), ("acc_pure", pure)):
        k_lo, k_hi = wilson(sum(xs), len(xs))
        out[key] = _acc(xs) if xs else None
        out[key + "_lo"], out[key + "_hi"] = k_lo, k_hi
    out["rs"] = _rs(base, pure) if base and pure else None
    out["rs_lo"], out["rs_hi"] = bootstrap([base, pure], _rs) if base and pure else (None, None)
    categories = Counter(str(v.details.get("category")) for _, v in rows if not v.correct and v.details.get("category"))
    out["extraction_failures"] = sum(v.status == "extraction_error" for _, v in rows)
    for cat, count in sorted(categories.items()):
        out[f"errors_{cat}"] = count
    return out


def compare_metrics(pairs: list[tuple[dict[str, Any], list[tuple[Instance, Verdict]]]]) -> dict[str, Any]:
    """Across runs: Acc / Acc_pure / RS per solver (rows of both variants pooled over a solver's runs),
    and with exactly two solvers RE = ΔAcc_pure / ΔAcc (second minus first, §4.5), each with intervals."""
    by_solver: dict[str, dict[str, list[bool]]] = {}
    order: list[str] = []
    for run, rows in pairs:
        solver = str(run.get("solver") or run.get("id"))
        if solver not in by_solver:
            by_solver[solver] = {"base": [], "pure": []}
            order.append(solver)
        for inst, verdict in rows:
            by_solver[solver][_variant(inst)].append(verdict.correct)
    per: dict[str, Any] = {}
    for solver in order:
        base, pure = by_solver[solver]["base"], by_solver[solver]["pure"]
        entry: dict[str, Any] = {"n_base": len(base), "n_pure": len(pure)}
        for key, xs in (("acc", base), ("acc_pure", pure)):
            entry[key] = _acc(xs) if xs else None
            entry[key + "_lo"], entry[key + "_hi"] = wilson(sum(xs), len(xs))
        entry["rs"] = _rs(base, pure) if base and pure else None
        entry["rs_lo"], entry["rs_hi"] = bootstrap([base, pure], _rs) if base and pure else (None, None)
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
    return out
