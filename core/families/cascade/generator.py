"""The PBEBench problem proposer (paper §3.1, Algorithm 1): sample inputs and a cascade, run it.

Every item has a deterministic *target* derived from its index alone, so item i is generable alone:

- balance="category": the category is CATEGORIES[index % 16] under the classifier named by `balance_on`
  (the released detector by default); the cascade length is drawn per attempt from the allowed lengths
  (as in §3.1.2 and the released generator, which draws a length per sample and keeps the sample when
  its category is still needed: both give each category its natural length distribution). After
  `patience` attempts the category constraint relaxes (G.2) and the next valid sample is kept; meta
  records `target_category` and `relaxed`.
- balance="length": the cascade length is lengths[index % len(lengths)]; the category is not constrained.
- balance="none": length drawn per attempt, no category target.

The cascade length never relaxes. Each rule changes at least one example by construction (its lhs is
drawn from the current intermediate strings and rhs != lhs); it is re-checked anyway.

Relations are kept as four bits per classifier and updated incrementally: appending a rule adds only
the pairs (earlier rule, new rule), a bit once set is never tested again, and the tests stop when all
four are set. Long cascades set all four bits within a few rules, so generation is linear in the
cascade length; a category target aborts the sample at the first pair that sets a bit the target lacks.

Every instance carries both labels: `category` / `relations` from the released detector (what the
benchmark's categories mean) and `category_exact` / `relations_exact` from the exact count-based
classifier, plus the alphabet and the longest side a valid program may have (`alphabet`, `max_side`).
"""

from __future__ import annotations

import bisect
import itertools
import math
import operator
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from math import floor
from typing import Any

from core.errors import UserError
from core.families.cascade import released
from core.families.cascade.model import DEFAULT_MAX_SIDE, RELATION_KEYS, CascadeInstance, CascadeParams, Rule
from core.families.cascade.relations import bleeds as exact_bleeds
from core.families.cascade.relations import feeds as exact_feeds
from core.families.cascade.released import feeds_bleeds as released_feeds_bleeds
from core.instance import Instance
from core.seeding import item_rng

# The 16 category strings (bits: feeding, bleeding, counter-feeding, counter-bleeding) in a fixed order.
CATEGORIES: tuple[str, ...] = tuple(format(i, "04b") for i in range(16))

# After patience (or at once when nothing is targeted) this many more attempts may fail before we give
# up: only pathological params (e.g. a one-letter alphabet with |lhs| = |rhs|) fail that often.
_MAX_INVALID = 10_000
_RHS_TRIES = 16

Bits = tuple[bool, bool, bool, bool]
NO_BITS: Bits = (False, False, False, False)
ALL_BITS: Bits = (True, True, True, True)


@dataclass(frozen=True)
class Target:
    """What item `index` must satisfy. `length` None means: drawn per attempt from `lengths`."""

    lengths: tuple[int, ...]
    length: int | None
    category: str | None


@dataclass(frozen=True)
class GenerationStats:
    attempts: int  # samples drawn (accepted one included)
    relaxed: bool  # the item missed its target category


# ---- relation bits, incrementally ----------------------------------------------------------------

@lru_cache(maxsize=1 << 18)
def _released_feeds(first: Rule, second: Rule) -> bool:
    return released.released_feeds(first[0], first[1], second[0])


@lru_cache(maxsize=1 << 18)
def _released_bleeds(first: Rule, second: Rule) -> bool:
    return released.released_bleeds(first[0], first[1], second[0])


PairTest = Callable[[Rule, Rule], bool]
CLASSIFIERS: dict[str, tuple[PairTest, PairTest]] = {
    "released": (_released_feeds, _released_bleeds),
    "exact": (exact_feeds, exact_bleeds),
}


