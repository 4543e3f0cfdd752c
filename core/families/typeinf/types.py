"""Haskell types as data: variables, constructors and application (functions are `(->) a b`).

One uniform representation (constructor application) makes higher-kinded variables (`m a`, `f (t a)`)
unify like any other type. Pretty-printing follows Haskell's own layout: `[a]`, `(a, b)`, `()`,
right-nested arrows, and parentheses only where needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TVar:
    name: str


@dataclass(frozen=True, slots=True)
class TCon:
    name: str  # "Int", "Maybe", "[]", "->", "()", "(,)", "(,,)", ...


@dataclass(frozen=True, slots=True)
class TAp:
    fun: Type
    arg: Type


@dataclass(frozen=True, slots=True)
class TForall:
    """A nested (rank-n) quantifier, kept as structure: it never equals a rank-1 type."""

    names: tuple[str, ...]
    context: tuple[Pred, ...]
    body: Type


Type = TVar | TCon | TAp | TForall

ARROW = TCon("->")
LIST = TCon("[]")
UNIT = TCon("()")


@dataclass(frozen=True, slots=True)
class Pred:
    """A class constraint `C t1 .. tn` (usually one argument, a variable)."""

    cls: str
    args: tuple[Type, ...]


@dataclass(frozen=True, slots=True)
class Scheme:
    """`forall vars. context => body`: the variables are those of the body and the context."""

    context: tuple[Pred, ...]
    body: Type


def fn(*types: Type) -> Type:
    """fn(a, b, c) = a -> b -> c."""
    result = types[-1]
    for arg in reversed(types[:-1]):
        result = TAp(TAp(ARROW, arg), result)
    return result


def tuple_con(n: int) -> TCon:
    return TCon("(" + "," * (n - 1) + ")")


def tuple_of(*types: Type) -> Type:
    if not types:
        return UNIT
    result: Type = tuple_con(len(types))
    for t in types:
        result = TAp(result, t)
    return result


def list_of(t: Type) -> Type:
    return TAp(LIST, t)


def split_app(t: Type) -> tuple[Type, list[Type]]:
    """`T a b` -> (T, [a, b])."""
    args: list[Type] = []
    while isinstance(t, TAp):
        args.append(t.arg)
        t = t.fun
    args.reverse()
    return t, args


def split_fn(t: Type) -> tuple[list[Type], Type]:
    """`a -> b -> c` -> ([a, b], c)."""
    args: list[Type] = []
    while True:
        head, rest = split_app(t)
        if head == ARROW and len(rest) == 2:
            args.append(rest[0])
            t = rest[1]
        else:
            return args, t


def is_fn(t: Type) -> bool:
    head, rest = split_app(t)
    return head == ARROW and len(rest) == 2


def is_tuple_con(name: str) -> bool:
    return len(name) >= 3 and name[0] == "(" and name[-1] == ")" and set(name[1:-1]) == {","}


def tvars(t: Type, out: list[str] | None = None) -> list[str]:
    """Type variables in order of first appearance (pre-order, left to right)."""
    out = [] if out is None else out
    seen = set(out)  # membership in the list itself made this quadratic in the number of variables
    stack: list[Type] = [t]
    while stack:
        cur = stack.pop()
        if isinstance(cur, TVar):
            if cur.name not in seen:
                seen.add(cur.name)
                out.append(cur.name)
        elif isinstance(cur, TAp):
            stack.append(cur.arg)
            stack.append(cur.fun)
        elif isinstance(cur, TForall):
            inner = [v for v in tvars(cur.body) if v not in cur.names]
            for p in cur.context:
                for a in p.args:
                    inner.extend(v for v in tvars(a) if v not in cur.names and v not in inner)
            for v in inner:
                if v not in seen:
                    seen.add(v)
                    out.append(v)
    return out


def scheme_vars(s: Scheme) -> list[str]:
    out = tvars(s.body)
    for p in s.context:
        for a in p.args:
            tvars(a, out)
    return out


def tcons(t: Type) -> Iterator[tuple[str, int]]:
    """(constructor name, number of arguments it is applied to) for every constructor occurrence."""
    head, args = split_app(t)
    if isinstance(head, TCon):
        yield head.name, len(args)
    elif isinstance(head, TForall):
        yield from tcons(head.body)
        for p in head.context:
            for a in p.args:
                yield from tcons(a)
    elif isinstance(head, TAp):  # pragma: no cover - split_app never leaves a TAp head
        yield from tcons(head)
    for a in args:
        yield from tcons(a)


def subst(t: Type, s: dict[str, Type]) -> Type:
    if not s:
        return t
    if isinstance(t, TVar):
        return s.get(t.name, t)
    if isinstance(t, TAp):
        f = subst(t.fun, s)
        a = subst(t.arg, s)
        return t if f is t.fun and a is t.arg else TAp(f, a)
    if isinstance(t, TForall):
        inner = {k: v for k, v in s.items() if k not in t.names}
        return TForall(t.names, tuple(subst_pred(p, inner) for p in t.context), subst(t.body, inner))
    return t


def subst_pred(p: Pred, s: dict[str, Type]) -> Pred:
    return Pred(p.cls, tuple(subst(a, s) for a in p.args))


def subst_scheme(sc: Scheme, s: dict[str, Type]) -> Scheme:
    return Scheme(tuple(subst_pred(p, s) for p in sc.context), subst(sc.body, s))


# ---- printing ----------------------------------------------------------------------------------
def show(t: Type, prec: int = 0) -> str:
    """Haskell syntax. prec 0: top, 1: left of an arrow, 2: an argument of an application."""
    if isinstance(t, TVar):
        return t.name
    if isinstance(t, TCon):
        if t.name == "->":
            return "(->)"
        return t.name
    if isinstance(t, TForall):
        ctx = show_context(t.context)
        text = f"forall {' '.join(t.names)}. {ctx}{show(t.body)}"
        return f"({text})" if prec > 0 else text
    head, args = split_app(t)
    if isinstance(head, TCon):
        if head.name == "->" and len(args) == 2:
            text = f"{show(args[0], 1)} -> {show(args[1], 0)}"
            return f"({text})" if prec > 0 else text
        if head.name == "[]" and len(args) == 1:
            return f"[{show(args[0])}]"
        if is_tuple_con(head.name) and len(args) == len(head.name) - 1:
            return "(" + ", ".join(show(a) for a in args) + ")"
    text = " ".join([show(head, 2), *(show(a, 2) for a in args)])
    return f"({text})" if prec > 1 else text


def show_pred(p: Pred) -> str:
    return " ".join([p.cls, *(show(a, 2) for a in p.args)])


def show_context(ctx: tuple[Pred, ...] | list[Pred]) -> str:
    if not ctx:
        return ""
    if len(ctx) == 1:
        return show_pred(ctx[0]) + " => "
    return "(" + ", ".join(show_pred(p) for p in ctx) + ") => "


def show_scheme(s: Scheme) -> str:
    return show_context(s.context) + show(s.body)
