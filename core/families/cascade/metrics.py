"""Cascade metrics (paper §4.3, Table 1), as the paper defines them and as the released scorer computes
them, each named for what it is. First and last code block, each with a 95% interval.

Per response (written by `verify` into `verdict.details`):

- `pass@1`: 1 when every predicted output equals its output exactly, else 0. A response with no code
  block is 0 (it is verified with the identity cascade but counts as wrong).
- `edit_sim` (the paper's Edit_Sim, characters): 1 - sum_i lev(pred_i, out_i) / sum_i lev(in_i, out_i):
  1 for exact, 0 for doing nothing, negative when the cascade moves the strings further away than the
  inputs were. Zero denominator (every input already equals its output): measured against the size of
  the outputs instead, 1 - sum lev(pred, out) / max(1, sum len(out)).
- `edit_sim_tokens` (the released scorer's Edit_Sim): the same ratio with the edit distance taken over
  whitespace-separated tokens (`str.split()`), as the released code computes it. A cascade example is
  one token, so each example counts 0 or 1 (2 when a string becomes empty): a coarse
  "examples right" measure, not the character similarity the paper's text describes. Its zero
  denominator (the released code divides by zero) is handled as for `edit_sim`, over tokens.
- `valid_rate` inputs: `n_valid` valid programs among the `n_evaluated` first K programs.

Over a set of responses (`summarize`):

- `pass@1`, `edit_sim`, `edit_sim_tokens` and their `_first` twins: means over responses;
- `valid_rate`: valid programs / evaluated programs pooled over all responses, as the released code
  computes it (a reply without a code block adds nothing); `valid_rate_per_response`: the mean of each
  response's own rate (0 for a reply with no block or no program), what this workbench reported before;
- `extraction_errors`, `no_answer_within_budget`: counts.

Every rate comes with `<name>_lo` / `<name>_hi`, a 95% interval: Wilson for pass@1 (a proportion), a
percentile bootstrap (1000 resamples, seed 0) for means and the pooled ratio up to 200 responses and the
normal approximation beyond (core/stats.py); None where there are no responses.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from core import stats
from core.instance import Instance
from core.verdict import Verdict

LAST_KEYS = ("pass@1", "edit_sim", "edit_sim_tokens", "valid_rate", "valid_rate_per_response")
SUMMARY_KEYS = (*LAST_KEYS, *(f"{key}_first" for key in LAST_KEYS))
COUNT_KEYS = ("extraction_errors", "no_answer_within_budget")


# ---- distances ---------------------------------------------------------------------------------------
def levenshtein(a: str, b: str) -> int:
    """Edit distance (insert, delete, substitute, each cost 1).

    Common prefix/suffix trimmed (typical near-misses cost nothing), then Myers' bit-parallel algorithm
    in Hyyrö's formulation: one column of the DP matrix is a pair of bit vectors, so a step costs a few
    integer operations instead of len(b) Python-level cell updates. Checked against the textbook DP in
    the tests.
    """
    if a == b:
        return 0
    start, limit = 0, min(len(a), len(b))
    while start < limit and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    a, b = a[start:end_a], b[start:end_b]
    if not a or not b:
        return len(a) + len(b)
    if len(a) < len(b):
        a, b = b, a  # the bit vectors are as wide as the shorter string
    m = len(b)
    mask, top = (1 << m) - 1, 1 << (m - 1)
    peq: dict[str, int] = {}
    for i, ch in enumerate(b):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    pv, mv, score = mask, 0, m
    for ch in a:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = ((((eq & pv) + pv) & mask) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & mask
        mh = pv & xh
        if ph & top:
            score += 1
        elif mh & top:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = (mh | ~(xv | ph)) & mask
        mv = ph & xv
    return score


def token_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Edit distance between two token lists (insert, delete, substitute a whole token)."""
    if list(a) == list(b):
        return 0
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        cur = [i]
        for j, y in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


# ---- Edit_Sim ----------------------------------------------------------------------------------------
def edit_sim(inputs: Sequence[str], outputs: Sequence[str], predicted: Sequence[str]) -> float:
    """Edit_Sim in characters, as defined in the module docstring (including the zero-denominator case)."""
    distance = sum(levenshtein(p, o) for p, o in zip(predicted, outputs, strict=True))
    return 1.0 - distance / edit_sim_baseline(inputs, outputs)


def edit_sim_baseline(inputs: Sequence[str], outputs: Sequence[str]) -> int:
    """Edit_Sim's denominator: sum lev(in, out), or max(1, sum len(out)) when that is 0."""
    baseline = sum(levenshtein(i, o) for i, o in zip(inputs, outputs, strict=True))
    return baseline if baseline > 0 else max(1, sum(len(o) for o in outputs))


