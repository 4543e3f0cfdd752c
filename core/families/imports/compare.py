"""Two runs compared snippet by snippet (paper §5.1): a run on the original snippets against a run on
their transformed variants, with the Wilcoxon signed-rank test on per-snippet precision, recall and F1.

Pairing: a transformed instance names its untransformed one (`meta.variant_of`, the base instance's id),
so a snippet's key is `variant_of` when set, else its own id. Two runs are paired on the keys they
share: original vs transformed, two transformations of the same snippets, or two solvers on the same
snapshot. Verdicts that are errors of the environment or the provider (status `error`) leave their pair
out (counted). The test is scipy.stats.wilcoxon (two-sided; zero differences dropped, as Wilcoxon's
original method and scipy's default): W, the p-value, and whether p < 0.05. When every pair ties there is
nothing to test: p is 1.0.
"""

from __future__ import annotations

from typing import Any

from core.instance import Instance
from core.verdict import Verdict

ALPHA = 0.05
METRICS = ("precision", "recall", "f1")


def _key(instance: Instance) -> str:
    meta = instance.meta if isinstance(instance.meta, dict) else {}
    return str(meta.get("variant_of") or instance.id)


def _transform(instance: Instance) -> str:
    meta = instance.meta if isinstance(instance.meta, dict) else {}
    return str(meta.get("transform") or "none")


def _scores(verdict: Verdict) -> dict[str, float]:
    from core.families.imports.metrics import _counts

    _tp, _fp, _fn, p, r, f = _counts(verdict)
    return {"precision": p, "recall": r, "f1": f}


def wilcoxon(a: list[float], b: list[float]) -> dict[str, Any]:
    """Two-sided Wilcoxon signed-rank test of paired samples (b - a)."""
    from scipy.stats import wilcoxon as scipy_wilcoxon

    nonzero = sum(1 for x, y in zip(a, b, strict=True) if x != y)
    if nonzero == 0:
        return {"w": 0.0, "p": 1.0, "nonzero": 0}
    result = scipy_wilcoxon(b, a, zero_method="wilcox", alternative="two-sided")
    return {"w": float(result.statistic), "p": float(result.pvalue), "nonzero": nonzero}


def compare_metrics(pairs: list[tuple[dict[str, Any], list[tuple[Instance, Verdict]]]]) -> dict[str, Any]:
    """With exactly two runs that share snippets: per-snippet means and the signed-rank test per metric.
    A flat dict (the report's "family comparison" table shows it as metric/value rows)."""
    if len(pairs) != 2:
        return {}
    (run_a, rows_a), (run_b, rows_b) = pairs
    by_a = {_key(inst): (inst, v) for inst, v in rows_a}
    by_b = {_key(inst): (inst, v) for inst, v in rows_b}
    shared = sorted(set(by_a) & set(by_b))
    if not shared:
        return {}
    kept = [k for k in shared if by_a[k][1].status != "error" and by_b[k][1].status != "error"]
    transforms = [sorted({_transform(by[k][0]) for k in shared}) for by in (by_a, by_b)]
    ids = [str(run_a.get("id")), str(run_b.get("id"))]
    out: dict[str, Any] = {
        "wilcoxon_pairs": len(kept),
        "wilcoxon_pairs_left_out": len(shared) - len(kept),
        "wilcoxon_runs": f"{ids[1]} ({'+'.join(transforms[1])}) vs {ids[0]} ({'+'.join(transforms[0])})",
    }
    if not kept:
        return out
    scores_a = [_scores(by_a[k][1]) for k in kept]
    scores_b = [_scores(by_b[k][1]) for k in kept]
    significant = []
    for metric in METRICS:
        a = [s[metric] for s in scores_a]
        b = [s[metric] for s in scores_b]
        test = wilcoxon(a, b)
        out[f"{metric}_mean_a"] = sum(a) / len(a)
        out[f"{metric}_mean_b"] = sum(b) / len(b)
        out[f"{metric}_wilcoxon_w"] = test["w"]
        out[f"{metric}_wilcoxon_p"] = test["p"]
        out[f"{metric}_pairs_differing"] = test["nonzero"]
        if test["p"] < ALPHA:
            significant.append(metric)
    out["significant_at_0.05"] = ", ".join(significant) or "none"
    return out
