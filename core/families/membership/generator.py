"""Condition generator (§4.1) and probe generator (§4.2, Algorithm 1), and the per-item wiring.

Item `index` of (params, seed) is built from its own RNG streams ("condition", "probe"), so it is generable
alone and identical on every machine and PYTHONHASHSEED. Which grid combination an item belongs to is a
function of the index only; its label is drawn from the seed (`label_of`), balanced within every block of
LABEL_BLOCK items of a combination (see `MembershipParams`).
"""

from __future__ import annotations

import functools
import json
import random
from typing import Any

from core.canonical import canonical_json, derive_seed
from core.families.membership.evaluate import evaluate
from core.families.membership.model import (
    Branch,
    CompareTerm,
    Condition,
    MembershipInstance,
    MembershipParams,
    Probe,
    branch_lengths,
    function_name,
    nesting_depth,
    terminal_range,
)
from core.families.membership.render import render_code
from core.seeding import item_rng

FAMILY = "membership"
# Constants and probe integers are drawn from here (the paper's listings use two-digit integers).
CONST_MIN, CONST_MAX = -99, 99
Slot = tuple[int, int, int]  # a call position: (family, branch, term index)
# Labels are balanced within every block of this many items of one combination, half of each block's
# even-indexed items positive and half of its odd-indexed ones: the order says nothing of the label.
LABEL_BLOCK = 16


# ---- conditions --------------------------------------------------------------------------------
def _compare(rng: random.Random, index: int) -> dict[str, Any]:
    return {"kind": "compare", "index": index, "op": rng.choice(("==", "!=")),
            "value": rng.randint(CONST_MIN, CONST_MAX)}


def terminal_lengths(rng: random.Random, combo: dict[str, Any]) -> list[int]:
    """Each family's terminal length: N_T for all, or drawn per family from the range "lo..hi"."""
    lo, hi = terminal_range(combo["N_T"])
    if lo == hi:  # no draw: a single N_T keeps the random stream (and so every item) as it was
        return [lo] * combo["I"]
    return [rng.randint(lo, hi) for _ in range(combo["I"])]


def generate_condition(rng: random.Random, combo: dict[str, Any]) -> Condition:
    """I families; each has a terminal branch of length N_T (its own, with a range) and N_max - 1 branches
    with 1..b calls.

    The shape (which positions are calls) is drawn first, then the call targets (`_call_targets`), so
    that every family is reachable from is_member_0. Built as plain data and validated once (faster than
    constructing each term model).
    """
    n_functions = combo["I"]
    terminals = terminal_lengths(rng, combo)
    shapes = []
    for terminal in terminals:
        _, others = branch_lengths(combo, terminal)
        shapes.append((terminal, sorted([terminal, *others])))
    # calls[f][j]: the call positions of branch j of family f (empty for the terminal branch)
    calls: list[list[list[int]]] = []
    for terminal, lengths in shapes:
        per_branch: list[list[int]] = []
        for length in lengths:
            if length == terminal:
                per_branch.append([])
            else:
                # At least one call: a non-terminal branch without calls could not carry the probe deeper.
                # b <= length is guaranteed by MembershipParams (the paper's b_i <= N_i).
                n_calls = rng.randint(1, combo["b"])
                per_branch.append(sorted(rng.sample(range(length), n_calls)))
        calls.append(per_branch)
    targets = _call_targets(rng, calls, n_functions)
    functions: list[dict[str, Any]] = []
    for f in range(n_functions):
        branches: list[dict[str, Any]] = []
        for j, length in enumerate(shapes[f][1]):
            terms = [
                {"kind": "call", "index": k, "target": targets[(f, j, k)]} if k in calls[f][j]
                else _compare(rng, k)
                for k in range(length)
            ]
            branches.append({"length": length, "terms": terms})
        functions.append({"branches": branches})
    return Condition.model_validate({"functions": functions})


def _call_targets(rng: random.Random, calls: list[list[list[int]]], n_functions: int) -> dict[Slot, int]:
    """A target for every call slot (family, branch, position), with every family reachable from family 0.

    Uniform targets alone leave a family unreachable in about half of the I=2 conditions (the paper's
    functions are all meant to matter). So first a random spanning tree rooted at 0: the families are
    visited in a random order, each hung from a uniformly chosen earlier family that still has a free
    slot (the previous one always has, since every family has at least one call); the remaining slots
    get uniform targets, as in the paper.
    """
    free = {f: [(f, j, k) for j, positions in enumerate(branches) for k in positions]
            for f, branches in enumerate(calls)}
    targets: dict[Slot, int] = {}
    order = [0, *rng.sample(range(1, n_functions), n_functions - 1)]
    for position in range(1, n_functions):
        parents = [f for f in order[:position] if free[f]]
        parent = rng.choice(parents)
        slot = free[parent].pop(rng.randrange(len(free[parent])))
        targets[slot] = order[position]
    for f in range(n_functions):
        for slot in free[f]:
            targets[slot] = rng.randrange(n_functions)
    return targets


# ---- probes (Algorithm 1) -----------------------------------------------------------------------
def _other_int(rng: random.Random, avoid: int) -> int:
    """A uniform integer from the constant range, different from `avoid`."""
    value = rng.randint(CONST_MIN, CONST_MAX - 1)
    return value + 1 if value >= avoid else value


def _satisfy(rng: random.Random, term: CompareTerm, want: bool) -> int:
    equal = (term.op == "==") == want
    return term.value if equal else _other_int(rng, term.value)


