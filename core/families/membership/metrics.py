"""Binary-classification metrics of §5.1: TPR, TNR, balanced accuracy and Youden's J, with 95% intervals.

A row's true class is the verdict's evaluated result (falling back to the instance's ground truth). An
extraction failure counts as a wrong answer on its class and is also counted on its own. A rate whose
class is absent from the rows (e.g. TNR within the positive-label breakdown) is None, not a made-up 0.

Every rate has `<name>_lo` / `<name>_hi`: Wilson intervals for the proportions (TPR, TNR, accuracy, the
share of True answers) and, for balanced accuracy and Youden's J (averages of two proportions over
different rows), a percentile bootstrap over the rows (1000 resamples, seed 0) up to 200 rows and the
normal approximation beyond, var(BA) = (var(TPR) + var(TNR)) / 4 (core/stats.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from core import stats
from core.instance import Instance
from core.verdict import Verdict

RATES = ("tpr", "tnr", "balanced_accuracy", "youden_j", "accuracy", "predicted_true_rate")


def _truth(instance: Instance, verdict: Verdict) -> bool | None:
    if isinstance(verdict.expected, bool):
        return verdict.expected
    answer = instance.ground_truth.get("answer")
    return answer if isinstance(answer, bool) else None


def summarize(rows: list[tuple[Instance, Verdict]]) -> dict[str, Any]:
    pos = neg = tp = tn = failures = said_true = answered = 0
    outcomes: list[tuple[bool, bool]] = []  # (truth, correct) of the rows with a known truth
    for instance, verdict in rows:
        truth = _truth(instance, verdict)
        if verdict.status == "extraction_error":
            failures += 1
        elif isinstance(verdict.got, bool):
            answered += 1
            said_true += verdict.got
        if truth is None:
            continue
        outcomes.append((truth, bool(verdict.correct)))
        if truth:
            pos += 1
            tp += verdict.correct
        else:
            neg += 1
            tn += verdict.correct
    tpr = tp / pos if pos else None
    tnr = tn / neg if neg else None
    both = tpr is not None and tnr is not None
    ba = (tpr + tnr) / 2 if both else None  # type: ignore[operator]
    summary: dict[str, Any] = {
        "tpr": tpr,
        "tnr": tnr,
        "balanced_accuracy": ba,
        "youden_j": 2 * ba - 1 if ba is not None else None,
        "accuracy": (tp + tn) / (pos + neg) if pos + neg else None,
        "extraction_failures": failures,
        # the paper's bias finding: how often a solver says True, among the answers it gave
        "predicted_true_rate": said_true / answered if answered else None,
    }
    stats.with_interval(summary, "tpr", stats.wilson(tp, pos))
    stats.with_interval(summary, "tnr", stats.wilson(tn, neg))
    stats.with_interval(summary, "accuracy", stats.wilson(tp + tn, pos + neg))
    stats.with_interval(summary, "predicted_true_rate", stats.wilson(said_true, answered))
    lo, hi = balanced_accuracy_ci(outcomes) if both else (None, None)
    stats.with_interval(summary, "balanced_accuracy", (lo, hi))
    stats.with_interval(summary, "youden_j", (2 * lo - 1 if lo is not None else None,
                                              2 * hi - 1 if hi is not None else None))
    return summary


def balanced_accuracy_ci(outcomes: Sequence[tuple[bool, bool]]) -> tuple[float | None, float | None]:
    """95% interval of (TPR + TNR) / 2 from (truth, correct) rows."""
    if len(outcomes) <= stats.MAX_BOOTSTRAP_N:
        return stats.bootstrap_ci(outcomes, _balanced_accuracy)
    pos = [c for t, c in outcomes if t]
    neg = [c for t, c in outcomes if not t]
    tpr, tnr = sum(pos) / len(pos), sum(neg) / len(neg)
    half = 1.96 * math.sqrt(tpr * (1 - tpr) / len(pos) + tnr * (1 - tnr) / len(neg)) / 2
    ba = (tpr + tnr) / 2
    return max(0.0, ba - half), min(1.0, ba + half)


def _balanced_accuracy(sample: Sequence[tuple[bool, bool]]) -> float | None:
    pos = [c for t, c in sample if t]
    neg = [c for t, c in sample if not t]
    if not pos or not neg:  # a resample without one of the classes has no balanced accuracy
        return None
    return (sum(pos) / len(pos) + sum(neg) / len(neg)) / 2
