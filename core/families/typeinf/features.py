"""Difficulty features of an instance (from meta, with fallbacks for instances written elsewhere)."""

from __future__ import annotations

from typing import Any

from core.families.typeinf.model import TypeinfInstance


def feature_values(instance: TypeinfInstance) -> dict[str, Any]:
    meta = instance.meta if isinstance(instance.meta, dict) else {}
    poly = meta.get("poly_type")
    if isinstance(poly, str):
        poly = {"monomorphic": "monomorphic", "parametric": "parametric", "ad-hoc": "ad-hoc",
                "adhoc": "ad-hoc"}.get(poly.lower(), poly)
    return {
        "poly_type": poly,
        "variant": instance.variant,
        "source": meta.get("source"),
        "equations": meta.get("equations"),
        "n_deps": meta.get("n_deps", len(instance.dependencies)),
        # a released task GHC rejects at its stated type (yes), accepts (no), or never checked (None)
        "defect": bool(meta.get("released_defect")) if "released_checked" in meta else None,
    }
