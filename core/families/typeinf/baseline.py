"""Local solvers: the HM baseline (answers as a model would) and the oracle (the ground truth)."""

from __future__ import annotations

from core.families.typeinf import syntax as S
from core.families.typeinf.check import is_instance
from core.families.typeinf.corpus import binder
from core.families.typeinf.env import Env, base_env, dep_decls, task_env
from core.families.typeinf.hsparse import HsParseError
from core.families.typeinf.infer import infer_code, rename_scheme
from core.families.typeinf.model import TypeinfInstance
from core.families.typeinf.types import Scheme, show_scheme

BASELINE_STEPS = 200_000  # unification + node visits; the corpus needs at most a few thousand


def renamed_types(instance: TypeinfInstance) -> bool:
    """Whether the task's type names were rewritten (then Bool/Char are unknowns to identify)."""
    if instance.variant != "pure":
        return False
    ops = instance.meta.get("rewrite") if isinstance(instance.meta, dict) else None
    return not isinstance(ops, list) or "types" in ops


def baseline_response(instance: TypeinfInstance, budget_s: float = 0.0) -> str:
    env = task_env(instance.dependencies)
    result = infer_code(instance.code, env, instance.name, max_steps=BASELINE_STEPS,
                        pure=renamed_types(instance))
    general = unspecialised(instance.dependencies) if result.scheme is None else None
    if general is not None:
        retry = infer_code(instance.code, task_env(general), instance.name, max_steps=BASELINE_STEPS,
                           pure=renamed_types(instance))
        if retry.scheme is not None:
            env, result = task_env(general), retry
    if result.scheme is None:
        return f"-- the baseline could not type the code: {result.error.message if result.error else 'unknown'}"
    scheme = class_method_type(instance.name, result.scheme, env) or result.scheme
    style = "numbers" if instance.variant == "pure" else "letters"
    return f"{binder(instance.name)} :: {show_scheme(rename_scheme(scheme, style))}"


def unspecialised(dependencies: list[str]) -> list[str] | None:
    """The dependencies without the signatures that only specialise the Prelude's declaration of the
    same name (released foldl's `(.) :: (a -> a) -> (a -> a) -> (a -> a)`, with which its own
    `Dual . Endo . flip f` does not type): the Prelude's then applies. None when there are none."""
    base = base_env()
    kept = []
    for dep in dependencies:
        try:
            decls = dep_decls([dep], strict=True)
        except HsParseError:
            kept.append(dep)
            continue
        sigs = [d for d in decls if isinstance(d, S.SigDecl)]
        if len(sigs) == len(decls) == 1 and all(
                n in base.values and n not in base.constructors
                and is_instance(base.values[n].body, base.expand(sigs[0].scheme.body))
                and not is_instance(base.expand(sigs[0].scheme.body), base.values[n].body)
                for n in sigs[0].names):
            continue
        kept.append(dep)
    return kept if len(kept) < len(dependencies) else None


def class_method_type(name: str, inferred: Scheme, env: Env) -> Scheme | None:
    """A class method's type is its class's declaration (TF-Bench's truth for `succ` is Enum's
    `Enum a => a -> a`): when the code alone types more generally than the declaration (`succ =
    toEnum . (+ one) . fromEnum` gives `(Enum a, Enum b) => a -> b`), or as generally but with fewer
classes (released `sum` lacks its class's Foldable), the declaration is the answer. The
    class comes from the task's dependencies, else the Prelude's. A type the declaration does not
    instantiate (a method defined at an instance, `properFraction` on Ratio) is left as inferred."""
    if not any(name in info.methods for info in env.classes.values()):
        return None
    declared = env.values.get(name)
    if declared is None:
        return None
    body = env.expand(declared.body)
    if is_instance(inferred.body, body) and (not is_instance(body, inferred.body)
                                             or {p.cls for p in inferred.context} < {p.cls for p in declared.context}):
        return Scheme(declared.context, body)
    return None


def oracle_response(instance: TypeinfInstance) -> str:
    sig = instance.truth_signature()
    if sig is None:
        return baseline_response(instance)
    from core.families.typeinf.hsparse import HsParseError, bare_classes, parse_type
    from core.families.typeinf.verify import truth_parts

    parts = truth_parts(instance)
    if parts is None:
        return sig
    type_text = parts[1]
    if bare_classes(type_text):  # a released `C => t`: answer it as Haskell, `C a => t`
        try:
            type_text = show_scheme(parse_type(type_text).scheme)
        except HsParseError:
            pass
    return f"{binder(parts[0])} :: {type_text}"
