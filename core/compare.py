"""Two runs of one family paired by instance: where they differ, and whether the difference is more
than chance (McNemar's exact test on the paired outcomes of sample 0)."""

from __future__ import annotations

from typing import Any

from core.errors import UserError
from core.report import RunData
from core.stats import wilson


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: under the null the discordant pairs split 50/50, so it is a
    binomial test of `only_a` successes in `only_a + only_b` trials (scipy.stats.binomtest)."""
    discordant = only_a + only_b
    if discordant == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(only_a, discordant, 0.5, alternative="two-sided").pvalue)


def _rate(correct: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(correct, n)
    return {"correct": correct, "n": n, "rate": correct / n if n else None, "rate_lo": lo, "rate_hi": hi}


def compare_runs(a: RunData, b: RunData) -> dict[str, Any]:
    """The instances both runs answered (sample 0), split by outcome, with the two rates on those
    instances, McNemar's exact test, and the instances where the two differ listed by id."""
    if a.family.id != b.family.id:
        raise UserError(f"cannot compare runs of different families ({a.family.id}, {b.family.id})")
    common = [iid for iid in a.sample0 if iid in b.sample0]
    family = _family_comparison(a, b)
    if not common and not family.get("family_comparison"):
        raise UserError(f"runs {a.run_id} and {b.run_id} share no instance (snapshots "
                        f"{a.run['snapshot']} and {b.run['snapshot']})")
    a_only = [iid for iid in common if a.sample0[iid].correct and not b.sample0[iid].correct]
    b_only = [iid for iid in common if b.sample0[iid].correct and not a.sample0[iid].correct]
    both = sum(1 for iid in common if a.sample0[iid].correct and b.sample0[iid].correct)
    n = len(common)
    return {
        "family": a.family.id,
        "runs": {"a": {"id": a.run_id, "solver": a.run["solver"], "snapshot": a.run["snapshot"],
                       **_rate(both + len(a_only), n)},
                 "b": {"id": b.run_id, "solver": b.run["solver"], "snapshot": b.run["snapshot"],
                       **_rate(both + len(b_only), n)}},
        "paired": n,
        "both": both,
        "neither": n - both - len(a_only) - len(b_only),
        "a_right_b_wrong": a_only,
        "a_wrong_b_right": b_only,
        "mcnemar_p": mcnemar_exact(len(a_only), len(b_only)),
        "sample": 0,
        **family,
    }


def _family_comparison(a: RunData, b: RunData) -> dict[str, Any]:
    """The family's own paired comparison when it has one (imports: Wilcoxon signed-rank on original vs
    transformed snippets; typeinf: RS/RE), as `report RUN_A RUN_B` gives it."""
    hook = getattr(a.family, "compare_metrics", None)
    if not callable(hook):
        return {}
    return {"family_comparison": hook([(a.run, a.rows(0)), (b.run, b.rows(0))])}
