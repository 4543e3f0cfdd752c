"""Presets: the corpus (FormalBench-Base's role) and its transformed variants (FormalBench-Diverse's)."""

from __future__ import annotations

from core.families.specs.generator import count
from core.instance import Preset

BASE = {"variants": "base", "programs": ""}
DIVERSE = {"variants": "diverse", "programs": ""}
DIVERSE_N = {"variants": "diverse-n", "programs": ""}

PRESETS = {
    "formalbench-c": Preset(name="formalbench-c", family="specs", params=BASE, count=count(BASE), bundled=True,
                            description="65 C functions (13 sequential, 13 branching, 12 single-path loops, "
                                        "15 multi-path loops, 12 nested loops) with reference ACSL contracts"),
    "formalbench-c-diverse": Preset(name="formalbench-c-diverse", family="specs", params=DIVERSE,
                                    count=count(DIVERSE), bundled=True,
                                    description="each corpus program followed by its semantic-preserving "
                                                "transformations (renaming, for/while, if inversion, "
                                                "commutation, ...), for the flip rate"),
    "formalbench-c-diverse-n": Preset(name="formalbench-c-diverse-n", family="specs", params=DIVERSE_N,
                                      count=count(DIVERSE_N), bundled=True,
                                      description="the paper's Diverse-N: the more natural half of the "
                                                  "diverse variants (token trigram cross-entropy), for "
                                                  "programs left with at least three, each after its original"),
}
