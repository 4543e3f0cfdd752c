"""Answers derived from a ground truth: equivalent rewrites (renaming, reordering, `forall`, String vs
[Char]) and the perturbations of §G's categories (swapped arguments, dropped or extra constraint, extra
argument, generalised or specialised variable, wrong constructor). Used by the tests that hold the
checker and the GHC oracle to the same verdicts, by the benchmark, and to build wrong answers."""

from __future__ import annotations

import random

from core.families.typeinf.types import (
    LIST,
    Pred,
    Scheme,
    TAp,
    TCon,
    TVar,
    Type,
    fn,
    scheme_vars,
    show,
    show_scheme,
    split_app,
    split_fn,
    subst,
)

FRESH = ["zz", "q", "w", "k", "m2", "x1", "y9", "r", "s", "u"]


def _rename(s: Scheme, names: list[str]) -> Scheme:
    mapping: dict[str, Type] = {v: TVar(n) for v, n in zip(scheme_vars(s), names, strict=False)}
    return Scheme(tuple(Pred(p.cls, tuple(subst(a, mapping) for a in p.args)) for p in s.context),
                  subst(s.body, mapping))


def _replace_first_con(t: Type) -> Type | None:
    swaps = {"[]": "Maybe", "Maybe": "[]", "Int": "Integer", "Integer": "Int", "Bool": "Char", "Char": "Bool",
             "Either": "(,)", "Ordering": "Bool", "Double": "Float"}
    head, args = split_app(t)
    if isinstance(head, TCon) and head.name in swaps:
        new: Type = TCon(swaps[head.name])
        for a in args:
            new = TAp(new, a)
        return new
    for i, a in enumerate(args):
        r = _replace_first_con(a)
        if r is not None:
            new_args = list(args)
            new_args[i] = r
            out: Type = head
            for x in new_args:
                out = TAp(out, x)
            return out
    return None


def _replace_nth_var(t: Type, name: str, target: int, counter: list[int], new: Type) -> Type:
    if isinstance(t, TVar) and t.name == name:
        counter[0] += 1
        return new if counter[0] == target else t
    if isinstance(t, TAp):
        return TAp(_replace_nth_var(t.fun, name, target, counter, new),
                   _replace_nth_var(t.arg, name, target, counter, new))
    return t


def equivalents(truth_text: str, scheme: Scheme, rng: random.Random) -> dict[str, str]:
    """Answers that are alpha-equivalent to the truth."""
    vs = scheme_vars(scheme)
    names = list(FRESH)
    rng.shuffle(names)
    out = {"itself": truth_text, "renamed": show_scheme(_rename(scheme, names))}
    out["reverse-named"] = show_scheme(_rename(scheme, [chr(ord("z") - i) for i in range(len(vs))]))
    if len(scheme.context) >= 2:
        out["reordered"] = show_scheme(Scheme(tuple(reversed(scheme.context)), scheme.body))
    if vs:
        out["forall"] = f"forall {' '.join(reversed(vs))}. {show_scheme(scheme)}"
    if "String" in truth_text:
        out["expanded-string"] = truth_text.replace("String", "[Char]")
    elif "[Char]" in truth_text:
        out["string"] = truth_text.replace("[Char]", "String")
    return out


def perturbations(scheme: Scheme) -> dict[str, str]:
    """Answers that differ from the truth (each names the category it should fall in, roughly)."""
    out: dict[str, str] = {}
    args, res = split_fn(scheme.body)
    vs = scheme_vars(scheme)
    if len(args) >= 2 and args[0] != args[1]:
        swapped = [args[1], args[0], *args[2:]]
        out["swapped-arguments"] = show_scheme(Scheme(scheme.context, fn(*swapped, res)))
    if scheme.context:
        out["dropped-constraint"] = show_scheme(Scheme(scheme.context[1:], scheme.body))
    if vs:
        extra = Pred("Show" if all(p.cls != "Show" for p in scheme.context) else "Read", (TVar(vs[0]),))
        out["extra-constraint"] = show_scheme(Scheme((*scheme.context, extra), scheme.body))
        out["specialised-variable"] = show_scheme(Scheme(
            tuple(Pred(p.cls, tuple(subst(a, {vs[0]: TCon("Int")}) for a in p.args)) for p in scheme.context),
            subst(scheme.body, {vs[0]: TCon("Int")})))
        count = show(scheme.body).split().count(vs[0])
        if count >= 2:
            out["generalised-variable"] = show_scheme(Scheme(
                scheme.context, _replace_nth_var(scheme.body, vs[0], 2, [0], TVar("fresh0"))))
    out["extra-argument"] = show_scheme(Scheme(scheme.context, fn(TCon("Int"), scheme.body)))
    wrong = _replace_first_con(scheme.body)
    if wrong is not None:
        out["wrong-constructor"] = show_scheme(Scheme(scheme.context, wrong))
    else:
        out["wrong-constructor"] = show_scheme(Scheme(scheme.context, TAp(LIST, scheme.body)
                                                      if not args else fn(*args, TAp(LIST, res))))
    return out
