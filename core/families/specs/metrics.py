"""Metrics: SR, FR and unknown rate (each with a 95% Wilson interval; FR and unknown rate under the paper's
convention, and `fr_cex`/`unknown_rate_cex` under the counterexample one), CR over verified contracts
(`cr_left_out`: verified contracts without a CR because the mutants could not be located in them;
`cr_missing`: verified contracts whose CR was not computed, `--completeness off`), the
robustness measures (each with a 95% bootstrap interval) and failure categories.

The robustness measures (robustness.py: the flip rate per program as the paper defines it and pooled
over pairs, the normalised M'(T), and each on Diverse-N) need a program's original and its variants
among the rows: the diverse presets list each program before its variants, so a run over one has them.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

from core.families.specs import robustness
from core.instance import Instance
from core.verdict import Verdict

Z = 1.959963984540054


def wilson(k: int, n: int) -> tuple[float | None, float | None]:
    if n == 0:
        return None, None
    p = k / n
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap(values: list[float], reps: int = 1000) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    rng = random.Random(0)  # fixed: the same rows always give the same interval
    means = sorted(sum(rng.choice(values) for _ in values) / len(values) for _ in range(reps))
    return means[int(0.025 * reps)], means[min(reps - 1, int(0.975 * reps))]


def _rate(out: dict[str, Any], name: str, k: int, n: int) -> None:
    out[name] = k / n if n else None
    out[f"{name}_lo"], out[f"{name}_hi"] = wilson(k, n)


def _mean(out: dict[str, Any], name: str, values: list[float]) -> None:
    out[name] = sum(values) / len(values) if values else None
    out[f"{name}_lo"], out[f"{name}_hi"] = bootstrap(values)
    out[f"{name}_n"] = len(values)


def summarize(rows: list[tuple[Instance, Verdict]]) -> dict[str, Any]:
    n = len(rows)
    statuses = Counter(v.status for _, v in rows)
    out: dict[str, Any] = {}
    _rate(out, "sr", statuses.get("success", 0), n)
    _rate(out, "fr", statuses.get("failure", 0), n)
    _rate(out, "unknown_rate", statuses.get("unknown", 0), n)
    # the stricter convention beside the paper's (verify.py): failure only with a counterexample or a refutation
    strict = Counter(str(v.details.get("outcome_cex", v.status)) for _, v in rows)
    _rate(out, "fr_cex", strict.get("failure", 0), n)
    _rate(out, "unknown_rate_cex", strict.get("unknown", 0), n)
    # no verdict: WP's own goal count and the goals read from its output disagree (counted apart from the
    # report's `errors`, which also holds solver errors)
    out["wp_mismatch"] = sum(1 for _, v in rows if v.details.get("category") == "WpOutputMismatch")
    # CR rows left out: a verified contract whose mutants could not be located in the reply has no CR
    left = [v.details["completeness"] for _, v in rows if v.status == "success"
            and isinstance(v.details.get("completeness"), dict)
            and v.details["completeness"].get("note") == "mutants could not be located"]
    out["cr_left_out"] = len(left)
    out["cr_mutants_left_out"] = sum(int(c.get("left_out", 0) or 0) for c in left)
    # verified contracts whose completeness was not computed (`--completeness off`; `report` adds it)
    out["cr_missing"] = sum(1 for _, v in rows if v.status == "success"
                            and not isinstance(v.details.get("completeness"), dict))
    crs = [float(v.details["completeness"]["cr"]) for _, v in rows
           if v.status == "success" and isinstance(v.details.get("completeness"), dict)
           and v.details["completeness"].get("cr") is not None]
    _mean(out, "cr", crs)
    for name, values in robustness.samples(rows).items():
        _mean(out, name, values)
    categories = Counter(v.details.get("category") for _, v in rows if v.status != "success" and v.details.get("category"))
    out["categories"] = dict(categories.most_common())
    return out

