"""Presets reproducing the paper's experiments (Table 2, Figure 1) plus a small demo.

Figure 1 plots one curve per parameter, each varying that parameter with the others at the Table 2
defaults, so each `pag-sweep-*` preset is exactly one curve: its per-parameter metrics breakdown is the
curve. `pag-grid-I-Nmax-depth` crosses I, N_max and d instead (their interactions); it is large and not
bundled.

A sweep is ONE preset whose params hold lists: the grid is their Cartesian product (order I, N_max, b,
N_T, depth) and item `index` belongs to combination `(index // 2) % n`; labels come in a seeded random
order, balanced within every 16 items of a combination (see `MembershipParams`). `count = 320 * n`
therefore gives exactly the paper's 160 positive + 160 negative instances per combination; each instance's meta records its own
combination (I, N_max, b, N_T, depth, label), so metrics break down per parameter value for the plots.
"""

from __future__ import annotations

from core.families.membership.model import MembershipParams
from core.instance import Preset

FAMILY = "membership"
PER_COMBINATION = 320  # 160 positive + 160 negative (paper §5.1)
DEFAULTS = {"I": 2, "N_max": 2, "b": 1, "N_T": 2, "depth": 2}  # Table 2, every row's fixed values


def _preset(name: str, description: str, per_combination: int = PER_COMBINATION, bundled: bool = True,
            **grid: object) -> Preset:
    params = MembershipParams.model_validate({**DEFAULTS, **grid}).model_dump(mode="json")
    n = len(MembershipParams.model_validate(params).combinations())
    return Preset(name=name, family=FAMILY, description=description, params=params, count=per_combination * n,
                  bundled=bundled)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        _preset(
            "pag-demo",
            "Small demo at moderate difficulty: Table 2 defaults with depth 2 and 3, 16+16 per depth.",
            per_combination=32,
            depth=[2, 3],
        ),
        _preset("pag-default", "Table 2 defaults (I=2, N_max=2, b=1, N_T=2, d=2), 160 positive + 160 negative."),
        # Figure 1 varies one parameter at a time, the others at the Table 2 defaults: one preset per curve.
        _preset(
            "pag-sweep-I",
            "Figure 1 curve: number of functions I (1-3) at N_max=2, b=1, N_T=2, d=2; 320 per value.",
            I=[1, 2, 3],
        ),
        _preset(
            "pag-sweep-Nmax",
            "Figure 1 curve: if-blocks per function N_max (2-4) at I=2, b=1, N_T=2, d=2; 320 per value.",
            N_max=[2, 3, 4],
        ),
        _preset(
            "pag-sweep-depth",
            "Figure 1 curve: probe nesting depth d (0-4) at I=2, N_max=2, b=1, N_T=2; 320 per value.",
            depth=[0, 1, 2, 3, 4],
        ),
        _preset(
            "pag-sweep-b",
            "Figure 1 curve: branching number b (1-3) at I=2, N_max=2, N_T=2, d=2; 320 per value.",
            b=[1, 2, 3],
        ),
        _preset(
            "pag-sweep-NT",
            "Figure 1 curve: terminal block size N_T (2-4; branch lengths start at 2, §4.1) at I=2, N_max=2,"
            " b=1, d=2; 320 per value.",
            N_T=[2, 3, 4],
        ),
        # Not a paper curve: the interactions of Table 2 row 1 (14,400 items; not in the bundled snapshots).
        _preset(
            "pag-grid-I-Nmax-depth",
            "Interaction grid (not a Figure 1 curve): every combination of I (1-3), N_max (2-4) and d (0-4) "
            "at b=1, N_T=2; 320 per combination, 14,400 in all.",
            I=[1, 2, 3],
            N_max=[2, 3, 4],
            depth=[0, 1, 2, 3, 4],
            bundled=False,  # 14,400 items: `sembench generate membership --preset pag-grid-I-Nmax-depth --seed 0`
        ),
    )
}
