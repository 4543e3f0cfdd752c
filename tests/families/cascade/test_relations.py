"""The feeding/bleeding classifier against brute force, the witness bound, the paper's cases, cascades.

The brute force here is exhaustive over every string up to the witness bound, over chars(a, b, c),
using C-level `str.replace` / `str.count` (regex lookahead for self-overlapping patterns, an
implementation independent of `count_overlapping`). It is made affordable, not weaker:

* D(s) commutes with renaming letters, so triples are brute-forced once per canonical form (letters
  renamed in order of first appearance); the closed form is still run on every raw pair;
* strings are enumerated once per rule (a, b) and alphabet and shared by all lhs c of that group;
* strings without an occurrence of a are skipped (r(s) == s there, so they witness nothing);
* no string holds a character outside chars(a, b, c). Such a character (core's brute force keeps one
  fresh one, `brute_alphabet`) splits s = p + "#" + q into parts that no occurrence of a or c crosses,
  so r(s) = r(p) + "#" + r(q) and D(s) = D(p) + D(q): a witness holding one has a strictly shorter
  witness without it (a part with D > 0, or D < 0), and the shortest witness of every relation, and
  whether one exists up to any length, are the same with or without it. Enumerating it cost 4^n
  strings instead of 3^n for three letters (and 3^n instead of 2^n for two): ~40 s of CPU, 250 MB
  per process at n = 11. `test_a_fresh_character_splits_the_rewrite_and_the_count` checks the
  additivity, `test_a_fresh_character_never_shortens_a_witness` the two enumerations' equal answers
  on every group of the bound test up to a smaller length, and
  `test_grouped_brute_force_matches_the_reference_brute_force` the reference (with the fresh one).
"""
from __future__ import annotations

import functools
import itertools
import operator
import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.cascade.relations import (
    CERTIFIED_MAX_LEN,
    RELATION_KEYS,
    bleeding_witness,
    bleeds,
    brute_bleeds,
    brute_feeds,
    brute_witness,
    cascade_relations,
    category_bits,
    count_change,
    count_overlapping,
    feeding_witness,
    feeds,
    gain_alignments,
    loss_alignments,
    pair_relations,
    proven_witness_length_bound,
    tight_witness_length_bound,
    witness_case,
    witness_length_bound,
)

SEED = 20_240_611
N_PAIRS = 100_000
CHUNKS = 12
LETTERS = "abcdefghi"
FRESH = "#"

Rule = tuple[str, str]
Triple = tuple[str, str, str]


# ---- random pairs and canonical forms --------------------------------------------------------------

def _random_rule(rng: random.Random, alphabet: str) -> Rule:
    lhs = "".join(rng.choices(alphabet, k=rng.randint(1, 3)))
    return lhs, "".join(rng.choices(alphabet, k=rng.randint(0, 3)))


@functools.cache
def random_pairs() -> tuple[tuple[Rule, Rule], ...]:
    """100,000 rule pairs, alternately over 2 and 3 letters (dense interactions), fixed seed."""
    rng = random.Random(SEED)
    pairs = []
    for i in range(N_PAIRS):
        alphabet = "xy" if i % 2 == 0 else "xyz"
        pairs.append((_random_rule(rng, alphabet), _random_rule(rng, alphabet)))
    return tuple(pairs)


def canonical(a: str, b: str, c: str) -> Triple:
    """Rename letters in order of first appearance in a + b + c: D is invariant under renaming."""
    names: dict[str, str] = {}
    for ch in a + b + c:
        names.setdefault(ch, LETTERS[len(names)])
    return tuple("".join(names[ch] for ch in part) for part in (a, b, c))  # type: ignore[return-value]


def letters_used(triple: Triple) -> int:
    return len(set("".join(triple)))


# ---- the grouped brute force -------------------------------------------------------------------

@functools.lru_cache(maxsize=64)
def strings(m: int, n: int, fresh: bool = False) -> tuple[str, ...]:
    """Every string of length n over the first m letters (plus the fresh character with `fresh`)."""
    return tuple(map("".join, itertools.product(LETTERS[:m] + (FRESH if fresh else ""), repeat=n)))


