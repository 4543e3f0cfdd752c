"""`typeinf`: TF-Bench — give the type signature of a Haskell function from its code and dependencies.

Each concern lives in its own module (types, hsparse, env, infer, check, oracle, ghc, corpus, rewrite,
fresh, generator, presets, prompt, extract, verify, trace, metrics, baseline, released); this class
only names them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.families.typeinf.tools import GHC
from core.family import TEMPLATE_CURSOR, Citation, Family, hook, lazy, register

if TYPE_CHECKING:  # annotations only: importing the family must not load pydantic (start-up)
    from core.instance import Instance


@register
class TypeinfFamily(Family):
    id = "typeinf"
    title = "Haskell type inference (TF-Bench)"
    citation = Citation(
        title="TF-Bench: Evaluating Program Semantics Reasoning with Type Inference in System F",
        authors="Yifeng He, Luning Yang, Christopher Castro Gaw Gonzalo, Hao Chen",
        venue="NeurIPS 2025 Datasets and Benchmarks Track (arXiv:2509.23686)",
        url="https://arxiv.org/abs/2509.23686",
    )
    instance_model = lazy(".model:TypeinfInstance")
    params_model = lazy(".model:TypeinfParams")
    answer_model = lazy(".model:SignatureAnswer")
    step_model = lazy(".model:DerivationStep")
    features = ("poly_type", "variant", "source", "equations", "n_deps", "defect")
    # whether the type is polymorphic (and how) is half of the answer
    hint_features = ("poly_type",)
    prompt_styles = ("chat", "completion")
    label_field = "name"  # the id is a hash: the browser shows this
    requires = (GHC,)
    answer_language = "haskell"
    answer_template = "name :: "
    answer_placeholder = "name :: type   (or just the type)"
    # base declares a few functions at a type more specific than their principal one (asTypeOf,
    # deleteBy, Identity's >>=): inference finds the principal type, so those three are missed. In the
    # pure variant a task whose Bool or Char appears only through syntax (`if`, guards, literals) does not
    # say which new name is Bool or Char; the monomorphic Bool/Char functions at the corpus's start are
    # mostly such tasks (overall: base 247/250, pure 221/250).
    baseline_complete = False
    baseline_floor = 0.5

    presets = hook(".presets:presets")
    generate_one = hook(".generator:generate_one")
    prompt = hook(".prompt:render_prompt")
    extract = hook(".extract:extract")
    verify = hook(".verify:verify")
    verify_many = hook(".verify:verify_many")
    trace = hook(".trace:trace")
    oracle_response = hook(".baseline:oracle_response")
    baseline_response = hook(".baseline:baseline_response")
    summarize = hook(".metrics:summarize")
    compare_metrics = hook(".metrics:compare_metrics")
    import_files = hook(".released:import_files")
    describe_snapshot = hook(".defects:describe_snapshot", cast=False)
    feature_values = hook(".features:feature_values")

    def answer_template_for(self, instance: Instance | None) -> str:
        """`zipWithM_ :: ` (an operator in parentheses: `(&&) :: `), the cursor where the type goes."""
        name = getattr(instance, "name", None)
        if not isinstance(name, str) or not name:
            return self.answer_template
        shown = name if name[0].isalpha() or name[0] == "_" else f"({name})"
        return f"{shown} :: {TEMPLATE_CURSOR}"
