"""The typing environment: values, constructors, classes, instances, synonyms and fixities.

`base_env()` reads assets/typeinf/prelude.hs (the Prelude as base-4.15 declares it); `task_env(deps)`
lays a task's dependency declarations over it, so a task's own signatures, data types and classes
win. Type synonyms are expanded in every stored scheme, so inference never sees them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from core.families.typeinf import syntax as S
from core.families.typeinf.hsparse import Fixities, HsParseError, parse_decls
from core.families.typeinf.types import (
    ARROW,
    LIST,
    UNIT,
    Pred,
    Scheme,
    TAp,
    TCon,
    TForall,
    TVar,
    Type,
    fn,
    list_of,
    split_app,
    subst,
    tuple_con,
    tuple_of,
)
from core.paths import asset

ASSETS = asset("typeinf")
# The synonyms of base every checker expands (a task's dependencies may add more).
BASE_SYNONYMS = ("String", "ShowS", "ReadS", "FilePath", "Rational")
NUMERIC_CLASSES = frozenset({"Num", "Real", "Integral", "Fractional", "Floating", "RealFrac", "RealFloat"})
STANDARD_CLASSES = NUMERIC_CLASSES | {"Eq", "Ord", "Show", "Read", "Enum", "Bounded", "Ix", "Functor", "Monad",
                                      "MonadPlus", "Foldable", "Traversable", "Applicative", "Semigroup",
                                      "Monoid", "MonadFail"}


@dataclass
class ClassInfo:
    name: str
    params: list[str]
    supers: list[Pred]
    methods: dict[str, Scheme] = field(default_factory=dict)


@dataclass
class Instance:
    context: list[Pred]
    head: Pred


@dataclass
class Env:
    values: dict[str, Scheme] = field(default_factory=dict)
    constructors: dict[str, Scheme] = field(default_factory=dict)
    con_siblings: dict[str, int] = field(default_factory=dict)  # constructor -> constructors of its type
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    instances: dict[str, list[Instance]] = field(default_factory=dict)
    synonyms: dict[str, tuple[list[str], Type]] = field(default_factory=dict)
    fixities: Fixities = field(default_factory=dict)
    types: dict[str, int] = field(default_factory=dict)  # data/newtype name -> number of parameters
    # where a name came from ("deps" or "base"), for explanations
    origin: dict[str, str] = field(default_factory=dict)

    def copy(self) -> Env:
        return Env(dict(self.values), dict(self.constructors), dict(self.con_siblings), dict(self.classes),
                   {k: list(v) for k, v in self.instances.items()}, dict(self.synonyms), dict(self.fixities),
                   dict(self.types), dict(self.origin))

    # -- synonyms ---------------------------------------------------------------------------------
    def expand(self, t: Type, depth: int = 0) -> Type:
        return expand_synonyms(t, self.synonyms, depth)

    def expand_scheme(self, s: Scheme) -> Scheme:
        return Scheme(tuple(Pred(p.cls, tuple(self.expand(a) for a in p.args)) for p in s.context),
                      self.expand(s.body))


def expand_synonyms(t: Type, synonyms: dict[str, tuple[list[str], Type]], depth: int = 0) -> Type:
    """Every fully applied synonym replaced by its definition (repeatedly; cycles stop at depth 50)."""
    if depth > 50:
        raise HsParseError("type synonyms expand without end (a cycle?)")
    if isinstance(t, TVar):
        return t
    if isinstance(t, TForall):
        return TForall(t.names, tuple(Pred(p.cls, tuple(expand_synonyms(a, synonyms, depth) for a in p.args))
                                      for p in t.context), expand_synonyms(t.body, synonyms, depth))
    head, args = split_app(t)
    args = [expand_synonyms(a, synonyms, depth) for a in args]
    if isinstance(head, TCon) and head.name in synonyms:
        params, body = synonyms[head.name]
        if len(args) >= len(params):
            mapping = dict(zip(params, args[: len(params)], strict=True))
            result = expand_synonyms(subst(body, mapping), synonyms, depth + 1)
            for extra in args[len(params):]:
                result = TAp(result, extra)
            return result
    result: Type = head
    for a in args:
        result = TAp(result, a)
    return result


def _builtin(env: Env) -> None:
    a, b = TVar("a"), TVar("b")
    env.constructors[":"] = Scheme((), fn(a, list_of(a), list_of(a)))
    env.constructors["[]"] = Scheme((), list_of(a))
    env.constructors["()"] = Scheme((), UNIT)
    env.con_siblings.update({":": 2, "[]": 2, "()": 1})
    for n in range(2, 8):
        names = [TVar(f"a{i}") for i in range(n)]
        con = tuple_con(n).name
        env.constructors[con] = Scheme((), fn(*names, tuple_of(*names)))
        env.con_siblings[con] = 1
    env.fixities.setdefault(":", ("infixr", 5))
    del a, b


def add_decls(env: Env, decls: list[S.Decl], origin: str) -> None:
    """Lay declarations over `env` (synonyms first, so every later scheme is stored expanded)."""
    for d in decls:
        if isinstance(d, S.SynDecl):
            env.synonyms[d.name] = (d.params, d.body)
            env.origin[d.name] = origin
    for d in decls:
        if isinstance(d, S.FixityDecl):
            for op in d.ops:
                env.fixities[op] = (d.assoc, d.prec)
    for d in decls:
        if isinstance(d, S.DataDecl):
            env.types[d.name] = len(d.params)
            env.origin[d.name] = origin
            result: Type = TCon(d.name)
            for p in d.params:
                result = TAp(result, TVar(p))
            for c in d.constructors:
                env.constructors[c.name] = env.expand_scheme(Scheme((), fn(*c.fields, result)))
                env.con_siblings[c.name] = len(d.constructors)
                env.origin[c.name] = origin
                for fname, ftype in zip(c.field_names, c.fields, strict=False):
                    if fname:
                        env.values[fname] = env.expand_scheme(Scheme((), fn(result, ftype)))
                        env.origin[fname] = origin
            for cls in d.deriving:
                ctx = [Pred(cls, (TVar(p),)) for p in d.params] if cls not in ("Functor", "Foldable",
                                                                              "Traversable") else []
                head_t: Type = TCon(d.name)
                params = d.params if cls not in ("Functor", "Foldable", "Traversable") else d.params[:-1]
                for p in params:
                    head_t = TAp(head_t, TVar(p))
                env.instances.setdefault(cls, []).append(Instance(ctx, Pred(cls, (head_t,))))
        elif isinstance(d, S.ClassDecl):
            info = ClassInfo(d.name, d.params, d.supers)
            self_pred = Pred(d.name, tuple(TVar(p) for p in d.params))
            for m in d.methods:
                scheme = env.expand_scheme(Scheme((self_pred, *m.scheme.context), m.scheme.body))
                for name in m.names:
                    info.methods[name] = scheme
                    env.values[name] = scheme
                    env.origin[name] = origin
            env.classes[d.name] = info
            env.origin[d.name] = origin
        elif isinstance(d, S.InstanceDecl):
            head = Pred(d.head.cls, tuple(env.expand(t) for t in d.head.args))
            env.instances.setdefault(d.head.cls, []).append(Instance(list(d.context), head))
    for d in decls:
        if isinstance(d, S.SigDecl):
            scheme = env.expand_scheme(d.scheme)
            if origin == "deps":
                scheme = with_method_class(d.names, scheme)
            for name in d.names:
                env.values[name] = scheme
                env.origin[name] = origin
        elif isinstance(d, S.ConSigDecl):
            scheme = env.expand_scheme(d.scheme)
            for name in d.names:
                env.constructors[name] = scheme
                env.con_siblings.setdefault(name, 2)
                env.origin[name] = origin


# The methods of base's constructor classes, by class. TF-Bench's dependencies copy a method's
# signature from its class declaration, where the class's own constraint is implicit (released
# `foldMap :: Monoid m => (a -> m) -> t a -> m`, `(<*>) :: f (a -> b) -> f a -> f b`); read so, `any`
# would type without its Foldable.
BASE_METHODS = {
    "Foldable": ("fold", "foldMap", "foldMap'", "foldr", "foldr'", "foldl", "foldl'", "foldr1", "foldl1",
                 "toList", "null", "length", "elem", "maximum", "minimum", "sum", "product"),
    "Functor": ("fmap", "<$"),
    "Applicative": ("pure", "<*>", "liftA2", "*>", "<*"),
    "Monad": (">>=", ">>", "return"),
    "Traversable": ("traverse", "sequenceA", "mapM", "sequence"),
}
_METHOD_CLASS = {m: cls for cls, methods in BASE_METHODS.items() for m in methods}


def with_method_class(names: list[str], scheme: Scheme) -> Scheme:
    """A dependency's signature for a method of base's Foldable/Functor/Applicative/Monad/Traversable,
    written as in the class declaration, with the class's constraint made explicit: on the one type
    variable the signature applies to arguments (`t a`), when the context does not constrain it."""
    classes = {_METHOD_CLASS.get(n) for n in names}
    if len(classes) != 1 or None in classes:
        return scheme
    cls = classes.pop()
    heads = {h.name for h in _applied_vars(scheme.body)}
    # a variable already constrained is another class's (`mapM :: Monad m => ... -> [a] -> m [b]`,
    # Traversable specialised to lists)
    if len(heads) != 1 or any(TVar(h) in p.args for p in scheme.context for h in heads):
        return scheme
    return Scheme((Pred(cls, (TVar(heads.pop()),)), *scheme.context), scheme.body)


def _applied_vars(t: Type) -> list[TVar]:
    if isinstance(t, TAp):
        head, args = split_app(t)
        found = [head] if isinstance(head, TVar) else _applied_vars(head) if isinstance(head, TAp) else []
        for a in args:
            found += _applied_vars(a)
        return found
    return []


@functools.cache
def base_decls() -> tuple[S.Decl, ...]:
    return tuple(parse_decls((ASSETS / "prelude.hs").read_text(encoding="utf-8"), what="prelude.hs"))


@functools.cache
def _base_env() -> Env:
    env = Env()
    _builtin(env)
    add_decls(env, list(base_decls()), "base")
    return env


def base_env() -> Env:
    return _base_env().copy()


def dep_decls(dependencies: list[str] | tuple[str, ...], strict: bool = False) -> list[S.Decl]:
    """Each dependency parsed with the Prelude's fixities (and those of earlier dependencies); with
    `strict`, a dependency that does not parse raises HsParseError, otherwise it is skipped."""
    fix = dict(_base_env().fixities)
    out: list[S.Decl] = []
    for dep in dependencies:
        try:
            decls = parse_decls(dep, fix, what="a dependency")
        except HsParseError:
            if strict:
                raise
            continue  # a dependency we cannot read (a foreign file's prose, an extension) is skipped
        for d in decls:
            if isinstance(d, S.FixityDecl):
                for op in d.ops:
                    fix[op] = (d.assoc, d.prec)
        out.extend(decls)
    return out


@functools.lru_cache(maxsize=512)
def _task_env(dependencies: tuple[str, ...]) -> Env:
    env = base_env()
    add_decls(env, dep_decls(dependencies), "deps")
    return env


def task_env(dependencies: list[str] | tuple[str, ...]) -> Env:
    """The base environment with the task's dependencies laid over it (cached; do not mutate)."""
    return _task_env(tuple(dependencies))


def base_synonyms() -> dict[str, tuple[list[str], Type]]:
    env = _base_env()
    return {name: env.synonyms[name] for name in BASE_SYNONYMS}


__all__ = ["ARROW", "LIST", "Env", "ClassInfo", "Instance", "base_env", "task_env", "expand_synonyms"]


@functools.lru_cache(maxsize=1024)
def _task_synonyms(dependencies: tuple[str, ...]) -> dict[str, tuple[list[str], Type]]:
    out = dict(base_synonyms())
    for dep in dependencies:
        if not any(line.startswith("type ") for line in dep.splitlines()):
            continue
        try:
            decls = parse_decls(dep, what="a dependency")
        except HsParseError:
            continue
        for d in decls:
            if isinstance(d, S.SynDecl):
                out[d.name] = (d.params, d.body)
    return out


def task_synonyms(dependencies: list[str] | tuple[str, ...]) -> dict[str, tuple[list[str], Type]]:
    """Only the synonyms (base's and the dependencies'): all the checker needs, cheaper than task_env."""
    return _task_synonyms(tuple(dependencies))