def _self_overlapping(c: str) -> bool:
    return any(c[k:] == c[:len(c) - k] for k in range(1, len(c)))


def counter(c: str) -> Callable[[Iterable[str]], Iterator[int]]:
    """Overlapping occurrence counts of c over many strings, iterated in C."""
    if not _self_overlapping(c):
        return lambda texts: map(str.count, texts, itertools.repeat(c))
    lookahead = re.compile(f"(?={re.escape(c)})")
    return lambda texts: map(len, map(lookahead.findall, texts))


def brute_group(a: str, b: str, m: int, limits: dict[str, int], fresh: bool = False) -> dict[str, list[int | None]]:
    """For each lhs c: [shortest feeding witness length, shortest bleeding one] up to limits[c], or None
    (over the first m letters; with `fresh`, the fresh character too: the same answers, see the top)."""
    found: dict[str, list[int | None]] = {c: [None, None] for c in limits}
    pending = dict(limits)
    for n in range(max(limits.values(), default=-1) + 1):
        active = [c for c, limit in pending.items() if limit >= n]
        if not active:
            break
        texts = [s for s in strings(m, n, fresh) if a in s]  # the others satisfy r(s) == s
        outs = [s.replace(a, b) for s in texts]
        for c in active:
            count = counter(c)
            deltas = list(map(operator.sub, count(outs), count(texts)))
            lengths = found[c]
            if lengths[0] is None and deltas and max(deltas) > 0:
                lengths[0] = n
            if lengths[1] is None and deltas and min(deltas) < 0:
                lengths[1] = n
            if None not in lengths:
                del pending[c]
    return found


GroupKey = tuple[str, str, int]


def group_by_rule(triples: Iterable[Triple], limit: Callable[[Triple], int]) -> dict[GroupKey, dict[str, int]]:
    """Canonical triples grouped by (a, b, letters used): one enumeration serves every c of a group."""
    groups: dict[GroupKey, dict[str, int]] = defaultdict(dict)
    for triple in triples:
        a, b, c = triple
        groups[(a, b, letters_used(triple))][c] = limit(triple)
    return dict(groups)


def split(groups: dict[GroupKey, dict[str, int]], chunks: int) -> list[list[GroupKey]]:
    """Longest-processing-time assignment of groups to chunks, by the number of strings enumerated."""
    def cost(key: GroupKey) -> int:
        return sum((key[2] + 1) ** limit for limit in groups[key].values())

    loads = [0] * chunks
    parts: list[list[GroupKey]] = [[] for _ in range(chunks)]
    for key in sorted(groups, key=lambda k: (-cost(k), k)):
        i = loads.index(min(loads))
        parts[i].append(key)
        loads[i] += cost(key)
    return parts


def bound_of(triple: Triple) -> int:
    a, b, c = triple
    return witness_length_bound((a, b), (c, c))


# ---- test 1: closed form == brute force on 100,000 random pairs ------------------------------------

@functools.cache
def plan() -> tuple[dict[Triple, list[tuple[int, str]]], list[list[GroupKey]], dict[GroupKey, dict[str, int]]]:
    """Every relation bit of every pair, as (pair index, role) under its canonical triple, then chunks.

    Role "direct" is (a, b, c) -> feeding/bleeding of r_i on r_j; role "counter" is (c, d, a) ->
    counter-feeding/counter-bleeding. Each of the 400,000 bits is checked in exactly one chunk.
    """
    uses: dict[Triple, list[tuple[int, str]]] = defaultdict(list)
    for index, ((a, b), (c, d)) in enumerate(random_pairs()):
        uses[canonical(a, b, c)].append((index, "direct"))
        uses[canonical(c, d, a)].append((index, "counter"))
    groups = group_by_rule(uses, bound_of)
    return dict(uses), split(groups, CHUNKS), groups


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_closed_form_equals_brute_force_on_random_pairs(chunk: int) -> None:
    uses, parts, groups = plan()
    pairs = random_pairs()
    checked = 0
    for key in parts[chunk]:
        a, b, m = key
        brute = brute_group(a, b, m, groups[key])
        for c, (feed_len, bleed_len) in brute.items():
            # the closed-form witnesses are shortest: their lengths must match the brute force exactly
            fw, bw = feeding_witness((a, b), (c, c)), bleeding_witness((a, b), (c, c))
            assert (None if fw is None else len(fw)) == feed_len, (a, b, c, fw)
            assert (None if bw is None else len(bw)) == bleed_len, (a, b, c, bw)
            for index, role in uses[(a, b, c)]:
                rel = pair_relations(*pairs[index])
                f_key, b_key = ("feeding", "bleeding") if role == "direct" else ("counter_feeding", "counter_bleeding")
                assert rel[f_key] == (feed_len is not None), (pairs[index], role, (a, b, c))
                assert rel[b_key] == (bleed_len is not None), (pairs[index], role, (a, b, c))
                checked += 2
    assert checked > 0