def solve_terminal(rng: random.Random, branch: Branch, result: bool) -> list[Any]:
    """SOLVETERMINAL: values for the comparisons of `branch` whose conjunction is `result`.

    For False a single comparison is broken (the paper's "changing a single entry"); call positions are
    left as None for the caller to fill.
    """
    compares = [t for t in branch.terms if isinstance(t, CompareTerm)]
    broken = rng.randrange(len(compares)) if not result else -1
    x: list[Any] = [rng.randint(CONST_MIN, CONST_MAX) for _ in range(branch.length)]  # untouched positions
    for i, term in enumerate(compares):
        x[term.index] = _satisfy(rng, term, i != broken)
    for term in branch.calls():
        x[term.index] = None
    return x


def generate_probe(condition: Condition, rng: random.Random, function: int, depth: int, result: bool) -> Probe:
    """GENERATESOLUTION: x of nesting depth `depth` with is_member_{function}(x) == result.

    Non-terminal levels satisfy their comparisons and every call recurses with the same `result`, so a
    negative probe fails only in terminal formulas at depth d: an evaluator needs d steps to see it.
    """
    branches = condition.functions[function].branches
    if depth == 0:
        terminals = [b for b in branches if b.terminal]
        if not terminals:
            raise ValueError(f"{function_name(function)} has no terminal branch")
        return solve_terminal(rng, rng.choice(terminals), result)
    recursive = [b for b in branches if b.calls()]
    if not recursive:
        raise ValueError(f"{function_name(function)} has no branch with a call to recurse through")
    branch = rng.choice(recursive)
    x = solve_terminal(rng, branch, True)  # the non-recursive part always holds
    for term in branch.calls():
        x[term.index] = generate_probe(condition, rng, term.target, depth - 1, result)
    return x


# ---- items -------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def _resolve(params_json: str) -> tuple[str, tuple[dict[str, Any], ...]]:
    """Validated params (as JSON) and their grid, cached: a sweep makes thousands of items from one dict."""
    model = MembershipParams.model_validate(json.loads(params_json))
    return canonical_json(model.model_dump(mode="json")), tuple(model.combinations())


def label_of(normalized_json: str, seed: int, index: int, n_combinations: int) -> bool:
    """Item `index`'s label, in a seeded random order. The k-th item of a combination (k counts its
    items in index order) falls in block k // LABEL_BLOCK of that combination; each block's labels are
    drawn once from the seed: half of its even-indexed items positive, half of its odd-indexed ones.
    So any count that is a multiple of LABEL_BLOCK * n_combinations is balanced within every combination,
    and within every parity of the index: neither the index nor its parity says anything of the label."""
    number = (index // 2) % n_combinations
    k = 2 * (index // (2 * n_combinations)) + index % 2  # index % 2 == k % 2
    return _label_block(normalized_json, seed, number, k // LABEL_BLOCK)[k % LABEL_BLOCK]


@functools.lru_cache(maxsize=4096)
def _label_block(normalized_json: str, seed: int, number: int, block: int) -> tuple[bool, ...]:
    rng = random.Random(derive_seed(FAMILY, json.loads(normalized_json), seed, number, block, "labels"))
    half = LABEL_BLOCK // 2
    evens = [k < half // 2 for k in range(half)]
    odds = list(evens)
    rng.shuffle(evens)
    rng.shuffle(odds)
    return tuple(evens[j // 2] if j % 2 == 0 else odds[j // 2] for j in range(LABEL_BLOCK))


def combination_for(params: dict[str, Any], index: int, seed: int) -> tuple[int, dict[str, Any], bool]:
    """(combination number, its parameters, label) of item `index` of (params, seed)."""
    normalized_json, combos = _resolve(canonical_json(params))
    number = (index // 2) % len(combos)
    return number, dict(combos[number]), label_of(normalized_json, seed, index, len(combos))


def generate_one(params: dict[str, Any], seed: int, index: int) -> MembershipInstance:
    normalized_json, combos = _resolve(canonical_json(params))
    normalized = json.loads(normalized_json)  # a fresh dict: the cached value must not leak into instances
    number = (index // 2) % len(combos)
    combo, label = dict(combos[number]), label_of(normalized_json, seed, index, len(combos))
    condition = generate_condition(item_rng(FAMILY, normalized, seed, index, "condition"), combo)
    probe = generate_probe(condition, item_rng(FAMILY, normalized, seed, index, "probe"), 0, combo["depth"], label)
    # Cheap insurance: a mislabeled instance would silently corrupt every metric computed on it.
    if evaluate(condition, probe) != label or nesting_depth(probe) != combo["depth"]:
        raise RuntimeError(f"membership generator bug at index {index}: label or depth not reproduced")
    if len(condition.reachable(0)) != combo["I"]:
        raise RuntimeError(f"membership generator bug at index {index}: a function is unreachable")
    meta: dict[str, Any] = {**combo, "label": "positive" if label else "negative"}
    if isinstance(combo["N_T"], str):  # a range: the lengths each family drew
        meta["N_T_per_function"] = [next(b.length for b in fn.branches if b.terminal) for fn in condition.functions]
    if len(combos) > 1:
        meta["combination"] = number
        meta["combinations"] = len(combos)
    instance = MembershipInstance(
        params=normalized,
        seed=seed,
        index=index,
        condition=condition,
        code=render_code(condition),
        probe=probe,
        entry=function_name(0),
        ground_truth={"answer": label},
        meta=meta,
    )
    return instance.with_content_id()  # type: ignore[return-value]
