"""The cascade generator and presets: determinism, the §3.1 invariants, balance, relaxation."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from core.canonical import canonical_json
from core.errors import UserError
from core.families.cascade import generator
from core.families.cascade.generator import (
    CATEGORIES,
    allowed_lengths,
    category_kl,
    generate_one,
    generate_with_stats,
    unreachable_note,
)
from core.families.cascade.model import CascadeInstance, CascadeParams, apply_cascade
from core.families.cascade.presets import PRESETS
from core.families.cascade.relations import cascade_relations, category_bits
from core.families.cascade.released import FULL_ALPHABET, LITE_ALPHABET, released_category, released_relations
from core.family import get_family

REPO = Path(__file__).resolve().parents[3]
DEMO = {k: v for k, v in PRESETS["cascade-demo"].params.items() if k != "length_weights"}
LENGTH = {**DEMO, "balance": "length", "n_examples": 8, "cascade_length_min": 3, "cascade_length_max": 9}


@pytest.fixture(scope="module")
def balanced() -> list[CascadeInstance]:
    """32 category-balanced items (k = 2 per category)."""
    return [generate_one(DEMO, 7, i) for i in range(32)]


@pytest.fixture(scope="module")
def by_length() -> list[CascadeInstance]:
    return [generate_one(LENGTH, 3, i) for i in range(14)]


def _dump(instance: CascadeInstance) -> str:
    return canonical_json(instance.to_json_dict())


# ---- determinism ---------------------------------------------------------------------------------

def test_same_item_gives_identical_json() -> None:
    assert [_dump(generate_one(DEMO, 0, i)) for i in range(4)] == [_dump(generate_one(DEMO, 0, i)) for i in range(4)]


def test_item_alone_equals_item_in_batch() -> None:
    batch = list(get_family("cascade").generate(DEMO, 5, 6))
    assert _dump(batch[4]) == _dump(generate_one(DEMO, 5, 4))
    assert batch[4].id != batch[3].id


def test_seed_and_spelling_of_params() -> None:
    assert _dump(generate_one(DEMO, 0, 0)) != _dump(generate_one(DEMO, 1, 0))
    # defaults spelled out or left implicit resolve to the same params, hence the same item
    spelled = CascadeParams.model_validate({"n_examples": 5}).model_dump(mode="json")
    assert _dump(generate_one({"n_examples": 5}, 0, 2)) == _dump(generate_one(spelled, 0, 2))


_CHILD = (
    "import sys, json\n"
    "from core.canonical import canonical_json\n"
    "from core.families.cascade.generator import generate_one\n"
    "params = json.loads(sys.argv[1])\n"
    "print(json.dumps([canonical_json(generate_one(params, 11, i).to_json_dict()) for i in range(3)]))\n"
)


@pytest.mark.parametrize("hashseed", ["0", "4242"])
def test_other_hash_seed_gives_identical_bytes(hashseed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(LENGTH)], cwd=REPO, env=env,
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [_dump(generate_one(LENGTH, 11, i)) for i in range(3)]


# ---- the §3.1 invariants --------------------------------------------------------------------------

def _check_instance(inst: CascadeInstance) -> None:
    p = CascadeParams.model_validate(inst.params)
    cascade = inst.cascade()
    assert cascade is not None
    assert inst.family == "cascade" and inst.id.startswith("cascade-")
    assert len(inst.inputs) == p.n_examples
    assert all(p.input_len_min <= len(s) <= p.input_len_max and set(s) <= set(p.alphabet) for s in inst.inputs)
    assert len(cascade) in allowed_lengths(p)
    assert inst.outputs == [apply_cascade(s, cascade) for s in inst.inputs]
    current = list(inst.inputs)
    for lhs, rhs in cascade:
        assert p.lhs_len_min <= len(lhs) <= p.lhs_len_max and p.rhs_len_min <= len(rhs) <= p.rhs_len_max
        assert set(lhs + rhs) <= set(p.alphabet)
        assert any(lhs in s for s in current), f"{lhs!r} is not in the intermediate strings {current}"
        following = [s.replace(lhs, rhs) for s in current]
        assert following != current, f"rule {lhs!r}->{rhs!r} changes no example"
        current = following
    # both labels: the released detector's (the benchmark's categories) and the exact classifier's
    assert inst.meta["relations"] == released_relations(cascade)
    assert inst.meta["category"] == released_category(cascade)
    exact = cascade_relations(cascade)
    assert inst.meta["relations_exact"] == exact and inst.meta["category_exact"] == category_bits(exact)
    assert inst.meta["cascade_length"] == len(cascade)
    k = p.max_programs or (len(cascade) if p.k_per_length else max(allowed_lengths(p)))
    assert inst.meta["max_programs"] == k == inst.max_programs()
    assert inst.meta["alphabet"] == p.alphabet and inst.meta["max_side"] == max(3, p.lhs_len_max, p.rhs_len_max)
    if p.balance == "category":
        assert inst.meta["target_category"] == CATEGORIES[inst.index % 16]
        assert inst.meta["relaxed"] == (inst.meta["category"] != inst.meta["target_category"])


def test_invariants_category_batch(balanced: list[CascadeInstance]) -> None:
    for inst in balanced:
        _check_instance(inst)


def test_invariants_length_batch(by_length: list[CascadeInstance]) -> None:
    for inst in by_length:
        _check_instance(inst)
        assert "target_category" not in inst.meta


def test_invariants_with_deletions_and_a_tiny_alphabet() -> None:
    params = {**DEMO, "alphabet": "ab", "rhs_len_min": 0, "balance": "none", "cascade_length_max": 6}
    items = [generate_one(params, 1, i) for i in range(12)]
    for inst in items:
        _check_instance(inst)
    assert any(rhs == "" for inst in items for _, rhs in inst.cascade() or [])


@pytest.mark.parametrize("alphabet", ["ab", "abcdefghijkuvwxyz"])
def test_distinct_substrings_of_the_joined_strings_are_those_of_each_string(alphabet: str) -> None:
    """The generator keeps an attempt's strings joined by `_SEP` and takes the windows of the joined text;
    that must give what the per-string statement gives, in the same (first-seen) order, empty and short
    strings included."""
    rng = random.Random(3)
    for _ in range(300):
        strings = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7))) for _ in range(rng.randint(1, 6))]
        joined = generator._SEP.join(strings)
        for m in range(1, 5):
            stated = list(dict.fromkeys(s[i:i + m] for s in strings for i in range(len(s) - m + 1)))
            assert generator._distinct(joined, len(strings) - 1, m) == stated, (strings, m)


def test_a_uniform_index_drawn_with_floor_is_the_stated_int() -> None:
    """The generator draws an index as `floor(random() * float(n))` (how `random.choices` does: a third
    faster than `int(random() * n)` in 3.11); both give the same index for every `random()` value, the
    largest (1 - 2^-53) and those just below a boundary k/n included. The bundled instances (test_bundle,
    the done-when test) prove the generator's bytes unchanged."""
    import math

    rng = random.Random(11)
    largest = 1 - 2 ** -53
    for n in range(1, 65):
        edges = [0.0, largest, *(math.nextafter(k / n, 0.0) for k in range(1, n + 1)), *(k / n for k in range(n))]
        for x in [*edges, *(rng.random() for _ in range(2000))]:
            assert math.floor(x * float(n)) == int(x * n), (x, n)