def test_every_pair_is_covered_exactly_once() -> None:
    uses, parts, _ = plan()
    assert len(random_pairs()) == N_PAIRS
    assert sum(len(v) for v in uses.values()) == 2 * N_PAIRS
    keys = [key for part in parts for key in part]
    assert len(keys) == len(set(keys))
    assert {(a, b, letters_used((a, b, c))) for a, b, c in uses} == set(keys)


def test_grouped_brute_force_matches_the_reference_brute_force() -> None:
    """The fast brute force above against the plain one in core (itertools + count_overlapping)."""
    rng = random.Random(SEED + 1)
    for _ in range(150):
        alphabet = rng.choice(["xy", "xyz"])
        ri, rj = _random_rule(rng, alphabet), _random_rule(rng, alphabet)
        limit = min(witness_length_bound(ri, rj), 6)
        a, b, c = canonical(ri[0], ri[1], rj[0])
        feed_len, bleed_len = brute_group(a, b, letters_used((a, b, c)), {c: limit})[c]
        assert brute_feeds(ri, rj, limit) == (feed_len is not None)
        assert brute_bleeds(ri, rj, limit) == (bleed_len is not None)
        witness = brute_witness(ri, rj, limit, "feeding")
        assert (None if witness is None else len(witness)) == feed_len


# ---- test 2: the witness bound -----------------------------------------------------------------

def box_triples(max_letters: int | None = None) -> list[Triple]:
    """Every triple of the certified box (|a|, |c| in 1..3, |b| in 0..3) up to renaming, a != b."""
    out = []
    for la, lb, lc in itertools.product(range(1, 4), range(4), range(1, 4)):
        for word in _growth_words(la + lb + lc, max_letters):
            a, b, c = word[:la], word[la:la + lb], word[la + lb:]
            if a != b:
                out.append((a, b, c))
    return out


def _growth_words(n: int, max_letters: int | None) -> list[str]:
    """Words whose letters appear in alphabetical order of first use: one per renaming class."""
    words = [""]
    for _ in range(n):
        words = [w + LETTERS[i] for w in words for i in range(len(set(w)) + 1)
                 if max_letters is None or i < max_letters]
    return words


@functools.cache
def bound_plus_two_plan() -> tuple[list[list[GroupKey]], dict[GroupKey, dict[str, int]]]:
    """All 2-letter triples of the box, plus every 3-letter triple of a fixed sample of 60 rules."""
    triples = box_triples()
    two = [t for t in triples if letters_used(t) <= 2]
    three_rules = sorted({(a, b) for a, b, c in triples if letters_used((a, b, c)) == 3})
    sample = set(random.Random(SEED + 2).sample(three_rules, 60))
    three = [t for t in triples if letters_used(t) == 3 and (t[0], t[1]) in sample]
    groups = group_by_rule(two + three, lambda t: bound_of(t) + 2)
    return split(groups, 6), groups


@pytest.mark.parametrize("chunk", range(6))
def test_witness_bound_holds_at_bound_plus_two(chunk: int) -> None:
    parts, groups = bound_plus_two_plan()
    for key in parts[chunk]:
        a, b, m = key
        for c, lengths in brute_group(a, b, m, groups[key]).items():
            bound = bound_of((a, b, c))
            for found, decided in zip(lengths, (feeds((a, b), (c, c)), bleeds((a, b), (c, c))), strict=True):
                assert decided == (found is not None), (a, b, c)
                assert found is None or found <= bound, (a, b, c, found, bound)


