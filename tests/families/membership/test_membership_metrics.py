"""Membership metrics: TPR, TNR, BA and Youden's J, each with a 95% interval."""

from __future__ import annotations

import pytest

from core import stats
from core.families.membership.metrics import summarize
from core.family import get_family
from core.verdict import Verdict

FAMILY = get_family("membership")


def rows(n_pos: int, right_pos: int, n_neg: int, right_neg: int) -> list:
    params = FAMILY.resolve_params("pag-default")
    instance = FAMILY.generate_one(params, 0, 0)
    out = []
    for truth, n, right in ((True, n_pos, right_pos), (False, n_neg, right_neg)):
        for i in range(n):
            correct = i < right
            said = truth if correct else not truth
            out.append((instance, Verdict(correct=correct, score=float(correct), status="correct" if correct else "wrong",
                                          expected=truth, got=said)))
    return out


@pytest.mark.parametrize("sizes", [(20, 15, 20, 8), (300, 240, 250, 100)])
def test_every_rate_has_an_interval_around_it(sizes: tuple[int, int, int, int]) -> None:
    n_pos, right_pos, n_neg, right_neg = sizes
    summary = summarize(rows(*sizes))
    assert summary["tpr"] == pytest.approx(right_pos / n_pos) and summary["tnr"] == pytest.approx(right_neg / n_neg)
    assert (summary["tpr_lo"], summary["tpr_hi"]) == stats.wilson(right_pos, n_pos)
    assert (summary["tnr_lo"], summary["tnr_hi"]) == stats.wilson(right_neg, n_neg)
    for rate in ("tpr", "tnr", "balanced_accuracy", "youden_j", "accuracy", "predicted_true_rate"):
        assert summary[f"{rate}_lo"] < summary[rate] < summary[f"{rate}_hi"], rate
    # J = 2 BA - 1, and so are its bounds
    assert summary["youden_j_lo"] == pytest.approx(2 * summary["balanced_accuracy_lo"] - 1)
    assert summary == summarize(rows(*sizes))  # deterministic


def test_a_missing_class_has_no_rate_and_no_interval() -> None:
    summary = summarize(rows(10, 7, 0, 0))
    assert summary["tnr"] is None and summary["tnr_lo"] is None and summary["balanced_accuracy_hi"] is None
    assert summary["tpr_lo"] is not None