def extend_bits(classifier: str, cascade: Sequence[Rule], rule: Rule, bits: Bits = NO_BITS) -> Bits:
    """The bits of `cascade + [rule]` given the bits of `cascade`: only the new pairs, only unset bits."""
    if bits == ALL_BITS:
        return bits
    feeds, bleeds = CLASSIFIERS[classifier]
    f, b, cf, cb = bits
    for prev in cascade:
        # (prev, rule) with prev earlier: feeding/bleeding; (rule, prev): the counter-relations
        f = f or feeds(prev, rule)
        b = b or bleeds(prev, rule)
        cf = cf or feeds(rule, prev)
        cb = cb or bleeds(rule, prev)
        if f and b and cf and cb:
            break
    return f, b, cf, cb


def cascade_bits(classifier: str, cascade: Sequence[Rule]) -> Bits:
    bits = NO_BITS
    for j in range(1, len(cascade)):
        bits = extend_bits(classifier, cascade[:j], cascade[j], bits)
        if bits == ALL_BITS:
            break
    return bits


def bits_category(bits: Bits) -> str:
    return "".join("1" if b else "0" for b in bits)


def bits_relations(bits: Bits) -> dict[str, bool]:
    return dict(zip(RELATION_KEYS, bits, strict=True))


# ---- targets ---------------------------------------------------------------------------------------

def allowed_lengths(params: CascadeParams) -> tuple[int, ...]:
    if params.cascade_lengths:
        return tuple(params.cascade_lengths)
    return tuple(range(params.cascade_length_min, params.cascade_length_max + 1))


def max_programs(params: CascadeParams, length: int | None = None) -> int:
    """K: the longest ground-truth cascade the params can produce, unless given explicitly; with
    `k_per_length`, the instance's own cascade length (one released file per length)."""
    if params.max_programs:
        return params.max_programs
    if params.k_per_length and length is not None:
        return length
    return max(allowed_lengths(params))


def item_target(params: CascadeParams, index: int) -> Target:
    lengths = allowed_lengths(params)
    if params.balance == "category":
        return Target(lengths, None, CATEGORIES[index % len(CATEGORIES)])
    if params.balance == "length":
        return Target(lengths, lengths[index % len(lengths)], None)
    return Target(lengths, None, None)


# ---- items -------------------------------------------------------------------------------------------

def generate_one(params: dict[str, Any], seed: int, index: int) -> CascadeInstance:
    return generate_with_stats(params, seed, index)[0]


def generate_with_stats(params: dict[str, Any], seed: int, index: int) -> tuple[CascadeInstance, GenerationStats]:
    p = CascadeParams.model_validate(params)
    resolved = p.model_dump(mode="json")  # seeds depend on the resolved params, never on how they were spelled
    rng = item_rng("cascade", resolved, seed, index)
    target = item_target(p, index)
    attempts = invalid = 0
    attempt = _sampler(rng, p)
    target_bits = tuple(bit == "1" for bit in target.category) if target.category is not None else None
    # `rng.choices(lengths, weights)[0]` as `random.choices` computes it (running sums of the weights,
    # one `random()`, a bisection), with the sums taken once
    cum_weights = list(itertools.accumulate(p.length_weights)) if p.length_weights is not None else None
    if cum_weights is not None:
        total, last = cum_weights[-1] + 0.0, len(cum_weights) - 1
    while True:
        attempts += 1
        constrained = target.category is not None and attempts <= p.patience
        if target.length is not None:
            length = target.length
        elif cum_weights is not None:
            length = target.lengths[bisect.bisect(cum_weights, rng.random() * total, 0, last)]
        else:
            length = rng.choice(target.lengths)
        sample = attempt(length, target.category if constrained else None)
        if sample is None or (constrained and sample[3] != target_bits):
            if not constrained:
                invalid += 1
                if invalid > _MAX_INVALID:
                    raise UserError(f"cascade: no valid instance for item {index} after {attempts} attempts; "
                                    "the alphabet and rule lengths leave no rule that changes an example")
            continue
        inputs, cascade, outputs, bits = sample
        other = "exact" if p.balance_on == "released" else "released"
        labels = {p.balance_on: bits, other: cascade_bits(other, cascade)}
        meta: dict[str, Any] = {
            "cascade_length": len(cascade),
            "relations": bits_relations(labels["released"]),
            "category": bits_category(labels["released"]),
            "relations_exact": bits_relations(labels["exact"]),
            "category_exact": bits_category(labels["exact"]),
            "max_programs": max_programs(p, len(cascade)),
            "alphabet": p.alphabet,
            "max_side": max(DEFAULT_MAX_SIDE, p.lhs_len_max, p.rhs_len_max),
        }
        relaxed = target.category is not None and bits_category(bits) != target.category
        if target.category is not None:
            meta["target_category"] = target.category
            meta["relaxed"] = relaxed
        instance = CascadeInstance(
            family="cascade", params=resolved, seed=seed, index=index, inputs=inputs, outputs=outputs,
            ground_truth={"cascade": [[lhs, rhs] for lhs, rhs in cascade]}, meta=meta,
        )
        instance.with_content_id()
        return instance, GenerationStats(attempts, relaxed)