def test_json_field_names(balanced: list[CascadeInstance]) -> None:
    data = balanced[0].to_json_dict()
    assert {"inputs", "outputs", "ground_truth", "meta", "params", "seed", "index", "id"} <= set(data)
    assert set(data["ground_truth"]) == {"cascade"}
    assert set(data["meta"]["relations"]) == {"feeding", "bleeding", "counter_feeding", "counter_bleeding"}
    assert CascadeInstance.model_validate(data).with_content_id().id == balanced[0].id


# ---- balance and relaxation -------------------------------------------------------------------------

def test_category_balance_is_exact(balanced: list[CascadeInstance]) -> None:
    assert not [i.index for i in balanced if i.meta["relaxed"]]
    assert Counter(i.meta["category"] for i in balanced) == {c: 2 for c in CATEGORIES}
    note = unreachable_note(balanced)
    assert note["relaxed"] == 0 and note["missing_categories"] == [] and "note" not in note
    assert note["kl_from_uniform"] == pytest.approx(0.0)


def test_length_balance(by_length: list[CascadeInstance]) -> None:
    assert Counter(i.meta["cascade_length"] for i in by_length) == {n: 2 for n in range(3, 10)}
    assert [i.meta["cascade_length"] for i in by_length[:7]] == list(range(3, 10))


