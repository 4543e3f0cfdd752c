"""Generation: Algorithm 1 reproduces the requested label and depth every time, deterministically."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.membership.evaluate import evaluate
from core.families.membership.generator import combination_for
from core.families.membership.model import Condition, MembershipInstance, branch_lengths, nesting_depth
from core.families.membership.presets import DEFAULTS, PRESETS
from core.families.membership.render import render_code
from core.family import get_family

REPO = Path(__file__).resolve().parents[3]
FAMILY = get_family("membership")


def check_structure(condition: Condition, fn: int, x: Any, level: int, depth: int, label: bool) -> None:
    """Algorithm 1's shape: above depth d every comparison holds and a call-bearing branch is taken; at
    depth d a terminal branch is taken whose conjunction equals the label (negatives fail only there)."""
    assert isinstance(x, list)
    hit = condition.functions[fn].branch_for(len(x))
    assert hit is not None, f"no branch for a generated sub-list at level {level}"
    branch = hit[1]
    compares = [t for t in branch.terms if t.kind == "compare"]
    holds = [(x[t.index] == t.value) == (t.op == "==") for t in compares]
    if level == depth:
        assert branch.terminal
        assert all(holds) == label
        if not label:
            assert holds.count(False) == 1  # a single changed entry, as in the paper
    else:
        assert not branch.terminal and all(holds)
        for term in branch.calls():
            check_structure(condition, term.target, x[term.index], level + 1, depth, label)


def check_instance(inst: MembershipInstance) -> None:
    label = inst.meta["label"] == "positive"
    assert inst.ground_truth == {"answer": label}
    assert evaluate(inst.condition, inst.probe) is label
    assert nesting_depth(inst.probe) == inst.meta["depth"]
    assert inst.code == render_code(inst.condition)
    assert len(inst.condition.functions) == inst.meta["I"]
    terminals = inst.meta.get("N_T_per_function") or [inst.meta["N_T"]] * inst.meta["I"]
    for fn, terminal in zip(inst.condition.functions, terminals, strict=True):
        assert len(fn.branches) == inst.meta["N_max"]
        assert [b.length for b in fn.branches if b.terminal] == [terminal]
        assert min(b.length for b in fn.branches) >= 2  # branch lengths start at 2 (§4.1)
        assert all(1 <= len(b.calls()) <= inst.meta["b"] for b in fn.branches if not b.terminal)
    check_structure(inst.condition, 0, inst.probe, 0, inst.meta["depth"], label)
    check_reachable(inst.condition)


def check_reachable(condition: Condition) -> None:
    """Every is_member_i can be called, directly or not, from is_member_0 (an independent graph walk)."""
    edges = {i: {t.target for b in fn.branches for t in b.calls()} for i, fn in enumerate(condition.functions)}
    reached, frontier = {0}, {0}
    while frontier:
        frontier = set().union(*(edges[i] for i in frontier)) - reached
        reached |= frontier
    assert reached == set(range(len(condition.functions))), f"unreachable: {set(edges) - reached}"


def _preset_chunks() -> list[tuple[str, int, int]]:
    out = []
    for name, preset in sorted(PRESETS.items()):
        step = 3600
        out.extend((name, start, min(step, preset.count - start)) for start in range(0, preset.count, step))
    return out


@pytest.mark.parametrize("name, start, count", _preset_chunks())
def test_every_preset_instance_has_its_label_and_depth(name: str, start: int, count: int) -> None:
    preset = PRESETS[name]
    seen: Counter[tuple[int, str]] = Counter()
    for inst in FAMILY.generate(preset.params, preset.seed, count, start=start):
        check_instance(inst)
        number, combo, label = combination_for(preset.params, inst.index, preset.seed)
        assert {k: inst.meta[k] for k in combo} == combo
        assert inst.meta["label"] == ("positive" if label else "negative")
        seen[(number, inst.meta["label"])] += 1
    assert sum(seen.values()) == count


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_labels_follow_no_order_of_the_index(name: str) -> None:
    """A seeded random order: within every block of LABEL_BLOCK items of a combination, half of the
    even-indexed items and half of the odd-indexed ones are positive, so the index's parity agrees with
    the label exactly half the time; the order is not the same from block to block nor from seed to seed."""
    from core.families.membership.generator import LABEL_BLOCK

    preset = PRESETS[name]
    count = min(preset.count, 4 * LABEL_BLOCK * 45)
    labels = [combination_for(preset.params, index, preset.seed)[2] for index in range(count)]
    agree = sum(label == (index % 2 == 0) for index, label in enumerate(labels))
    assert agree * 2 == count
    runs = {tuple(labels[i:i + LABEL_BLOCK]) for i in range(0, count - LABEL_BLOCK + 1, LABEL_BLOCK)}
    assert len(runs) > 1
    other = [combination_for(preset.params, index, preset.seed + 1)[2] for index in range(count)]
    assert other != labels and sum(other) == sum(labels)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_give_160_plus_160_per_combination(name: str) -> None:
    preset = PRESETS[name]
    counts = Counter()
    for index in range(preset.count):
        number, _, label = combination_for(preset.params, index, preset.seed)
        counts[(number, label)] += 1
    per = 16 if name == "pag-demo" else 160
    assert set(counts.values()) == {per}
    assert len(counts) * per == preset.count


def test_preset_sizes() -> None:
    assert {name: p.count for name, p in PRESETS.items()} == {
        "pag-demo": 64, "pag-default": 320, "pag-sweep-I": 960, "pag-sweep-Nmax": 960, "pag-sweep-depth": 1600,
        "pag-sweep-b": 960, "pag-sweep-NT": 960, "pag-grid-I-Nmax-depth": 14400}
    assert PRESETS["pag-default"].params == {"I": 2, "N_max": 2, "b": 1, "N_T": 2, "depth": 2}
    demo_depths = {i.meta["depth"] for i in FAMILY.generate(PRESETS["pag-demo"].params, 0, 64)}
    assert demo_depths == {2, 3}


CURVES = {"pag-sweep-I": ("I", [1, 2, 3]), "pag-sweep-Nmax": ("N_max", [2, 3, 4]),
          "pag-sweep-depth": ("depth", [0, 1, 2, 3, 4]), "pag-sweep-b": ("b", [1, 2, 3]),
          "pag-sweep-NT": ("N_T", [2, 3, 4])}


@pytest.mark.parametrize("name", sorted(CURVES))
def test_each_sweep_is_one_figure_1_curve(name: str) -> None:
    """One parameter varies, every other one stays at its Table 2 default, 160+160 per value: so the
    snapshot's breakdown by that parameter is exactly the paper's curve."""
    key, values = CURVES[name]
    preset = PRESETS[name]
    assert preset.params == {**DEFAULTS, key: values} and preset.count == 320 * len(values)
    seen: Counter[tuple[int, str]] = Counter()
    for index in range(preset.count):
        _, combo, label = combination_for(preset.params, index, preset.seed)
        assert {k: v for k, v in combo.items() if k != key} == {k: v for k, v in DEFAULTS.items() if k != key}
        seen[(combo[key], "positive" if label else "negative")] += 1
    assert seen == {(v, lab): 160 for v in values for lab in ("positive", "negative")}


def test_interaction_grid_is_kept_but_not_a_curve() -> None:
    grid = PRESETS["pag-grid-I-Nmax-depth"]
    assert grid.params == {**DEFAULTS, "I": [1, 2, 3], "N_max": [2, 3, 4], "depth": [0, 1, 2, 3, 4]}
    assert grid.count == 45 * 320 and "interaction" in grid.description.lower()
    assert "pag-sweep-I-Nmax-depth" not in PRESETS


def test_every_function_is_reachable_in_every_preset_with_several() -> None:
    checked = 0
    for preset in PRESETS.values():
        for index in range(0, preset.count, 7):
            if combination_for(preset.params, index, preset.seed)[1]["I"] > 1:
                check_reachable(FAMILY.generate_one(preset.params, preset.seed, index).condition)
                checked += 1
    assert checked > 2000


@settings(max_examples=200, deadline=None)
@given(n_functions=st.integers(2, 8), n_max=st.integers(2, 4), b=st.integers(1, 3), n_t=st.integers(2, 4),
       depth=st.integers(0, 3), seed=st.integers(0, 2**32), index=st.integers(0, 10**6))
def test_every_function_is_reachable_for_any_params(n_functions, n_max, b, n_t, depth, seed, index) -> None:
    b = min(b, min(branch_lengths({"N_T": n_t, "N_max": n_max})[1]))
    params = {"I": n_functions, "N_max": n_max, "b": b, "N_T": n_t, "depth": depth}
    check_reachable(FAMILY.generate_one(params, seed, index).condition)


def test_call_graph_stays_random() -> None:
    """Reachability comes from a random spanning tree, not a fixed chain. With I=3 and one call per
    family the tree is a chain, and both orders occur: 0 -> 1 -> 2 and 0 -> 2 -> 1."""
    firsts = Counter()
    for index in range(300):
        condition = FAMILY.generate_one({"I": 3, "N_max": 2, "b": 1, "N_T": 2, "depth": 1}, 11, index).condition
        targets = [[t.target for b in fn.branches for t in b.calls()] for fn in condition.functions]
        assert all(len(t) == 1 for t in targets)
        firsts[targets[0][0]] += 1
        if targets[0][0] == 1:
            assert targets[1][0] == 2  # the only way left to reach is_member_2
    assert firsts.keys() == {1, 2} and min(firsts.values()) > 100


def test_b_is_realised_not_capped() -> None:
    # b=3 with the length-3 branch: some branches get all three calls, so meta's b describes the instances
    params = {"I": 2, "N_max": 2, "b": 3, "N_T": 2, "depth": 1}
    most = max(len(b.calls()) for i in range(60) for fn in FAMILY.generate_one(params, 0, i).condition.functions
               for b in fn.branches)
    assert most == 3


def test_cli_example_gives_half_positive_half_negative() -> None:
    params = FAMILY.resolve_params(None, {"I": "3", "N_max": "3", "b": "2", "N_T": "2", "depth": "4"})
    instances = list(FAMILY.generate(params, 7, 400))
    assert Counter(i.meta["label"] for i in instances) == {"positive": 200, "negative": 200}
    assert Counter(i.ground_truth["answer"] for i in instances) == {True: 200, False: 200}
    for inst in instances:
        assert set(inst.meta) == {"I", "N_max", "b", "N_T", "depth", "label"}
        check_instance(inst)
    assert len({i.id for i in instances}) == 400


@settings(max_examples=150, deadline=None)
@given(
    n_functions=st.integers(1, 4),
    n_max=st.integers(1, 4),
    b=st.integers(1, 3),
    n_t=st.integers(2, 4),
    depth=st.integers(0, 5),
    seed=st.integers(0, 2**32),
    index=st.integers(0, 10**6),
)
def test_any_params_reproduce_label_and_depth(n_functions, n_max, b, n_t, depth, seed, index) -> None:
    if (depth > 0 or n_functions > 1) and n_max < 2:
        n_max = 2
    others = branch_lengths({"N_T": n_t, "N_max": n_max})[1]
    b = min([b, *others])  # the paper's b_i <= N_i (larger values are refused, see test_membership_model)
    params = {"I": n_functions, "N_max": n_max, "b": b, "N_T": n_t, "depth": depth}
    check_instance(FAMILY.generate_one(params, seed, index))


# ---- determinism -------------------------------------------------------------------------------
def test_item_is_generable_alone_and_stable() -> None:
    params = PRESETS["pag-sweep-b"].params
    batch = list(FAMILY.generate(params, 3, 12))
    for i in (0, 5, 11):
        alone = FAMILY.generate_one(params, 3, i)
        assert alone.to_json_dict() == batch[i].to_json_dict()
    assert FAMILY.generate_one(params, 4, 0).id != batch[0].id  # the seed matters
    assert len({i.id for i in batch}) == 12


def test_equivalent_params_spellings_give_the_same_items() -> None:
    a = FAMILY.generate_one({"I": 2, "N_max": 2, "b": 1, "N_T": 2, "depth": [3]}, 0, 1)
    b = FAMILY.generate_one(FAMILY.resolve_params(None, {"depth": "3"}), 0, 1)
    assert a.to_json_dict() == b.to_json_dict()


# Pinned: these ids are content hashes, so any change of the generator's output shows up here.
# Changed on purpose when labels left the index's order (items 1 and 2 kept their labels, and their ids).
PINNED_DEMO_IDS = ["membership-89ff938f8c5e", "membership-6866b4e1d69d", "membership-363ed29d6877",
                   "membership-2ccbee36f438", "membership-fe0d7d007df0", "membership-473001a3bbd3"]


def _ids_in_subprocess(hash_seed: str) -> list[str]:
    code = (
        "import json; from core.family import get_family; f = get_family('membership');"
        "p = f.presets()['pag-demo'];"
        "print(json.dumps([i.id for i in f.generate(p.params, p.seed, 6)]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    return json.loads(out.stdout)


def test_same_items_under_any_pythonhashseed() -> None:
    preset = PRESETS["pag-demo"]
    here = [i.id for i in FAMILY.generate(preset.params, preset.seed, 6)]
    assert _ids_in_subprocess("0") == here
    assert _ids_in_subprocess("4242") == here
    assert here == PINNED_DEMO_IDS


# ---- per-function terminal lengths ---------------------------------------------------------------
def test_a_terminal_range_gives_each_function_its_own_terminal_length() -> None:
    """Listing 1 (and Listing 6): is_member_0's terminal block has 2 terms, is_member_1's has 3."""
    params = FAMILY.resolve_params(None, {"I": "2", "N_max": "2", "b": "1", "N_T": "2..3", "depth": "2"})
    assert params["N_T"] == "2..3"
    instances = [FAMILY.generate_one(params, 0, i) for i in range(40)]
    drawn = Counter(tuple(i.meta["N_T_per_function"]) for i in instances)
    assert (2, 3) in drawn and (3, 2) in drawn and (2, 2) in drawn and (3, 3) in drawn
    for inst in instances:
        check_instance(inst)
    listing_1 = next(i for i in instances if i.meta["N_T_per_function"] == [2, 3])
    shapes = [[(b.length, b.terminal) for b in fn.branches] for fn in listing_1.condition.functions]
    assert shapes == [[(2, True), (3, False)], [(2, False), (3, True)]]  # Listing 1's two functions


def test_a_single_terminal_length_generates_as_before() -> None:
    # no draw for a single N_T: the random stream, and so every existing item, is unchanged
    params = {"I": 2, "N_max": 2, "b": 1, "N_T": 2, "depth": 2}
    assert "N_T_per_function" not in FAMILY.generate_one(params, 0, 0).meta
