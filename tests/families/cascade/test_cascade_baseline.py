"""The cascade family's baseline solver: answers verify, hopeless problems stop early, determinism.

Problems come from a small maker that follows the generator's procedure (paper §3.1.2), so these tests do
not depend on the generator module. Budgets are generous next to the milliseconds the problems take:
nothing here depends on timing.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.cascade import align, baseline
from core.families.cascade.baseline import Rule, solve, verify

REPO = Path(__file__).resolve().parents[3]
BUDGET = 5.0


def make_problem(
    seed: int, length: int, alphabet: str = "abcdefghij", n_examples: int = 5
) -> tuple[list[str], list[str], list[Rule]]:
    """Inputs of 2-6 letters and `length` rules (lhs a 1-3 letter substring of the current strings,
    rhs 1-3 random letters, each rule changing at least one string), like the generator."""
    rng = random.Random(seed)
    while True:
        inputs = ["".join(rng.choices(alphabet, k=rng.randint(2, 6))) for _ in range(n_examples)]
        current, cascade = list(inputs), []
        for _ in range(200):
            if len(cascade) == length:
                break
            size = rng.randint(1, 3)
            subs = sorted({s[i : i + size] for s in current for i in range(len(s) - size + 1)})
            if not subs:
                continue
            rule = (rng.choice(subs), "".join(rng.choices(alphabet, k=rng.randint(1, 3))))
            following = [s.replace(*rule) for s in current]
            if following != current:
                current, cascade = following, [*cascade, rule]
        if len(cascade) == length and current != inputs:
            return inputs, current, cascade


def assert_solves(inputs: list[str], outputs: list[str], max_programs: int) -> list[Rule]:
    found = solve(inputs, outputs, max_programs, BUDGET)
    assert found is not None, (inputs, outputs)
    assert len(found) <= max_programs
    assert all(lhs for lhs, _ in found)
    assert [baseline._run(s, found) for s in inputs] == outputs
    return found


def test_identity_needs_no_rules() -> None:
    assert solve(["ab", "c"], ["ab", "c"], 3, BUDGET) == []


def test_one_rule_problem_gets_one_rule() -> None:
    assert solve(["abc", "bcd", "xx"], ["aqc", "qcd", "xx"], 5, BUDGET) == [("b", "q")]


@pytest.mark.parametrize(
    ("inputs", "outputs"),
    [
        (["ab", "ab"], ["x", "y"]),  # one input cannot become two outputs
        (["", "a"], ["b", "a"]),  # nothing rewrites the empty string
    ],
)
def test_impossible_problems_stop_before_searching(
    inputs: list[str], outputs: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_search(*args: object) -> None:
        raise AssertionError("searched a problem that cannot have an answer")

    monkeypatch.setattr(baseline, "_bidirectional", no_search)
    assert solve(inputs, outputs, 5, BUDGET) is None


def test_swap_needs_three_rules() -> None:
    # one rule cannot swap two letters, and neither can two: after a->X and then b->a, X must become b
    assert solve(["a", "b"], ["b", "a"], 2, BUDGET) is None
    found = assert_solves(["a", "b"], ["b", "a"], 3)
    assert len(found) == 3


def test_zero_budget_gives_up() -> None:
    inputs, outputs, _ = make_problem(1, 2)
    assert solve(inputs, outputs, 5, 0.0) is None


def test_mismatched_lengths_are_an_error() -> None:
    with pytest.raises(ValueError, match="2 inputs but 1 outputs"):
        solve(["a", "b"], ["a"], 3, BUDGET)


@pytest.mark.parametrize("length", [2, 3])
@pytest.mark.parametrize("seed", range(8))
def test_solves_generated_problems_within_their_length(length: int, seed: int) -> None:
    # the bound is the ground truth's own length, the tightest a snapshot can give
    inputs, outputs, _ = make_problem(100 * length + seed, length)
    assert_solves(inputs, outputs, length)


@pytest.mark.parametrize(
    ("inputs", "rules"),
    [
        # feeding: the first rule writes what the second one rewrites
        (["dea", "eedeaa", "dcdc", "ce", "abccbd"], [("e", "eec"), ("c", "ce")]),
        (["edab", "ea", "caabd", "beb", "ddcb"], [("d", "eab"), ("e", "dab"), ("bd", "c")]),
        # bleeding: the first rule removes what the second would have rewritten
        (["ab", "b", "cab", "bb", "ca"], [("ab", "c"), ("b", "d")]),
        # a tiny alphabet, where every rule interacts with the others
        (["acb", "bcccb", "abbc", "cc", "bcab"], [("b", "ac"), ("ca", "b")]),
    ],
)
def test_solves_interacting_rules(inputs: list[str], rules: list[Rule]) -> None:
    # K = 5 as in pbebench-lite: a shorter equivalent cascade, or a longer one, is as good
    outputs = [baseline._run(s, rules) for s in inputs]
    assert_solves(inputs, outputs, 5)


def test_strings_may_hold_any_character() -> None:
    # the search joins the strings with NUL internally; a NUL in the data must not confuse it
    assert_solves(["x\0", "\0\0y", "ab"], ["x\0", "\0zy", "ab"], 2)


def test_solves_fifty_examples() -> None:
    inputs, outputs, cascade = make_problem(7, 4, alphabet="abcdefghijklmnopqrstuvwxyz", n_examples=50)
    assert_solves(inputs, outputs, len(cascade))


@pytest.mark.parametrize("seed", range(6))
def test_answers_always_verify_even_for_random_pairs(seed: int) -> None:
    # unrelated input/output pairs are mostly unsolvable: whatever comes back must still be exact
    rng = random.Random(seed)
    inputs = ["".join(rng.choices("abc", k=rng.randint(2, 4))) for _ in range(3)]
    outputs = ["".join(rng.choices("abc", k=rng.randint(2, 4))) for _ in range(3)]
    found = solve(inputs, outputs, 3, 0.3)
    assert found is None or verify(inputs, outputs, found, 3)


def test_verify_rejects_bad_cascades() -> None:
    assert verify(["ab"], ["cb"], [("a", "c")], 1)
    assert not verify(["ab"], ["cb"], [("a", "c")], 0)  # too long
    assert not verify(["ab"], ["cb"], [("", "c"), ("a", "c")], 2)  # empty lhs
    assert not verify(["ab"], ["cb"], [("b", "c")], 1)  # wrong output


_DETERMINISM_SCRIPT = """
import json, sys
from core.families.cascade.baseline import solve
problems = json.loads(sys.argv[1])
print(json.dumps([solve(i, o, k, 5.0) for i, o, k in problems]))
"""


def test_same_answers_under_any_hash_seed() -> None:
    problems = [[*make_problem(seed, length)[:2], length] for seed, length in [(3, 2), (4, 3), (5, 4)]]
    problems.append([*make_problem(6, 3, alphabet="abc")[:2], 5])
    answers = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", _DETERMINISM_SCRIPT, json.dumps(problems)],
            cwd=REPO, env=env, capture_output=True, text=True, check=True,
        )
        answers.append(json.loads(done.stdout))
    assert answers[0] == answers[1]
    assert all(answer is not None for answer in answers[0])
    in_process = [solve(i, o, k, BUDGET) for i, o, k in problems]
    assert [[list(rule) for rule in answer] for answer in in_process if answer is not None] == answers[0]


def test_solves_the_first_pbebench_lite_items_within_their_length() -> None:
    # one item per relation category (feeding, bleeding, ... in every combination), K = ground-truth length
    from core.family import get_family

    family = get_family("cascade")
    params = family.resolve_params("pbebench-lite")
    for index in range(16):
        instance = family.generate_one(params, 0, index)
        assert_solves(instance.inputs, instance.outputs, instance.meta["cascade_length"])


# ---- bounded work on long strings ------------------------------------------------------------------
def long_reversal(seed: int = 0, size: int = 10_000, count: int = 5) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    inputs = ["".join(rng.choices("abc", k=size)) for _ in range(count)]
    return inputs, [text[::-1] for text in inputs]


def test_long_strings_return_within_the_budget() -> None:
    # before the caps, one difflib alignment of two such strings ran for seconds without a clock read
    # (6,000 characters: the first distances take well under the budget, so the alignment is reached)
    inputs, outputs = long_reversal(0, 6_000, 3)
    budget = 0.3
    start = time.monotonic()
    found = solve(inputs, outputs, 5, budget)
    elapsed = time.monotonic() - start
    assert found is None or verify(inputs, outputs, found, 5)
    assert elapsed < budget + 3.0  # generous: the measured overrun is a few hundredths of a second


def test_no_uninterruptible_call_exceeds_its_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    # the clock is read between calls, so each call's size is what bounds the overrun
    sizes: dict[str, list[int]] = {"difflib": [], "levenshtein": [], "table": []}

    def recording(name: str, real: Callable[..., Any], at: int) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            sizes[name].append(len(args[at]) * len(args[at + 1]))
            return real(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(align, "SequenceMatcher", recording("difflib", align.SequenceMatcher, 1))
    monkeypatch.setattr(align, "levenshtein", recording("levenshtein", align.levenshtein, 0))
    monkeypatch.setattr(align, "edit_table", recording("table", align.edit_table, 0))
    # a fixed number of units of work (here: of ticks, whatever their cost): the same on any machine
    ticks = iter(range(60))

    def tick(self: object, cost: int = 1) -> None:
        if next(ticks, None) is None:
            raise baseline._OutOfTime

    monkeypatch.setattr(baseline._Clock, "tick", tick)
    inputs, outputs = long_reversal(1, 3_000)
    # a long pair whose changed middle is short enough for difflib
    middle = long_reversal(2, 300)[0][0]
    inputs.append("x" * 4_000 + middle + "y" * 4_000)
    outputs.append("x" * 4_000 + middle[::-1] + "y" * 4_000)
    solve(inputs, outputs, 5, 60.0)
    assert next(ticks, None) is None  # the search ran until the tick allowance, not to an early answer
    assert sizes["difflib"] and sizes["levenshtein"]  # the capped paths did run
    assert max(sizes["difflib"]) <= align.MAX_DIFFLIB_CELLS
    assert max(sizes["levenshtein"]) <= align.MAX_DISTANCE_CELLS
    assert max(sizes["table"], default=0) <= align.MAX_TABLE


def exact_fixes_by_definition(text: str, want: str) -> set[Rule]:
    """Every (lhs, rhs) with lhs a substring of at most _MAX_EXACT_LHS characters that maps text to want."""
    rules = set()
    for i in range(len(text)):
        for j in range(i + 1, min(len(text), i + baseline._MAX_EXACT_LHS) + 1):
            lhs = text[i:j]
            rules.update((lhs, want[k:m]) for k in range(len(want) + 1) for m in range(k, len(want) + 1)
                         if lhs != want[k:m] and text.replace(lhs, want[k:m]) == want)
    return rules


@settings(max_examples=150, deadline=None)
@given(st.text("abc", min_size=1, max_size=7), st.text("abc", max_size=7))
def test_exact_fixes_only_skip_lhs_that_cannot_work(text: str, want: str) -> None:
    # the search starts at the first difference; that loses nothing on strings of generator size
    if text != want:
        assert baseline._exact_fixes(text, want) == exact_fixes_by_definition(text, want)


def undo_by_definition(text: str, lhs: str, rhs: str) -> set[tuple[str, int]]:
    """Each set of non-overlapping occurrences of rhs among its first _MAX_UNDO_SPOTS turned back into lhs."""
    spots = [i for i in range(len(text) - len(rhs) + 1) if text.startswith(rhs, i)][: baseline._MAX_UNDO_SPOTS]
    out = set()
    for mask in itertools.product((False, True), repeat=len(spots)):
        chosen = [spot for spot, take in zip(spots, mask, strict=True) if take]
        if any(b < a + len(rhs) for a, b in itertools.pairwise(chosen)):
            continue
        pieces, pos = [], 0
        for spot in chosen:
            pieces.extend((text[pos:spot], lhs))
            pos = spot + len(rhs)
        out.add(("".join(pieces) + text[pos:], len(chosen)))
    return out


@settings(max_examples=200, deadline=None)
@given(st.text("ab", max_size=16), st.text("ab", min_size=1, max_size=2), st.text("abc", min_size=1, max_size=2))
def test_undo_choices_take_the_first_occurrences_overlaps_included(text: str, rhs: str, lhs: str) -> None:
    assert set(baseline._undo_choices(text, lhs, rhs)) == undo_by_definition(text, lhs, rhs)


# ---- the bar on real data ------------------------------------------------------------------
def test_solves_most_of_the_first_fifty_length_two_pbebench_lite_items() -> None:
    from core.family import get_family

    family = get_family("cascade")
    params = family.resolve_params("pbebench-lite")
    items = []
    index = 0
    while len(items) < 50:
        instance = family.generate_one(params, 0, index)
        if instance.meta["cascade_length"] == 2:
            items.append(instance)
        index += 1
    solved = 0
    for instance in items:
        k = instance.max_programs()
        found = solve(instance.inputs, instance.outputs, k, BUDGET)
        assert found is None or verify(instance.inputs, instance.outputs, found, k), instance.id
        solved += found is not None
    assert solved / len(items) >= 0.8, f"{solved} of {len(items)}"


class _WatchedEmpty(list):
    """An empty frontier that fails the test when looked at too often (a loop counting up to K)."""

    looks = 0

    def __bool__(self) -> bool:
        _WatchedEmpty.looks += 1
        if _WatchedEmpty.looks > 1_000:
            raise AssertionError("the search keeps looping over empty frontiers")
        return False


def test_a_huge_k_stops_when_the_frontiers_run_dry(monkeypatch: pytest.MonkeyPatch) -> None:
    # K comes from meta.max_programs, which an instance file from elsewhere may set to anything
    def dry_step(self: baseline._Side, *args: object) -> None:
        self.frontier = _WatchedEmpty()  # no candidate rule: this side has nowhere left to go

    monkeypatch.setattr(baseline._Side, "step", dry_step)
    _WatchedEmpty.looks = 0
    assert solve(["ab", "b"], ["ba", "a"], 10**12, BUDGET) is None
    assert _WatchedEmpty.looks > 0