def test_explicit_length_set() -> None:
    params = {**LENGTH, "cascade_length_min": 3, "cascade_length_max": 12, "cascade_lengths": "12,3"}
    items = [generate_one(params, 0, i) for i in range(4)]
    assert [i.meta["cascade_length"] for i in items] == [3, 12, 3, 12]
    assert all(i.meta["max_programs"] == 12 for i in items)
    assert items[0].params["cascade_lengths"] == [3, 12]


def test_unreachable_categories_relax_and_are_reported() -> None:
    # one-rule cascades have no rule pairs, so every category but 0000 is unreachable
    params = {**DEMO, "cascade_length_min": 1, "cascade_length_max": 1, "patience": 5}
    items = [generate_one(params, 0, i) for i in range(16)]
    assert [i.meta["relaxed"] for i in items] == [False] + [True] * 15
    assert {i.meta["category"] for i in items} == {"0000"}
    assert [i.meta["target_category"] for i in items] == list(CATEGORIES)
    assert generate_with_stats(params, 0, 3)[1].attempts == 6  # patience, then the first valid sample
    note = unreachable_note(items)
    assert note["relaxed"] == 15 and note["relaxed_by_target"]["1111"] == 1
    assert note["missing_categories"] == list(CATEGORIES[1:]) and "patience" in note["note"]
    assert note["kl_from_uniform"] > 1.0


def test_impossible_params_fail_clearly() -> None:
    params = {"alphabet": "a", "lhs_len_max": 1, "rhs_len_max": 1, "balance": "none"}
    with pytest.raises(UserError, match="no valid instance"):
        generate_one(params, 0, 0)


def test_category_kl() -> None:
    assert category_kl({c: 4 for c in CATEGORIES}) == pytest.approx(0.0)
    assert category_kl({"1111": 64}) > category_kl({"1111": 32, "0000": 32}) > 0


def test_bad_length_set_is_rejected() -> None:
    with pytest.raises(ValueError, match="cascade_lengths"):
        CascadeParams.model_validate({"cascade_length_max": 5, "cascade_lengths": [3, 9]})


# ---- presets ----------------------------------------------------------------------------------------

def test_presets() -> None:
    expected = {"pbebench-lite": (1008, 5, 2, 5, "category"), "pbebench-lite-moreeg": (240, 50, 1, 5, "category"),
                "pbebench": (1216, 50, 2, 20, "length"), "pbebench-25-30": (128, 50, 25, 30, "length"),
                "cascade-demo": (48, 5, 2, 4, "category")}
    assert set(PRESETS) == set(expected)
    for name, (count, n_examples, lo, hi, balance) in expected.items():
        preset = PRESETS[name]
        p = CascadeParams.model_validate(preset.params)
        assert (preset.name, preset.family, preset.count, preset.seed) == (name, "cascade", count, 0)
        assert (p.n_examples, p.cascade_length_min, p.cascade_length_max, p.balance) == (n_examples, lo, hi, balance)
        assert (p.input_len_min, p.input_len_max, p.lhs_len_min, p.lhs_len_max, p.rhs_len_min, p.rhs_len_max) == (
            2, 6, 1, 3, 1, 3)
        per_target = 16 if balance == "category" else len(allowed_lengths(p))
        assert count % per_target == 0, name
    assert allowed_lengths(CascadeParams.model_validate(PRESETS["pbebench-25-30"].params)) == (25, 30)
    # the released alphabets: a-k and u-z for Lite and MoreEg, both cases for PBEBench and (25, 30)
    assert LITE_ALPHABET == "abcdefghijkuvwxyz" and set(FULL_ALPHABET) == set("abcdefghijklmnopqrstuvwxyz"
                                                                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    for name, alphabet in (("pbebench", FULL_ALPHABET), ("pbebench-25-30", FULL_ALPHABET),
                           ("pbebench-lite", LITE_ALPHABET), ("pbebench-lite-moreeg", LITE_ALPHABET)):
        assert PRESETS[name].params["alphabet"] == alphabet, name
    assert PRESETS["pbebench-25-30"].params["k_per_length"] is True
    assert get_family("cascade").presets() is PRESETS


def test_preset_items_generate() -> None:
    # the first item of each preset: cheap, and catches a preset the generator cannot satisfy
    for preset in PRESETS.values():
        _check_instance(generate_one(get_family("cascade").resolve_params(preset.name), preset.seed, 1))