# The current strings of an attempt are kept joined by a character no alphabet holds (CascadeParams
# refuses non-printable characters): one `str.replace` rewrites them all, exactly as rewriting each, since
# neither side of a rule can match across it.
_SEP = "\n"
# The relation bits as a mask: 1 feeding, 2 bleeding, 4 counter-feeding, 8 counter-bleeding; per target
# category, the bits it lacks.
_FORBIDDEN = {c: sum(1 << i for i, bit in enumerate(c) if bit == "0") for c in CATEGORIES}
_MASK_BITS: list[Bits] = [(bool(m & 1), bool(m & 2), bool(m & 4), bool(m & 8)) for m in range(16)]


Sample = tuple[list[str], list[Rule], list[str], Bits]


def _sampler(rng: random.Random, p: CascadeParams) -> Callable[[int, str | None], Sample | None]:
    """One item's rejection sampler: `attempt(length, category)`. Every attempt draws from the item's
    RNG exactly as the statement below says (the same calls, in the same order, on the same values: the
    bundled snapshots are the proof, tests/engine/test_bundle.py and test_cascade_done_when.py); what
    does not draw is arranged to cost little, since an item takes ~650 attempts in PBEBench-Lite: the
    params' constants are read once per item (closure cells), the strings are rewritten joined by `_SEP`,
    the released detector's tests are the string-only `released.feeds_bleeds`, and a rule that sets a
    forbidden bit ends the attempt at that pair.

    One attempt, in draw order:

    - the inputs: `n_examples` lengths uniform in input_len_min..max, then all their characters
      (`floor(random() * n)`, how `random.choices` picks, written out; a length or a character of
      an rhs the same way);
    - per rule: the lhs (see `alphabet_lhs`; for lhs_sampling="substring", a length uniform among those
      that occur, then a distinct substring of it uniformly), then the rhs as a string of uniform length
      and characters, redrawn (up to 16 times) while it equals the lhs;
    - after each rule, the relation bits of the pairs (earlier rule, new rule) under `balance_on`: a bit
      the target category lacks ends the attempt (bits only accumulate).
    """
    rand, choice = rng.random, rng.choice
    alphabet, size = p.alphabet, len(p.alphabet)
    n_examples, in_lo, in_span = p.n_examples, p.input_len_min, p.input_len_max - p.input_len_min + 1
    lhs_min, lhs_max = p.lhs_len_min, p.lhs_len_max
    rhs_lo, rhs_span = p.rhs_len_min, p.rhs_len_max - p.rhs_len_min + 1
    released, alphabet_law, classifier = p.balance_on == "released", p.lhs_sampling == "alphabet", p.balance_on
    pows = [size ** m for m in range(lhs_max + 1)]
    fb = released_feeds_bleeds
    rhs_tries = range(_RHS_TRIES)
    long_text = 4 * size
    # a uniform index is `floor(random() * n)`, as `random.choices` writes it: the same index as the
    # `int(random() * n)` written here before (floor == int at x >= 0; x * n == x * float(n)), and a
    # third faster per draw in 3.11 (`int` is a type call), with `repeat(None, k)` for `range(k)`: the
    # inputs' characters were a third of MoreEg's generation
    fsize = float(size)

    def alphabet_lhs(current: str, seps: int, longest: int) -> str:
        """The "alphabet" law: a uniform random string of uniform length over the alphabet, redrawn
        until it occurs. That is a length m drawn with weight p_m = (distinct substrings of length m) /
        |alphabet|^m, then a distinct substring of that length uniformly. Drawn directly, by rejection
        under an envelope: p_1 is cheap and exact (the distinct characters); for longer m the number of
        positions bounds the number of distinct substrings, so the sets of longer substrings are built
        only when a draw lands in their (small) part of the envelope. `current`: the strings joined by
        `_SEP` (`seps` of them)."""
        exact: dict[int, list[str]] = {}
        # no string holds more substrings of length m than it has characters: their number bounds them all
        chars = len(current) - seps
        if lhs_min == 1:
            if len(current) > long_text:
                # every character is the alphabet's: a long text's distinct ones by a scan per letter
                # (`str.find`), ordered by first occurrence, cost less than a dict of every character
                exact[1] = ones = sorted([c for c in alphabet if c in current], key=current.find)
            else:
                exact[1] = ones = _distinct(current, seps, 1)
            bounds = [len(ones) / size, *[chars / pows[m] for m in range(2, longest + 1)]]
        else:
            bounds = [chars / pows[m] for m in range(lhs_min, longest + 1)]
        total = sum(bounds)
        while True:
            u = rand() * total
            m = lhs_min
            for bound in bounds:
                if u >= bound:
                    u -= bound
                    m += 1
                    continue
                subs = exact.get(m)
                if subs is None:
                    subs = exact[m] = _distinct(current, seps, m)
                if u < len(subs) / pows[m]:  # inside p_m: accept this length
                    return choice(subs)
                break  # in the envelope's slack: draw again

    def attempt(length: int, category: str | None) -> Sample | None:
        """One sample: (inputs, cascade, outputs, bits under `balance_on`), or None when it cannot meet
        `category` (or a rule cannot be drawn)."""
        lengths = [in_lo + floor(rand() * in_span) for _ in repeat(None, n_examples)]
        text = "".join([alphabet[floor(rand() * fsize)] for _ in repeat(None, sum(lengths))])
        # cut at the running sums of the lengths (at C speed: 50 examples in MoreEg); the list of inputs
        # is made only for an attempt that succeeds
        ends = list(itertools.accumulate(lengths))
        start = current = _SEP.join(map(text.__getitem__, map(slice, [0, *ends], ends)))
        seps = n_examples - 1  # separators in `current`
        forbidden = 0 if category is None else _FORBIDDEN[category]
        mask = 0
        bits = NO_BITS
        longest = min(lhs_max, max(lengths))  # the longest lhs that can occur
        cascade: list[Rule] = []
        for _ in range(length):
            if longest < lhs_min:
                return None
            if alphabet_law:
                lhs = alphabet_lhs(current, seps, longest)
            else:
                # every length up to `longest` occurs (in the longest string), so all are candidates
                lhs = choice(_distinct(current, seps, choice(range(lhs_min, longest + 1))))
            for _ in rhs_tries:
                k = rhs_lo + floor(rand() * rhs_span)
                rhs = (alphabet[floor(rand() * fsize)] if k == 1
                       else "".join([alphabet[floor(rand() * fsize)] for _ in repeat(None, k)]))
                if rhs != lhs:
                    break
            else:
                return None
            if not released:
                bits = extend_bits(classifier, cascade, (lhs, rhs), bits)
                mask = sum(1 << i for i, bit in enumerate(bits) if bit)
                if mask & forbidden:
                    return None
            elif mask != 15:
                for p_in, p_out in cascade:
                    # (earlier, new): feeding and bleeding; (new, earlier): the counter-relations
                    if mask & 3 != 3:
                        mask |= fb(p_in, p_out, lhs)
                    if mask & 12 != 12:
                        mask |= fb(lhs, rhs, p_in) << 2
                    if mask & forbidden:
                        return None
                    if mask == 15:
                        break
            following = current.replace(lhs, rhs)
            if following == current:  # cannot happen (lhs occurs, rhs != lhs); kept as the stated invariant
                return None
            cascade.append((lhs, rhs))
            current = following
            # strings only grow under a rule whose rhs is not shorter: a longest lhs that is already
            # lhs_len_max stays so
            if longest < lhs_max or len(rhs) < len(lhs):
                longest = min(lhs_max, max(map(len, current.split(_SEP))))
        if current == start:  # the empty cascade would solve it: not a length-L problem
            return None
        if released:
            bits = _MASK_BITS[mask]
        return start.split(_SEP), cascade, current.split(_SEP), bits

    return attempt