def test_the_grouped_brute_force_enumerates_only_the_letters_of_the_triple() -> None:
    """The bound and closed-form tests enumerate m^n strings, not (m + 1)^n (see the top)."""
    assert len(strings(2, 5)) == 2 ** 5 and len(strings(3, 4)) == 3 ** 4
    assert not any(FRESH in s for s in strings(3, 4))
    assert len(strings(2, 5, True)) == 3 ** 5


@settings(max_examples=300, deadline=None)
@given(
    p=st.text("abc", max_size=8),
    q=st.text("abc", max_size=8),
    a=st.text("abc", min_size=1, max_size=3),
    b=st.text("abc", max_size=3),
    c=st.text("abc", min_size=1, max_size=3),
)
def test_a_fresh_character_splits_the_rewrite_and_the_count(p: str, q: str, a: str, b: str, c: str) -> None:
    """Why the brute force needs no character outside chars(a, b, c): one splits s into parts that the
    rewrite and the count treat apart, so D(p + "#" + q) = D(p) + D(q)."""
    s = p + FRESH + q
    assert s.replace(a, b) == p.replace(a, b) + FRESH + q.replace(a, b)
    assert count_change((a, b), c, s) == count_change((a, b), c, p) + count_change((a, b), c, q)


def test_a_fresh_character_never_shortens_a_witness() -> None:
    """Every group of the bound test, with and without the fresh character, up to 8 (two letters) or 6
    (three): the same shortest witnesses and the same absences (the enumeration with it is 3^n and 4^n
    strings: to the full bound + 2 it was ~40 s of CPU)."""
    _, groups = bound_plus_two_plan()
    compared = 0
    for (a, b, m), limits in groups.items():
        capped = {c: min(limit, 8 if m <= 2 else 6) for c, limit in limits.items()}
        assert brute_group(a, b, m, capped, fresh=True) == brute_group(a, b, m, capped), (a, b, m)
        compared += len(capped)
    assert compared == sum(len(limits) for limits in groups.values()) > 3000


@pytest.mark.parametrize("la", range(1, 4))
def test_tight_bound_certified_on_the_whole_box(la: int) -> None:
    """Exact shortest witnesses (the max-plus programme) for all 40,612 triples fit the tight bound."""
    count = 0
    for a, b, c in box_triples():
        if len(a) != la:
            continue
        count += 1
        bound = tight_witness_length_bound(len(a), len(b), len(c))
        assert bound == witness_length_bound((a, b), (c, c)) <= proven_witness_length_bound(len(a), len(b), len(c))
        for witness in (feeding_witness((a, b), (c, c)), bleeding_witness((a, b), (c, c))):
            assert witness is None or len(witness) <= bound, (a, b, c, witness)
    assert count > 0


def test_box_size_and_attained_bounds() -> None:
    assert len(box_triples()) == 40_612
    # the bound is attained, so it cannot be lowered: deletion needing two sites, and single sites
    assert len(feeding_witness(("xyx", ""), ("xyy", "q"))) == 9 == tight_witness_length_bound(3, 0, 3)
    assert len(bleeding_witness(("xxy", "yyx"), ("yyx", "q"))) == 7 == tight_witness_length_bound(3, 3, 3)


def test_bound_outside_the_box_is_the_proven_one() -> None:
    assert CERTIFIED_MAX_LEN == 3
    assert witness_length_bound(("abcd", "x"), ("ab", "y")) == proven_witness_length_bound(4, 1, 2)
    assert witness_length_bound(("a", ""), ("abcd", "y")) == proven_witness_length_bound(1, 0, 4)


@settings(max_examples=150, deadline=None)
@given(
    a=st.text("xyz", min_size=1, max_size=5),
    b=st.text("xyz", max_size=5),
    c=st.text("xyz", min_size=1, max_size=5),
)
def test_beyond_the_box_witnesses_are_sound_and_short_ones_are_found(a: str, b: str, c: str) -> None:
    """Longer rules: every witness really witnesses; brute force up to 6 finds nothing the closed form misses."""
    ri, rj = (a, b), (c, "q")
    for decide, witness, sign, brute in ((feeds, feeding_witness, 1, brute_feeds),
                                         (bleeds, bleeding_witness, -1, brute_bleeds)):
        w = witness(ri, rj)
        assert (w is not None) == decide(ri, rj)
        if w is not None:
            assert sign * count_change(ri, c, w) > 0
            assert len(w) <= witness_length_bound(ri, rj)
        if brute(ri, rj, 6 if len(set(a + b + c)) < 3 else 5):
            assert w is not None and len(w) <= 6


