"""Confidence intervals for the metrics every family reports.

- `wilson(k, n)`: the Wilson score interval of a proportion k/n (95% by default). Unlike the normal
  ("Wald") interval it stays inside [0, 1] and is sensible at 0/n and n/n, the usual case for small
  breakdowns of a benchmark.
- `bootstrap_ci(values, statistic, n_resamples, seed)`: the percentile bootstrap interval of any
  statistic of a sample (means of scores that are not proportions, ratios of sums, differences of
  rates). Deterministic: the resamples come from `random.Random(seed)`, so the same values give the
  same interval on every machine and run.

Both return (lo, hi); an empty sample has no interval and gives (None, None).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from statistics import NormalDist
from typing import Any, TypeVar

T = TypeVar("T")

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0


def z_for(confidence: float) -> float:
    """The two-sided normal quantile for a confidence level (0.95 -> 1.959964...)."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(k: float, n: float, z: float = 1.96) -> tuple[float | None, float | None]:
    """Wilson score interval for k successes out of n trials; (None, None) when n is 0."""
    if n <= 0:
        return None, None
    k = min(max(k, 0.0), n)
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # clamp away floating-point dust (e.g. -1e-17 at k = 0)
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_ci(
    values: Sequence[T],
    statistic: Callable[[Sequence[T]], float | None],
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> tuple[float | None, float | None]:
    """Percentile bootstrap interval of `statistic` over `values` (resampled with replacement).

    Resamples whose statistic is None (e.g. a ratio with an empty denominator) are skipped; if every
    one is, or `values` is empty, the interval is (None, None). A sample of one value, or of equal
    values, gives the degenerate interval (v, v).
    """
    items = list(values)
    if not items or n_resamples <= 0:
        return None, None
    n = len(items)
    stats: list[float] = []
    if _all_alike(items):
        # every resample is `items` itself: its statistic n_resamples times, as the draws would give
        # (a verification where every answer passes, or every one fails, is the usual case: the draws
        # were most of `sembench verify` on PBEBench-Lite's oracle answers)
        value = statistic(items)
        if value is not None and math.isfinite(value):
            stats = [float(value)] * n_resamples
    else:
        rng = random.Random(seed)
        for _ in range(n_resamples):
            value = statistic(rng.choices(items, k=n))
            if value is not None and math.isfinite(value):
                stats.append(float(value))
    if not stats:
        return None, None
    stats.sort()
    alpha = (1 - confidence) / 2
    return _quantile(stats, alpha), _quantile(stats, 1 - alpha)


def _all_alike(items: list[Any]) -> bool:
    """Every item the same value of the same type, sign of zero included (by `repr`, not `==`: 1 == 1.0
    and -0.0 == 0.0, which a statistic may tell apart), so that any resample equals `items`."""
    first = repr(items[0])
    return all(repr(item) == first for item in items)


def _quantile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default 'linear' method)."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] * (1 - frac) + sorted_values[hi] * frac


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def with_interval(summary: dict[str, Any], name: str, interval: tuple[float | None, float | None]) -> None:
    """Store `name_lo` / `name_hi` beside `summary[name]`."""
    summary[f"{name}_lo"], summary[f"{name}_hi"] = interval


# ---- intervals for the usual statistics, cheap at any size ---------------------------------------
#
# A percentile bootstrap costs n_resamples x n draws, and reports break a run down by every difficulty
# feature. Up to MAX_BOOTSTRAP_N values the bootstrap is used; beyond, the normal approximation (the
# delta method for a ratio of sums): for means of bounded per-response scores the two agree at such
# sizes, and it costs O(n).
MAX_BOOTSTRAP_N = 200


def mean_ci(
    values: Sequence[float], n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, z: float = 1.96
) -> tuple[float | None, float | None]:
    """95% interval of the mean: bootstrap for small samples, normal approximation for large ones."""
    items = [float(v) for v in values]
    n = len(items)
    if n == 0:
        return None, None
    if n <= MAX_BOOTSTRAP_N:
        return bootstrap_ci(items, _mean_of, n_resamples, seed)
    m = sum(items) / n
    var = sum((v - m) ** 2 for v in items) / (n - 1)
    half = z * math.sqrt(var / n)
    return m - half, m + half


def ratio_ci(
    numerators: Sequence[float], denominators: Sequence[float], n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED, z: float = 1.96,
) -> tuple[float | None, float | None]:
    """95% interval of the pooled ratio sum(num) / sum(den), resampling (num, den) pairs together.

    Bootstrap for small samples, the delta method for large ones; (None, None) when sum(den) is 0.
    """
    pairs = [(float(a), float(b)) for a, b in zip(numerators, denominators, strict=True)]
    n = len(pairs)
    total = sum(b for _, b in pairs)
    if n == 0 or total <= 0:
        return None, None
    if n <= MAX_BOOTSTRAP_N:
        return bootstrap_ci(pairs, _pooled_ratio, n_resamples, seed)
    r = sum(a for a, _ in pairs) / total
    mean_den = total / n
    residuals = [a - r * b for a, b in pairs]
    var = sum(x * x for x in residuals) / (n - 1) if n > 1 else 0.0
    half = z * math.sqrt(var / n) / mean_den
    return r - half, r + half


def _mean_of(sample: Sequence[float]) -> float | None:
    return sum(sample) / len(sample) if sample else None


def _pooled_ratio(sample: Sequence[tuple[float, float]]) -> float | None:
    den = sum(b for _, b in sample)
    return sum(a for a, _ in sample) / den if den > 0 else None


def median(values: Sequence[float]) -> float | None:
    items = sorted(float(v) for v in values)
    return _quantile(items, 0.5) if items else None


def median_ci(values: Sequence[float], n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
              z: float = 1.96) -> tuple[float | None, float | None]:
    """95% interval of the median: the percentile bootstrap for small samples (a person's session is
    one); beyond MAX_BOOTSTRAP_N, the distribution-free interval between the order statistics of ranks
    n/2 -+ z*sqrt(n)/2 (the binomial's normal approximation)."""
    items = sorted(float(v) for v in values)
    n = len(items)
    if n == 0:
        return None, None
    if n <= MAX_BOOTSTRAP_N:
        return bootstrap_ci(items, median, n_resamples, seed)
    half = z * math.sqrt(n) / 2
    lo, hi = max(0, math.floor(n / 2 - half)), min(n - 1, math.ceil(n / 2 + half))
    return items[lo], items[hi]
