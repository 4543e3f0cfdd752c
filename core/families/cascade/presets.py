"""The PBEBench snapshots (paper §4.1, Appendix D.2) plus a small demo set.

Alphabet of the Lite snapshots: the paper restricts it to "lowercase letters excluding ...", but the
range it excludes is garbled in the text we have. We use a-j (ten letters, i.e. excluding k-z): a
smaller alphabet makes rules interact more often, which the rarer relation categories need, while ten
letters keep the problems from collapsing into a few repeated symbols. PBEBench and PBEBench (25, 30)
use the full a-z, as the paper states.
"""

from __future__ import annotations

from typing import Any

from core.instance import Preset

LITE_ALPHABET = "abcdefghij"  # see the module docstring for why
FULL_ALPHABET = "abcdefghijklmnopqrstuvwxyz"

# Shared by every snapshot in D.2: inputs of 2-6 letters, 1-3 characters on either side of a rule.
_COMMON: dict[str, Any] = {
    "input_len_min": 2, "input_len_max": 6,
    "lhs_len_min": 1, "lhs_len_max": 3,
    "rhs_len_min": 1, "rhs_len_max": 3,
}

_BALANCE_NOTE = (" Category balance: item i targets category i mod 16 (the cascade length is drawn per"
                 " attempt); an item that misses its category within the patience budget keeps another"
                 " one and is marked meta.relaxed (the snapshot's meta lists such items).")


def _preset(name: str, description: str, count: int, **params: Any) -> Preset:
    return Preset(name=name, family="cascade", description=description, params={**_COMMON, **params},
                  count=count, seed=0, bundled=True)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        _preset(
            "pbebench-lite",
            "PBEBench-Lite: 1008 instances, 63 per relation category x 16, 5 examples, cascades of 2-5"
            " rules, alphabet a-j (the paper's reduced alphabet is garbled in our copy; see presets.py)."
            + _BALANCE_NOTE,
            1008, n_examples=5, alphabet=LITE_ALPHABET, cascade_length_min=2, cascade_length_max=5,
            balance="category",
        ),
        _preset(
            "pbebench-lite-moreeg",
            "PBEBench-Lite-MoreEg: 240 instances, 15 per relation category x 16, 50 examples, cascades"
            " of 1-5 rules, alphabet a-j. Length-1 cascades have no rule pairs, so they only ever"
            " fall in category 0000." + _BALANCE_NOTE,
            240, n_examples=50, alphabet=LITE_ALPHABET, cascade_length_min=1, cascade_length_max=5,
            balance="category",
        ),
        _preset(
            "pbebench",
            "PBEBench: 1216 instances, 64 per cascade length 2-20, 50 examples, alphabet a-z. Balanced"
            " by cascade length only; relation categories fall as they come (long cascades are"
            " mostly 1111).",
            1216, n_examples=50, alphabet=FULL_ALPHABET, cascade_length_min=2, cascade_length_max=20,
            balance="length",
        ),
        _preset(
            "pbebench-25-30",
            "PBEBench (25, 30): 128 instances, 64 with 25 rules and 64 with 30, 50 examples, alphabet"
            " a-z. Balanced by cascade length only.",
            128, n_examples=50, alphabet=FULL_ALPHABET, cascade_length_min=25, cascade_length_max=30,
            cascade_lengths=[25, 30], balance="length",
        ),
        _preset(
            "cascade-demo",
            "A small demo set: 48 instances, 3 per relation category x 16, 5 examples, cascades of 2-4"
            " rules, alphabet a-j." + _BALANCE_NOTE,
            48, n_examples=5, alphabet=LITE_ALPHABET, cascade_length_min=2, cascade_length_max=4,
            balance="category",
        ),
    )
}