# ---- test 3: the paper's cases and the tricky ones ------------------------------------------------

def relations(ri: Rule, rj: Rule) -> tuple[bool, bool]:
    return feeds(ri, rj), bleeds(ri, rj)


def test_deletion() -> None:
    assert relations(("x", ""), ("yy", "q")) == (True, False)
    assert feeding_witness(("x", ""), ("yy", "q")) == "yxy"
    assert witness_case(("x", ""), ("yy", "q")) == "deletion"
    # deleting x can never create a string containing x
    assert relations(("x", ""), ("xy", "q")) == (False, True)


def test_containment() -> None:
    assert relations(("x", "yzy"), ("zy", "q")) == (True, False)
    assert feeding_witness(("x", "yzy"), ("zy", "q")) == "x"
    assert witness_case(("x", "yzy"), ("zy", "q")) == "containment"
    # containment is not enough: ("cc", "c") creates a "c" but always destroys two
    assert relations(("cc", "c"), ("c", "q")) == (False, True)
    assert bleeding_witness(("cc", "c"), ("c", "q")) == "cc"


def test_subsumption() -> None:
    assert relations(("x", "y"), ("zyz", "q")) == (True, False)
    assert feeding_witness(("x", "y"), ("zyz", "q")) == "zxz"
    assert witness_case(("x", "y"), ("zyz", "q")) == "subsumption"


def test_completion() -> None:
    assert feeding_witness(("x", "ab"), ("bc", "q")) == "xc"
    assert feeding_witness(("x", "ab"), ("ca", "q")) == "cx"
    assert witness_case(("x", "ab"), ("bc", "q")) == "completion"
    # the completing character is itself rewritten: "zz" -> "yy", never "yz"
    assert relations(("z", "y"), ("yz", "q")) == (False, True)
    assert bleeding_witness(("z", "y"), ("yz", "q")) == "yz"


def test_feeding_that_needs_two_sites() -> None:
    ri, rj = ("a", "ab"), ("abab", "q")
    assert feeds(ri, rj) and feeding_witness(ri, rj) == "aa"
    # one site leaves a single "a" in r(s), and "abab" needs two: checked on every string up to 9
    one_site = (s for s in itertools.chain.from_iterable(strings(2, n, True) for n in range(10)) if s.count("a") == 1)
    assert all(count_change(ri, "abab", s) <= 0 for s in one_site)
    # two interleaved deletions
    assert feeding_witness(("xyx", ""), ("xyy", "q")) == "xxyxyxyxy"
    assert witness_case(("xyx", ""), ("xyy", "q")) == "multi-site"


def test_bleeding_that_needs_a_chain_of_sites() -> None:
    # a single site creates one "xx" and destroys one; two adjacent sites destroy the straddling one
    assert relations(("xx", "yxx"), ("xx", "q")) == (False, True)
    assert bleeding_witness(("xx", "yxx"), ("xx", "q")) == "xxxx"
    assert witness_case(("xx", "yxx"), ("xx", "q"), "bleeding") == "multi-site"
    # three sites, and no single occurrence of the lhs spans them all
    assert bleeding_witness(("xx", "yxxx"), ("xxx", "q")) == "xxxxxx"


def test_overlapping_counts_matter() -> None:
    assert count_overlapping("aaa", "aa") == 2 and "aaa".count("aa") == 1
    assert count_overlapping("xyxyx", "xyx") == 2 and count_overlapping("abc", "d") == 0
    with pytest.raises(ValueError):
        count_overlapping("abc", "")
    # "xx" -> "x": non-overlapping counts would see "xxx" (1) -> "xx" (1), overlapping ones 2 -> 1
    assert relations(("xx", "x"), ("xx", "q")) == (False, True)
    # ("ab", "ba") both feeds and bleeds "ab": "aabb" -> "abab", "abab" -> "baba"
    assert relations(("ab", "ba"), ("ab", "q")) == (True, True)
    assert feeding_witness(("ab", "ba"), ("ab", "q")) == "aabb"