def _distinct(current: str, seps: int, m: int) -> list[str]:
    """The distinct substrings of length m of the strings joined in `current`, in first-seen order (a
    uniform choice over the set, and deterministic: no iteration over a set). All windows of the joined
    text are taken at C speed, then those across a separator dropped; the order of the rest is the order
    of the strings, then of positions."""
    if m == 1:
        windows = dict.fromkeys(current)
    elif m == 2:
        windows = dict.fromkeys(map(operator.add, current, current[1:]))
    else:
        # the shifted copies are shorter: zip stops at the last whole window
        windows = dict.fromkeys(map("".join, zip(*[current[k:] for k in range(m)], strict=False)))
    if not seps:
        return list(windows)
    if m == 1:
        del windows[_SEP]
        return list(windows)
    return [w for w in windows if _SEP not in w]


# ---- snapshot-level summaries ------------------------------------------------------------------

def category_counts(instances: Iterable[Instance], key: str = "category") -> dict[str, int]:
    counts = Counter(str(inst.meta.get(key)) for inst in instances)
    return {c: counts.get(c, 0) for c in CATEGORIES}


def category_kl(counts: dict[str, int], smoothing: float = 0.5) -> float:
    """KL(empirical || uniform) over the 16 categories (paper G.2), add-`smoothing` for empty ones."""
    total = sum(counts.get(c, 0) + smoothing for c in CATEGORIES)
    if total <= 0:
        return 0.0
    uniform = 1 / len(CATEGORIES)
    kl = 0.0
    for c in CATEGORIES:
        q = (counts.get(c, 0) + smoothing) / total
        if q > 0:
            kl += q * math.log(q / uniform)
    return kl


