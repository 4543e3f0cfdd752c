"""Presets: the corpus in both variants (TF-Bench, TF-Bench_pure), generated tasks, and the Appendix D
ablation (one rewrite operator at a time)."""

from __future__ import annotations

from core.families.typeinf.corpus import load_corpus
from core.families.typeinf.model import TypeinfParams
from core.instance import Preset

FAMILY = "typeinf"


def _preset(name: str, description: str, count: int, bundled: bool = False, **params: object) -> Preset:
    return Preset(name=name, family=FAMILY, description=description,
                  params=TypeinfParams.model_validate(params).model_dump(mode="json"), count=count, bundled=bundled)


def presets() -> dict[str, Preset]:
    n = len(load_corpus())
    items = [
        _preset("tfbench-base", f"TF-Bench: the project's {n} Prelude/base tasks (monomorphic, parametric, ad-hoc).",
                n, bundled=True),
        _preset("tfbench-pure", f"TF-Bench_pure: the same {n} tasks with NL types, type variables and binding names "
                                "rewritten (T1.., t1.., f1..).", n, bundled=True, variant="pure"),
        _preset("tf-generated", "Fresh well-typed tasks over a Prelude dependency pool (3 deps, depth 2, 1-2 "
                                "equations), the three categories balanced.", 45, bundled=True,
                source="generated", deps=3, depth=2, equations=2),
        _preset("tfbench-nl-types", "Appendix D ablation: only NL type names rewritten.", n, variant="pure",
                rewrite="types"),
        _preset("tfbench-tyvars", "Appendix D ablation: only type variables rewritten.", n, variant="pure",
                rewrite="tyvars"),
        _preset("tfbench-bindings", "Appendix D ablation: only binding names rewritten.", n, variant="pure",
                rewrite="bindings"),
        _preset("tf-generated-hard", "Generated tasks with more dependencies and deeper nesting (5 deps, depth 3, "
                                     "up to 3 equations).", 90, source="generated", deps=5, depth=3, equations=3),
    ]
    return {p.name: p for p in items}
