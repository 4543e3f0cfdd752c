"""The in-process checker: are two signatures the same type up to renaming of type variables?

Equivalent iff, after expanding type synonyms (base's String, ShowS, FilePath, ReadS, Rational and the
task's own), a bijection of type variables makes the bodies structurally equal and the constraint sets
equal (order-insensitive, duplicates removed). Explicit `forall`s are accepted (vacuous binders
ignored). A type whose constraints mention a variable its body does not (an ambiguous type, which GHC
rejects) is never equivalent to anything: the GHC oracle cannot prove such a type equal even to itself.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

from core.families.typeinf.env import expand_synonyms
from core.families.typeinf.types import Pred, Scheme, TAp, TCon, TForall, TVar, Type, show, show_pred, tvars

Synonyms = dict[str, tuple[list[str], Type]]


@dataclass(frozen=True)
class Canonical:
    """A scheme with variables renamed v0, v1, ... in order of first appearance in the body."""

    body: Type
    context: frozenset[str]  # printed constraints after renaming
    ambiguous: tuple[str, ...]  # constraint variables absent from the body (original names)
    mapping: tuple[tuple[str, str], ...]  # original -> canonical


def _rename(t: Type, mapping: dict[str, str], nested: list[int]) -> Type:
    if isinstance(t, TVar):
        return TVar(mapping.get(t.name, t.name))
    if isinstance(t, TAp):
        return TAp(_rename(t.fun, mapping, nested), _rename(t.arg, mapping, nested))
    if isinstance(t, TForall):
        inner = dict(mapping)
        names = []
        for n in t.names:
            nested[0] += 1
            inner[n] = f"n{nested[0]}"
            names.append(inner[n])
        ctx = tuple(Pred(p.cls, tuple(_rename(a, inner, nested) for a in p.args)) for p in t.context)
        return TForall(tuple(names), tuple(sorted(ctx, key=show_pred)), _rename(t.body, inner, nested))
    return t


def _mentions(t: Type, names: Synonyms) -> bool:
    stack = [t]
    while stack:
        cur = stack.pop()
        if isinstance(cur, TCon):
            if cur.name in names:
                return True
        elif isinstance(cur, TAp):
            stack.append(cur.fun)
            stack.append(cur.arg)
        elif isinstance(cur, TForall):
            return True
    return False


def canonical(scheme: Scheme, synonyms: Synonyms) -> Canonical:
    def expand(t: Type) -> Type:
        return expand_synonyms(t, synonyms) if _mentions(t, synonyms) else t

    body = expand(scheme.body)
    context = [Pred(p.cls, tuple(expand(a) for a in p.args)) for p in scheme.context]
    order = tvars(body)
    mapping = {v: f"v{i}" for i, v in enumerate(order)}
    ambiguous: list[str] = []
    for p in context:
        for a in p.args:
            for v in tvars(a):
                if v not in mapping and v not in ambiguous:
                    ambiguous.append(v)
    nested = [0]
    renamed_body = _rename(body, mapping, nested)
    ctx = frozenset(show_pred(Pred(p.cls, tuple(_rename(a, mapping, nested) for a in p.args))) for p in context)
    return Canonical(renamed_body, ctx, tuple(ambiguous), tuple(mapping.items()))


def equivalent(a: Scheme, b: Scheme, synonyms: Synonyms) -> bool:
    return equivalent_canonical(canonical(a, synonyms), canonical(b, synonyms))


def equivalent_canonical(ca: Canonical, cb: Canonical) -> bool:
    if ca.ambiguous or cb.ambiguous:
        return False
    return ca.body == cb.body and ca.context == cb.context


@functools.lru_cache(maxsize=4096)
def _equivalent_cached(a: Scheme, b: Scheme, synonyms_key: tuple) -> bool:  # type: ignore[type-arg]
    return equivalent(a, b, dict(synonyms_key))


def equivalent_fast(a: Scheme, b: Scheme, synonyms: Synonyms) -> bool:
    key = tuple(sorted((k, (tuple(v[0]), v[1])) for k, v in synonyms.items()))
    return _equivalent_cached(a, b, tuple((k, (list(p), t)) for k, (p, t) in key))  # type: ignore[arg-type]


def is_instance(general: Type, specific: Type) -> bool:
    """Some substitution of `general`'s variables gives `specific` (specific's variables rigid)."""
    mapping: dict[str, Type] = {}

    def go(g: Type, s: Type) -> bool:
        if isinstance(g, TVar):
            if g.name in mapping:
                return mapping[g.name] == s
            mapping[g.name] = s
            return True
        if isinstance(g, TCon):
            return isinstance(s, TCon) and s.name == g.name
        if isinstance(g, TAp):
            return isinstance(s, TAp) and go(g.fun, s.fun) and go(g.arg, s.arg)
        return g == s

    return go(general, specific)


def permutations_match(args_a: list[Type], result_a: Type, args_b: list[Type], result_b: Type,
                       limit: int = 7) -> bool:
    """Some non-identity permutation of b's arguments makes the two types alpha-equal."""
    from core.families.typeinf.types import fn

    if len(args_a) != len(args_b) or len(args_a) < 2 or len(args_a) > limit:
        return False
    target = canonical(Scheme((), fn(*args_a, result_a)), {}).body
    for perm in itertools.permutations(range(len(args_b))):
        if list(perm) == list(range(len(args_b))):
            continue
        cand = canonical(Scheme((), fn(*(args_b[i] for i in perm), result_b)), {}).body
        if cand == target:
            return True
    return False


__all__ = ["Canonical", "canonical", "equivalent", "is_instance", "permutations_match", "show"]
