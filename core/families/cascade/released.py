"""The released PBEBench's conventions, reimplemented from their documented behaviour (not copied).

The authors' repository (GitHub `cmu-llab/PBEBench`) ships the data, a relation detector and a scorer
whose rules differ from the paper's text in places. This module holds what the workbench needs to read
and reproduce them:

- the alphabets of the released files (Lite and Lite-MoreEg: `abcdefghijkuvwxyz`, the generator's and
  the scorer's default; PBEBench and the (25, 30) files: upper and lower case letters);
- the program strings of the files (`replace("a", "b")`, in the `*_promptsfile*` files with escaped
  quotes `replace(\\"a\\", \\"b\\")`);
- the released relation detector: per ordered pair of programs (i, j), i != j, "F" when program i
  *potentially feeds* program j, "B" when it *potentially bleeds* it, "N" for neither. The tests are
  on the two rules' strings alone (no counting over strings), stated in `released_feeds` /
  `released_bleeds`. A pair (i, j) with i < j gives the feeding / bleeding bits, i > j the counter ones;
  the category string is F, B, CF, CB. The exact classifier of `relations.py` is the count-based
  analysis tool; this one is what the released benchmark's categories mean.

Everything here is a pure function of strings, so instances stay generable alone.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

# The Lite alphabet: a-k and u-z (the released generator's default, the scorer's default, and every
# character of the released Lite files).
LITE_ALPHABET = "abcdefghijkuvwxyz"
# PBEBench (2-20) and the (25, 30) files mix upper and lower case.
FULL_ALPHABET = string.ascii_lowercase + string.ascii_uppercase
# The released scorer's limit on either side of a program.
MAX_SIDE = 3

Edge = tuple[int, tuple[str, ...], int]


# ---- the detector's tests (one ordered pair of rules) -----------------------------------------

# Rule sides are short and repeat a lot: the sets are cached (frozensets, so they cannot be altered).
@lru_cache(maxsize=1 << 14)
def _substrings(text: str) -> frozenset[str]:
    return frozenset(text[i:j] for i in range(len(text)) for j in range(i + 1, len(text) + 1))


@lru_cache(maxsize=1 << 14)
def _prefixes(text: str) -> frozenset[str]:
    return frozenset(text[:k] for k in range(1, len(text) + 1))


@lru_cache(maxsize=1 << 14)
def _suffixes(text: str) -> frozenset[str]:
    return frozenset(text[k:] for k in range(len(text)))


def _new_overlap(status_quo: str, first: str, second: str) -> bool:
    """Some non-empty prefix of one of first/second is a suffix of the other and does not occur in
    `status_quo` (a join that `status_quo` cannot already explain)."""
    overlaps = (_prefixes(first) & _suffixes(second)) | (_prefixes(second) & _suffixes(first))
    return bool(overlaps) and not overlaps <= _substrings(status_quo)


def released_feeds(a_in: str, a_out: str, b_in: str) -> bool:
    """Does replace(a_in, a_out) potentially feed a rule with lhs b_in (the released detector's test)?

    True when the rule changes something (a_in != a_out) and one of: it deletes (a_out empty) and b_in
    has two or more characters (a deletion can join them); a_out is a non-empty part of b_in that a_in
    does not contain; b_in is part of a_out and occurs in a_out more often than in a_in; or a_out and
    b_in overlap end to start by a piece a_in does not contain.
    """
    if a_in == a_out:
        return False
    if a_out == "" and len(b_in) > 1:
        return True
    if a_out and a_out in b_in and a_out not in a_in:
        return True
    if b_in and b_in in a_out and a_out.count(b_in) > a_in.count(b_in):
        return True
    return _new_overlap(a_in, a_out, b_in)


def released_bleeds(a_in: str, a_out: str, b_in: str) -> bool:
    """Does replace(a_in, a_out) potentially bleed a rule with lhs b_in (the released detector's test)?

    The mirror of `released_feeds` with the two sides of the first rule swapped: an empty lhs with b_in
    of two or more characters; a_in a non-empty part of b_in that a_out does not contain; b_in part of
    a_in and occurring in a_out less often; or a_in and b_in overlapping by a piece a_out does not contain.
    """
    if a_in == a_out:
        return False
    if a_in == "" and len(b_in) > 1:
        return True
    if a_in and a_in in b_in and a_in not in a_out:
        return True
    if b_in and b_in in a_in and a_out.count(b_in) < a_in.count(b_in):
        return True
    return _new_overlap(a_out, a_in, b_in)


def _joins_outside(status_quo: str, first: str, second: str) -> bool:
    """`_new_overlap` with string operations only: a piece that is a prefix of one of first/second and
    a suffix of the other (k characters, k from 1 to the shorter length) and not part of `status_quo`."""
    for k in range(1, min(len(first), len(second)) + 1):
        piece = first[:k]
        if second.endswith(piece) and piece not in status_quo:
            return True
        piece = second[:k]
        if first.endswith(piece) and piece not in status_quo:
            return True
    return False


def feeds_bleeds(a_in: str, a_out: str, b_in: str) -> int:
    """`released_feeds` (bit 1) and `released_bleeds` (bit 2) of the same three strings at once, with
    string operations only: the generator tests every new rule against every earlier one, ~0.7 million
    times for PBEBench-Lite, and the set-based tests above (kept as the statement) cost several times
    more. Equal to them on every input (tests/families/cascade/test_cascade_released.py compares every
    triple of strings up to three characters over three letters)."""
    if a_in == a_out:
        return 0
    if len(b_in) == 1:
        # one character c (most lhs): every test above reduces to comparing how often c occurs in
        # a_out and in a_in (the overlaps and the containments are c at an end of, or inside, a side)
        change = a_out.count(b_in) - a_in.count(b_in)
        return 1 if change > 0 else 2 if change < 0 else 0
    long_b = len(b_in) > 1
    bits = 0
    if ((not a_out and long_b) or (a_out and a_out in b_in and a_out not in a_in)
            or (b_in and b_in in a_out and a_out.count(b_in) > a_in.count(b_in))
            or _joins_outside(a_in, a_out, b_in)):
        bits = 1
    if ((not a_in and long_b) or (a_in and a_in in b_in and a_in not in a_out)
            or (b_in and b_in in a_in and a_out.count(b_in) < a_in.count(b_in))
            or _joins_outside(a_out, a_in, b_in)):
        bits |= 2
    return bits


def pair_labels(first: Sequence[str], second: Sequence[str]) -> tuple[str, ...]:
    """The labels of the ordered pair (first, second): ("F",), ("B",), ("F", "B") or ("N",)."""
    labels = tuple(label for label, test in (("F", released_feeds), ("B", released_bleeds))
                   if test(first[0], first[1], second[0]))
    return labels or ("N",)


def detect(cascade: Sequence[Sequence[str]]) -> list[Edge]:
    """Every ordered pair (i, labels, j), i != j, in the released order (i, then j ascending)."""
    return [(i, pair_labels(cascade[i], cascade[j]), j)
            for i, j in itertools.permutations(range(len(cascade)), 2)]


def category_of_edges(edges: Sequence[Sequence[Any]]) -> str:
    """The F, B, CF, CB bits from a list of edges: i < j gives F/B, i > j the counter-relations."""
    bits = {"F": False, "B": False, "CF": False, "CB": False}
    for edge in edges:
        if not isinstance(edge, list | tuple) or len(edge) < 3:
            continue
        src, labels, dst = edge[0], edge[1], edge[2]
        if not isinstance(src, int) or not isinstance(dst, int) or not isinstance(labels, list | tuple):
            continue
        prefix = "C" if src > dst else ""
        for label in labels:
            if label in ("F", "B"):
                bits[prefix + label] = True
    return "".join("1" if bits[key] else "0" for key in ("F", "B", "CF", "CB"))


def released_relations(cascade: Sequence[Sequence[str]]) -> dict[str, bool]:
    """The four relation flags of a cascade under the released detector (keys as in relations.py)."""
    bits = category_of_edges(detect(cascade))
    return dict(zip(("feeding", "bleeding", "counter_feeding", "counter_bleeding"),
                    (b == "1" for b in bits), strict=True))


def released_category(cascade: Sequence[Sequence[str]]) -> str:
    return category_of_edges(detect(cascade))


def added_rule_bits(cascade: Sequence[Sequence[str]], rule: Sequence[str]) -> tuple[bool, bool, bool, bool]:
    """The relation bits the pairs (earlier rule, `rule`) contribute when `rule` is appended.

    Incremental: appending a rule adds exactly the pairs between it and each earlier rule, so the
    category of a cascade is the OR of these over its rules (what makes generation linear in length).
    """
    f = b = cf = cb = False
    a_in, a_out = rule[0], rule[1]
    for prev in cascade:
        p_in, p_out = prev[0], prev[1]
        f = f or released_feeds(p_in, p_out, a_in)
        b = b or released_bleeds(p_in, p_out, a_in)
        cf = cf or released_feeds(a_in, a_out, p_in)
        cb = cb or released_bleeds(a_in, a_out, p_in)
    return f, b, cf, cb


# ---- program strings --------------------------------------------------------------------------

_PROGRAM = re.compile(r"""replace\(\s*(['"])\s*(.*?)\s*\1\s*,\s*(['"])\s*(.*?)\s*\3\s*\)""")


def parse_program_string(text: str) -> tuple[str, str] | None:
    """(lhs, rhs) of a released file's program string `replace("a", "b")` (either quote; the prompt
    files' backslash-escaped quotes are read too), or None when it does not have that shape."""
    if not isinstance(text, str):
        return None
    match = _PROGRAM.search(text.replace("\\", ""))
    if match is None:
        return None
    return match.group(2), match.group(4)


def program_string(lhs: str, rhs: str) -> str:
    """A program as the released files write it."""
    return f'replace("{lhs}", "{rhs}")'