def edit_sim_from(distance: int, instance: Any) -> float:
    """Edit_Sim given the summed lev(pred, out); the denominator depends only on the instance (cached)."""
    baseline = _cached(instance, "_edit_base", lambda: edit_sim_baseline(instance.inputs, instance.outputs))
    return 1.0 - distance / baseline


def token_edit_sim(instance: Any, predicted: Sequence[str]) -> float:
    """The released scorer's Edit_Sim: token-level edit distances (see the module docstring)."""
    outputs_tok = _cached(instance, "_tokens", lambda: [o.split() for o in instance.outputs])
    baseline = _cached(instance, "_token_base", lambda: _token_baseline(instance.inputs, outputs_tok))
    distance = sum(token_distance(p.split(), o) for p, o in zip(predicted, outputs_tok, strict=True))
    return 1.0 - distance / baseline


def _token_baseline(inputs: Sequence[str], outputs_tok: list[list[str]]) -> int:
    baseline = sum(token_distance(i.split(), o) for i, o in zip(inputs, outputs_tok, strict=True))
    return baseline if baseline > 0 else max(1, sum(len(o) for o in outputs_tok))


def _cached(instance: Any, name: str, make: Any) -> Any:
    """A value derived from the instance's fields, kept in the instance's `derived()` cache when it has one."""
    derived = getattr(instance, "derived", None)
    if derived is None:
        return make()
    cache = derived()
    value = cache.get(name)
    if value is None:
        value = cache[name] = make()
    return value


# ---- summaries -----------------------------------------------------------------------------------------
def summarize(rows: list[tuple[Instance, Verdict]]) -> dict[str, Any]:
    """The metrics of the module docstring over `rows`, each rate with its 95% interval."""
    per = [response_metrics(verdict) for _instance, verdict in rows]
    summary: dict[str, Any] = {}
    for suffix in ("", "_first"):
        passes = [r[f"pass@1{suffix}"] for r in per]
        summary[f"pass@1{suffix}"] = stats.mean(passes) if per else 0.0
        stats.with_interval(summary, f"pass@1{suffix}", stats.wilson(sum(passes), len(passes)))
        for key in ("edit_sim", "edit_sim_tokens", "valid_rate_per_response"):
            values = [r[key + suffix] for r in per]
            summary[key + suffix] = stats.mean(values) if per else 0.0
            stats.with_interval(summary, key + suffix, stats.mean_ci(values))
        pooled = [(r[f"n_valid{suffix}"], r[f"n_evaluated{suffix}"]) for r in per if r[f"n_evaluated{suffix}"] >= 0]
        total = sum(b for _, b in pooled)
        summary[f"valid_rate{suffix}"] = sum(a for a, _ in pooled) / total if total else 0.0
        stats.with_interval(summary, f"valid_rate{suffix}",
                            stats.ratio_ci([a for a, _ in pooled], [b for _, b in pooled]))
    summary["extraction_errors"] = float(sum(r["extraction_error"] for r in per))
    summary["no_answer_within_budget"] = float(sum(r["no_answer_within_budget"] for r in per))
    return summary


def response_metrics(verdict: Verdict) -> dict[str, float]:
    """One response's metrics from its verdict; verdicts written elsewhere fall back to correct/score.

    `n_evaluated` is -1 when the verdict does not say (it then stays out of the pooled Valid_Rate).
    """
    details = verdict.details if isinstance(verdict.details, dict) else {}
    out: dict[str, float] = {}
    for suffix in ("", "_first"):
        out[f"pass@1{suffix}"] = _number(details.get(f"pass@1{suffix}"), _number(details.get("pass@1"),
                                                                               1.0 if verdict.correct else 0.0))
        out[f"edit_sim{suffix}"] = _number(details.get(f"edit_sim{suffix}"), _number(details.get("edit_sim"),
                                                                                   verdict.score))
        out[f"edit_sim_tokens{suffix}"] = _number(details.get(f"edit_sim_tokens{suffix}"),
                                                  out[f"pass@1{suffix}"])
        out[f"valid_rate_per_response{suffix}"] = _number(details.get(f"valid_rate{suffix}"), 0.0)
        n_eval = _count(details.get("n_evaluated" if not suffix else "n_evaluated_first"))
        n_valid = _count(details.get(f"n_valid{suffix}"))
        if n_valid < 0 and n_eval >= 0 and not suffix:
            n_valid = n_eval - max(0, _count(details.get("n_invalid")))
        out[f"n_evaluated{suffix}"] = float(n_eval if n_valid >= 0 else -1)
        out[f"n_valid{suffix}"] = float(max(n_valid, 0))
    error = bool(details.get("extraction_error")) or verdict.status in ("extraction_error", "no_answer_within_budget")
    out["extraction_error"] = 1.0 if error and verdict.status != "no_answer_within_budget" else 0.0
    out["no_answer_within_budget"] = 1.0 if verdict.status == "no_answer_within_budget" else 0.0
    return out


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return float(default)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else -1
