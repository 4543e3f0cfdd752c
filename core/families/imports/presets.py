"""Presets: the paper's ThaliaType shape (50 snippets per library) and per-library sets, plus the
transformed variants of §5 (same base snippets, transformed after generation)."""

from __future__ import annotations

from core.families.imports.model import ImportsParams
from core.instance import Preset

FAMILY = "imports"
LIBS = ["jdk", "jodatime", "xstream", "hibernate"]
PER_LIBRARY = 50


def _preset(name: str, description: str, count: int, bundled: bool = True, **params: object) -> Preset:
    values = ImportsParams.model_validate(params).model_dump(mode="json")
    return Preset(name=name, family=FAMILY, description=description, params=values, count=count, seed=0,
                  bundled=bundled)


def _all() -> dict[str, Preset]:
    presets = [
        _preset("thalia-like", "ThaliaType-like: 50 unseen snippets per library (jdk, jodatime, xstream, "
                "hibernate), item i uses library i mod 4", PER_LIBRARY * len(LIBS), library=LIBS),
    ]
    for transform in ("rename", "lower", "comments"):
        presets.append(_preset(f"thalia-like-{transform}", f"thalia-like with the {transform} transformation "
                               "(§5): the same snippets, semantics and imports", PER_LIBRARY * len(LIBS),
                               library=LIBS, transform=[transform]))
    presets.append(_preset("thalia-like-all", "thalia-like with all three transformations (rename, lower, "
                           "comments)", PER_LIBRARY * len(LIBS), library=LIBS,
                           transform=["rename", "lower", "comments"]))
    for lib in LIBS:
        presets.append(_preset(f"thalia-{lib}", f"50 unseen {lib} snippets", PER_LIBRARY, library=[lib]))
    presets.append(_preset("ambiguous", "every new type drawn among shared simple names (Logger, Node, "
                           "Element, Date...), 40 snippets over the four libraries", 40, library=LIBS,
                           ambiguity=1.0, n_types=6))
    return {p.name: p for p in presets}


PRESETS = _all()
