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

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from core.errors import UserError
from core.families.cascade import released
from core.families.cascade.model import DEFAULT_MAX_SIDE, RELATION_KEYS, CascadeInstance, CascadeParams, Rule
from core.families.cascade.relations import bleeds as exact_bleeds
from core.families.cascade.relations import feeds as exact_feeds
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
    while True:
        attempts += 1
        constrained = target.category is not None and attempts <= p.patience
        if target.length is not None:
            length = target.length
        elif p.length_weights is not None:
            length = rng.choices(target.lengths, weights=p.length_weights)[0]
        else:
            length = rng.choice(target.lengths)
        sample = _attempt(rng, p, length, target.category if constrained else None)
        if sample is None or (constrained and bits_category(sample[3]) != target.category):
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


def _attempt(
    rng: random.Random, p: CascadeParams, length: int, category: str | None
) -> tuple[list[str], list[Rule], list[str], Bits] | None:
    """One sample: (inputs, cascade, outputs, bits under `balance_on`), or None when it cannot meet
    `category`. With a target category, a rule that sets a bit the target lacks aborts the sample at
    once (bits only accumulate), which is what makes the rare categories affordable."""
    inputs = _random_strings(rng, p.alphabet, p.input_len_min, p.input_len_max, p.n_examples)
    forbidden = [i for i, bit in enumerate(category) if bit == "0"] if category is not None else []
    bits = NO_BITS
    current = inputs
    cascade: list[Rule] = []
    for _ in range(length):
        rule = _sample_rule(rng, p, current)
        if rule is None:
            return None
        bits = extend_bits(p.balance_on, cascade, rule, bits)
        if any(bits[i] for i in forbidden):
            return None
        following = [s.replace(rule[0], rule[1]) for s in current]
        if following == current:  # cannot happen (lhs occurs, rhs != lhs); kept as the stated invariant
            return None
        cascade.append(rule)
        current = following
    if current == inputs:  # the empty cascade would solve it: not a length-L problem
        return None
    return inputs, cascade, current, bits


def _sample_rule(rng: random.Random, p: CascadeParams, current: list[str]) -> Rule | None:
    lhs = _sample_lhs(rng, p, current)
    if lhs is None:
        return None
    for _ in range(_RHS_TRIES):
        rhs = _random_string(rng, p.alphabet, p.rhs_len_min, p.rhs_len_max)
        if rhs != lhs:
            return lhs, rhs
    return None


def _random_strings(rng: random.Random, alphabet: str, lo: int, hi: int, count: int) -> list[str]:
    """`count` strings as `_random_string` draws them (lengths first, then all the characters at once)."""
    rand = rng.random
    size, span = len(alphabet), hi - lo + 1
    lengths = [lo + int(rand() * span) for _ in range(count)]
    text = "".join([alphabet[int(rand() * size)] for _ in range(sum(lengths))])
    out, pos = [], 0
    for n in lengths:
        out.append(text[pos:pos + n])
        pos += n
    return out


def _random_string(rng: random.Random, alphabet: str, lo: int, hi: int) -> str:
    """A string of uniform length lo..hi with uniform independent characters.

    `int(random() * n)` is how `random.choices` picks too; written out it is several times faster than
    `choices` + `randint`, and this is the generator's innermost loop.
    """
    rand = rng.random
    size = len(alphabet)
    k = lo + int(rand() * (hi - lo + 1))
    if k == 1:
        return alphabet[int(rand() * size)]
    return "".join([alphabet[int(rand() * size)] for _ in range(k)])


def _sample_lhs(rng: random.Random, p: CascadeParams, current: list[str]) -> str | None:
    """A lhs that occurs in the current strings (see CascadeParams.lhs_sampling)."""
    longest = min(p.lhs_len_max, max(map(len, current)))
    if longest < p.lhs_len_min:
        return None
    lengths = range(p.lhs_len_min, longest + 1)
    if p.lhs_sampling == "substring":
        by_length = {m: _distinct(current, m) for m in lengths}
        return rng.choice(by_length[rng.choice([m for m in lengths if by_length[m]])])
    return _alphabet_lhs(rng, p.alphabet, current, lengths)


def _distinct(current: list[str], m: int) -> list[str]:
    """Distinct substrings of length m in first-seen order (uniform choice over the set, deterministic:
    no iteration over a set)."""
    return list(dict.fromkeys(s[i:i + m] for s in current for i in range(len(s) - m + 1)))


def _alphabet_lhs(rng: random.Random, alphabet: str, current: list[str], lengths: range) -> str:
    """The "alphabet" law: a uniform random string of uniform length over the alphabet, redrawn until it
    occurs. That is a length m drawn with weight p_m = (distinct substrings of length m) / |alphabet|^m,
    then a distinct substring of that length uniformly. Drawn directly, by rejection under an envelope:
    p_1 is cheap and exact (the distinct characters); for longer m the number of positions bounds the
    number of distinct substrings, so the sets of longer substrings are built only when a draw lands in
    their (small) part of the envelope.
    """
    size = len(alphabet)
    text = "".join(current)
    exact: dict[int, list[str]] = {}
    if lengths.start == 1:
        exact[1] = list(dict.fromkeys(text))
    # no string holds more substrings of length m than it has characters: len(text) bounds them all
    bounds = [len(exact[m]) / size if m in exact else len(text) / size ** m for m in lengths]
    total = sum(bounds)
    while True:
        u = rng.random() * total
        for m, bound in zip(lengths, bounds, strict=True):
            if u >= bound:
                u -= bound
                continue
            if m not in exact:
                exact[m] = _distinct(current, m)
            if u < len(exact[m]) / size ** m:  # inside p_m: accept this length
                return rng.choice(exact[m])
            break  # in the envelope's slack: draw again


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