def released_kl(counts: dict[str, int], epsilon: float = 1e-8) -> float:
    """KL(uniform || empirical) over the 16 categories with epsilon added to every count: the released
    code's measure (natural log)."""
    n = len(CATEGORIES)
    total = sum(counts.get(c, 0) for c in CATEGORIES) + epsilon * n
    return sum((1 / n) * math.log((1 / n) / ((counts.get(c, 0) + epsilon) / total)) for c in CATEGORIES)


def describe(instances: Iterable[Instance]) -> dict[str, Any]:
    """What the snapshot builder stores in the snapshot's meta: category balance (both classifiers, the
    KL divergence both ways), items that missed their target, and the statistics the released data are
    compared on (see `statistics.py`)."""
    from core.families.cascade.statistics import snapshot_statistics

    items = list(instances)
    counts = category_counts(items)
    missed = Counter(str(i.meta.get("target_category")) for i in items if i.meta.get("relaxed"))
    note: dict[str, Any] = {
        "category_counts": counts,
        "category_counts_exact": category_counts(items, "category_exact"),
        "missing_categories": [c for c in CATEGORIES if counts[c] == 0],
        "relaxed": sum(missed.values()),
        "relaxed_by_target": {c: missed[c] for c in CATEGORIES if missed[c]},
        "kl_from_uniform": round(category_kl(counts), 6),
        "kl_released": round(released_kl(counts), 6),
        "statistics": snapshot_statistics(items),
    }
    if missed:
        note["note"] = (f"{note['relaxed']} item(s) did not reach their target category within the patience "
                        "budget and kept another category; see relaxed_by_target")
    return note


# The name the snapshot builder knew before the statistics were added.
unreachable_note = describe
