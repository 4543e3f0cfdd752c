"""The statistics a cascade snapshot is compared with the released data on.

For a set of (inputs, ground-truth cascade) pairs:

- `cascade_length`: how many instances have each cascade length;
- `lhs_length` / `rhs_length`: the share of rules with each side length;
- `changed_per_rule`: examples a rule changes where it runs (its string differs before and after),
  averaged over all rules: 1.56 of 5 in the paper's PBEBench-Lite, 7.07 of 50 in Lite-MoreEg and
  "about two" of 50 in PBEBench (Appendix B, G.1); `changed_fraction` is the same divided by the
  number of examples.

The same function reads generated instances and released records, so the two are computed alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from core.instance import Instance


def rule_changes(inputs: Sequence[str], cascade: Sequence[Sequence[str]]) -> list[int]:
    """For each rule, how many examples it changes where it runs in the cascade."""
    current = list(inputs)
    changes: list[int] = []
    for lhs, rhs in cascade:
        if not lhs:  # not a program the cascade runs (a foreign instance); changes nothing here
            changes.append(0)
            continue
        following = [s.replace(lhs, rhs) for s in current]
        changes.append(sum(a != b for a, b in zip(current, following, strict=True)))
        current = following
    return changes


def statistics(items: Iterable[tuple[Sequence[str], Sequence[Sequence[str]]]]) -> dict[str, Any]:
    lengths: Counter[int] = Counter()
    lhs: Counter[int] = Counter()
    rhs: Counter[int] = Counter()
    changed = fraction = 0.0
    n = rules = 0
    for inputs, cascade in items:
        n += 1
        lengths[len(cascade)] += 1
        for count, (a, b) in zip(rule_changes(inputs, cascade), cascade, strict=True):
            lhs[len(a)] += 1
            rhs[len(b)] += 1
            changed += count
            fraction += count / len(inputs) if inputs else 0.0
            rules += 1
    return {
        "n": n,
        "rules": rules,
        "cascade_length": {str(k): lengths[k] for k in sorted(lengths)},
        "lhs_length": _shares(lhs, rules),
        "rhs_length": _shares(rhs, rules),
        "changed_per_rule": round(changed / rules, 4) if rules else None,
        "changed_fraction": round(fraction / rules, 4) if rules else None,
    }


def _shares(counts: Counter[int], total: int) -> dict[str, float]:
    return {str(k): round(counts[k] / total, 4) for k in sorted(counts)} if total else {}


def snapshot_statistics(instances: Iterable[Instance]) -> dict[str, Any]:
    """`statistics` of the instances that have a ground-truth cascade."""
    pairs = []
    for inst in instances:
        cascade = inst.ground_truth.get("cascade") if isinstance(inst.ground_truth, dict) else None
        inputs = getattr(inst, "inputs", None)
        if isinstance(cascade, list) and isinstance(inputs, list):
            pairs.append((inputs, [(r[0], r[1]) for r in cascade]))
    return statistics(pairs)
