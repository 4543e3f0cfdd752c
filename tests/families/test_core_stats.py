"""core/stats.py: Wilson intervals, the deterministic bootstrap, and the cheap intervals summaries use."""

from __future__ import annotations

import random

import pytest

from core import stats


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [(0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (5, 10, 0.2366, 0.7634), (1, 100, 0.0018, 0.0545)],
)
def test_wilson_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got = stats.wilson(k, n)
    assert got[0] == pytest.approx(lo, abs=1e-4) and got[1] == pytest.approx(hi, abs=1e-4)


def test_wilson_of_nothing_is_no_interval() -> None:
    assert stats.wilson(0, 0) == (None, None)


def test_bootstrap_is_deterministic_and_brackets_the_statistic() -> None:
    rng = random.Random(1)
    values = [rng.random() for _ in range(80)]
    mean = sum(values) / len(values)
    first = stats.bootstrap_ci(values, lambda s: sum(s) / len(s), 500, seed=7)
    assert first == stats.bootstrap_ci(values, lambda s: sum(s) / len(s), 500, seed=7)
    assert first[0] < mean < first[1]
    assert stats.bootstrap_ci([3.0], lambda s: s[0], 100, 0) == (3.0, 3.0)
    assert stats.bootstrap_ci([], lambda s: 0.0, 100, 0) == (None, None)


def test_mean_and_ratio_intervals_switch_to_the_normal_approximation_for_large_samples() -> None:
    rng = random.Random(2)
    small = [rng.random() for _ in range(stats.MAX_BOOTSTRAP_N)]
    large = [rng.random() for _ in range(5 * stats.MAX_BOOTSTRAP_N)]
    for values in (small, large):
        lo, hi = stats.mean_ci(values)
        assert lo < sum(values) / len(values) < hi
    # the bootstrap and the normal approximation agree closely at the switch
    boot = stats.bootstrap_ci(small, lambda s: sum(s) / len(s))
    m = sum(small) / len(small)
    sd = (sum((v - m) ** 2 for v in small) / (len(small) - 1)) ** 0.5 / len(small) ** 0.5
    assert boot[0] == pytest.approx(m - 1.96 * sd, abs=0.01) and boot[1] == pytest.approx(m + 1.96 * sd, abs=0.01)
    nums, dens = [rng.randint(0, 5) for _ in range(1000)], [5] * 1000
    lo, hi = stats.ratio_ci(nums, dens)
    assert lo < sum(nums) / sum(dens) < hi
    assert stats.ratio_ci([0, 0], [0, 0]) == (None, None)


def _drawn(values, statistic, n_resamples=stats.DEFAULT_RESAMPLES, seed=stats.DEFAULT_SEED):  # noqa: ANN001, ANN202
    """The bootstrap as stated, every resample drawn: the reference for the shortcut below."""
    rng = random.Random(seed)
    drawn = [statistic(rng.choices(values, k=len(values))) for _ in range(n_resamples)]
    kept = sorted(float(v) for v in drawn if v is not None and v == v and abs(v) != float("inf"))
    if not kept:
        return None, None
    return stats._quantile(kept, 0.025), stats._quantile(kept, 0.975)


@pytest.mark.parametrize("values", [
    [1.0] * 63, [0.0] * 200, [0.1] * 7, [1 / 3] * 150, [(1.0, 3.0)] * 40, [(0.0, 0.0)] * 5, [float("nan")] * 4,
])
def test_a_sample_of_one_value_is_not_resampled_and_gives_what_the_draws_gave(values) -> None:  # noqa: ANN001
    """Every resample of equal values is the sample itself: the statistic is computed once (the draws
    were most of `sembench verify` when every answer passed), and the interval is the drawn one, bit for
    bit (0.1 * 7 / 7 is not 0.1, nor is the interpolated quantile)."""
    statistic = stats._pooled_ratio if isinstance(values[0], tuple) else stats._mean_of
    calls = []

    def counted(sample):  # noqa: ANN001, ANN202
        calls.append(len(sample))
        return statistic(sample)

    assert stats.bootstrap_ci(values, counted) == _drawn(values, statistic)
    assert calls == [len(values)]


def test_values_equal_but_not_alike_are_resampled() -> None:
    """1 == 1.0 and -0.0 == 0.0, but a statistic may tell them apart: such samples are drawn as before."""
    calls = []

    def counted(sample):  # noqa: ANN001, ANN202
        calls.append(1)
        return float(sum(type(v) is int for v in sample))

    for values in ([1, 1.0, 1], [0.0, -0.0, 0.0, 0.0]):
        calls.clear()
        got = stats.bootstrap_ci(values, counted, 50)
        assert len(calls) == 50
        assert got == _drawn(values, counted, 50)
