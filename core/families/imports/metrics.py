"""Run-level metrics (paper §4.1): micro-averaged precision, recall and F1 over all FQNs of a run, the
per-snippet (macro) means, the exact-match rate, the compile rate, and extraction failures.

Every rate X comes with X_lo / X_hi, a 95% interval: Wilson for proportions of snippets (exact match,
compile rate), a seeded percentile bootstrap over snippets for the micro and macro scores (resampling
snippets, since FQNs of one snippet are not independent). Verdicts written elsewhere fall back to
`score` and `correct`.

The scores read the ground truth's wildcards as the packages they import (core/families/imports/verify.py);
`precision_literal`, `recall_literal`, `f1_literal` (micro) and `exact_match_literal` read them as
written, and `wildcard_truths` counts the snippets whose truth has a wildcard.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from core.instance import Instance
from core.verdict import Verdict

BOOTSTRAP = 1000
Z = 1.959963984540054


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bootstrap(rows: Sequence[Any], stat: Callable[[Sequence[Any]], float], reps: int = BOOTSTRAP) -> tuple[float, float]:
    if not rows:
        return (0.0, 1.0)
    rng = random.Random(12345)  # fixed: the same rows always give the same interval
    n = len(rows)
    values = sorted(stat([rows[rng.randrange(n)] for _ in range(n)]) for _ in range(reps))
    return (values[int(0.025 * (reps - 1))], values[int(0.975 * (reps - 1))])


def _counts(verdict: Verdict, suffix: str = "") -> tuple[int, int, int, float, float, float]:
    """(tp, fp, fn, precision, recall, f1) of one verdict; suffix "_literal" for the literal reading of
    wildcards (a verdict without those keys had no wildcard to read otherwise)."""
    d = verdict.details if isinstance(verdict.details, dict) else {}
    if suffix and f"tp{suffix}" not in d:
        suffix = ""
    try:
        tp, fp, fn = int(d[f"tp{suffix}"]), int(d[f"fp{suffix}"]), int(d[f"fn{suffix}"])
        return tp, fp, fn, float(d[f"precision{suffix}"]), float(d[f"recall{suffix}"]), float(d[f"f1{suffix}"])
    except (KeyError, TypeError, ValueError):
        s = float(verdict.score) if isinstance(verdict.score, int | float) else 0.0
        return (1 if verdict.correct else 0), 0, (0 if verdict.correct else 1), s, s, s


def _micro(rows: Sequence[tuple[int, int, int, float, float, float]]) -> tuple[float, float, float]:
    tp = sum(r[0] for r in rows)
    fp = sum(r[1] for r in rows)
    fn = sum(r[2] for r in rows)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def summarize(rows: list[tuple[Instance, Verdict]]) -> dict[str, Any]:
    counts = [_counts(v) for _, v in rows]
    n = len(rows)
    out: dict[str, Any] = {}
    p, r, f = _micro(counts)
    for name, value, index in (("precision", p, 0), ("recall", r, 1), ("f1", f, 2)):
        out[name] = value
        out[f"{name}_lo"], out[f"{name}_hi"] = bootstrap(counts, lambda rs, i=index: _micro(rs)[i])
    for name, index in (("macro_precision", 3), ("macro_recall", 4), ("macro_f1", 5)):
        out[name] = sum(c[index] for c in counts) / n if n else 0.0
        out[f"{name}_lo"], out[f"{name}_hi"] = bootstrap(counts, lambda rs, i=index: sum(c[i] for c in rs) / len(rs))
    exact = sum(1 for _, v in rows if v.correct)
    out["exact_match"] = exact / n if n else 0.0
    out["exact_match_lo"], out["exact_match_hi"] = wilson(exact, n)
    compiled = [v.details.get("compile", {}) for _, v in rows if isinstance(v.details, dict)]
    checked = [c for c in compiled if isinstance(c, dict) and c.get("checked")]
    ok = sum(1 for c in checked if c.get("ok"))
    out["compile_rate"] = ok / len(checked) if checked else None
    if checked:
        out["compile_rate_lo"], out["compile_rate_hi"] = wilson(ok, len(checked))
    out["fqns_expected"] = sum(c[0] + c[2] for c in counts)
    out["fqns_predicted"] = sum(c[0] + c[1] for c in counts)
    out["fqns_correct"] = sum(c[0] for c in counts)
    out["extraction_failures"] = sum(1 for _, v in rows if v.status == "extraction_error")
    # The ground truth's wildcards read literally (one entry each, matched only by the same wildcard).
    literal = [_counts(v, "_literal") for _, v in rows]
    for name, value in zip(("precision", "recall", "f1"), _micro(literal), strict=True):
        out[f"{name}_literal"] = value
    out["exact_match_literal"] = sum(1 for _, v in rows if _literal_correct(v)) / n if n else 0.0
    out["wildcard_truths"] = sum(1 for _, v in rows if _details(v).get("wildcard_matches"))
    return out


def _details(verdict: Verdict) -> dict[str, Any]:
    return verdict.details if isinstance(verdict.details, dict) else {}


def _literal_correct(verdict: Verdict) -> bool:
    value = _details(verdict).get("correct_literal")
    return bool(verdict.correct) if value is None else bool(value)