def test_identity_and_alignment_free_rules() -> None:
    assert relations(("ab", "ab"), ("a", "q")) == (False, False)
    assert feeding_witness(("ab", "ab"), ("a", "q")) is None
    # no alignment of the lhs with the rhs (no gain possible) nor with the lhs (no loss possible)
    assert gain_alignments(("x", "y"), ("zz", "q")) == [] and loss_alignments(("x", "y"), ("zz", "q")) == []
    assert relations(("x", "y"), ("zz", "q")) == (False, False)
    with pytest.raises(ValueError):
        feeds(("", "y"), ("x", "q"))


def test_alignments_name_the_paper_cases() -> None:
    cases = [al.case for al in gain_alignments(("q", "ab"), ("abc", "q"))]
    assert cases == ["subsumption"]
    cases = [al.case for al in gain_alignments(("q", "abc"), ("bc", "q"))]
    assert cases == ["containment"]
    assert [(al.x, al.y) for al in gain_alignments(("q", ""), ("xyz", "q"))] == [("x", "yz"), ("xy", "z")]
    assert {al.case for al in gain_alignments(("q", "ab"), ("bab", "q"))} == {"completion", "subsumption"}


# ---- test 4: pairs, cascades, categories ---------------------------------------------------------

def test_pair_relations_and_counter_relations() -> None:
    first, second = ("a", "b"), ("b", "c")
    assert pair_relations(first, second) == {
        "feeding": True, "bleeding": False, "counter_feeding": False, "counter_bleeding": False}
    assert pair_relations(second, first) == {
        "feeding": False, "bleeding": False, "counter_feeding": True, "counter_bleeding": False}
    rng = random.Random(SEED + 3)
    for _ in range(300):
        ri, rj = _random_rule(rng, "xyz"), _random_rule(rng, "xyz")
        forward, backward = pair_relations(ri, rj), pair_relations(rj, ri)
        assert list(forward) == list(RELATION_KEYS)
        assert forward["counter_feeding"] == backward["feeding"] == feeds(rj, ri)
        assert forward["counter_bleeding"] == backward["bleeding"] == bleeds(rj, ri)


def test_cascade_relations_take_any_ordered_pair() -> None:
    assert cascade_relations([]) == dict.fromkeys(RELATION_KEYS, False)
    assert cascade_relations([("a", "b")]) == dict.fromkeys(RELATION_KEYS, False)
    assert category_bits(cascade_relations([("a", "b"), ("b", "c")])) == "1000"
    assert category_bits(cascade_relations([("b", "c"), ("a", "b")])) == "0010"
    # the only related pair is (first, third): a rule in between does not hide it
    cascade = [("a", "b"), ("x", "y"), ("b", "c")]
    assert category_bits(cascade_relations(cascade)) == "1000"
    # lists (as in JSON) are accepted
    assert cascade_relations([["a", "b"], ["b", "c"]]) == cascade_relations([("a", "b"), ("b", "c")])


def test_cascade_relations_is_the_or_over_pairs() -> None:
    rng = random.Random(SEED + 4)
    for _ in range(200):
        cascade = [_random_rule(rng, "xyz") for _ in range(rng.randint(2, 5))]
        expected = {key: any(pair_relations(cascade[i], cascade[j])[key]
                             for i, j in itertools.combinations(range(len(cascade)), 2))
                    for key in RELATION_KEYS}
        assert cascade_relations(cascade) == expected


def test_all_four_relations_and_category_bits() -> None:
    both = ("ab", "ba")  # feeds and bleeds "ab"; ("ab", "x") only bleeds it
    assert category_bits(cascade_relations([both, ("ab", "x")])) == "1101"
    assert category_bits(cascade_relations([("ab", "x"), both])) == "0111"
    assert category_bits(cascade_relations([both, both])) == "1111"
    assert category_bits({"feeding": True, "bleeding": False, "counter_feeding": True, "counter_bleeding": False}) == "1010"
    assert category_bits({"bleeding": 1}) == "0100"  # missing keys are absent relations
