"""A Thalia-style generator: type-directed synthesis over the knowledge base.

A snippet is one class with `main`; its statements declare variables of library types (by simple name),
call constructors, static factories and methods (chains up to `chain_depth`) and read fields. Every
expression is built from the knowledge base's signatures with rules that keep it well typed without
asking javac:

- variables are declared with erased (raw) types; a call's result is assigned to the erasure of its
  return type, which always accepts it;
- a method is used only when its generic parameters mention no type variable, and it is not varargs;
- arguments have EXACTLY the parameter's type (typed literals, variables of that type, `new P(...)`,
  `(P) null`), so overload resolution picks the method the generator chose;
- a member is used only when every overload of the same name and arity is usable too: javac weighs
  them all, so a generic, deprecated or varargs sibling can make the call ambiguous (`reference to
  OpenMBeanAttributeInfoSupport is ambiguous`: `(.., Descriptor)` against `<T> (.., T)`), and a sibling
  whose parameter type is missing from the classpath makes it fail (`cannot access nu.xom.Builder`);
- a simple name is imported once: a type whose simple name is taken by another FQN, or is a java.lang
  type's, is never named; nested, non-public and deprecated types are never named;
- `main` declares `throws Throwable`, so checked exceptions need no handling.
The tests compile every preset snippet with its imports and without each one (javac must fail).

Item `index` uses its own RNG (`item_rng`), so it is generable alone and identical everywhere; the
knowledge base it reads is built deterministically from the pinned JDK and jars.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Any

from core.canonical import content_hash
from core.families.imports.kb import OBJECT, PRIMITIVES, Executable, Field, KnowledgeBase
from core.families.imports.kb import load as load_kb
from core.families.imports.model import ImportsInstance, ImportsParams
from core.families.imports.paths import LIBRARY_PREFIXES
from core.seeding import item_rng

FAMILY = "imports"
STRING = "java.lang.String"
WORDS = ("alpha", "beta", "gamma", "delta", "omega", "value", "item", "data", "text", "name")


# ---- what may be named and called --------------------------------------------------------------
@functools.cache
def _java_lang_names(kb: KnowledgeBase) -> frozenset[str]:
    return frozenset(t.simple for t in kb.types.values() if t.public and t.outer is None
                     and t.fqn == f"java.lang.{t.simple}")


def in_java_lang(fqn: str) -> bool:
    return fqn.startswith("java.lang.") and fqn.count(".") == 2


def declarable(kb: KnowledgeBase, fqn: str) -> bool:
    """A type the snippet may write by its simple name (maybe after importing it)."""
    if fqn in PRIMITIVES:
        return True
    info = kb.get(fqn)
    if info is None or not info.public or info.outer is not None or info.deprecated or not kb.complete(fqn):
        return False
    if in_java_lang(fqn):
        return True
    return info.simple not in _java_lang_names(kb) and info.simple != "Main"


def _accessible_public(kb: KnowledgeBase, fqn: str) -> bool:
    info = kb.get(fqn)
    return info is not None and info.public and kb.complete(fqn)


def _usable_type(kb: KnowledgeBase, fqn: str) -> bool:
    """Usable as a parameter or result: a primitive or a nameable type (arrays only of those)."""
    base = fqn[:-2] if fqn.endswith("[]") else fqn
    if base.endswith("[]"):
        return False
    return base in PRIMITIVES or declarable(kb, base)


@functools.cache
def _methods(kb: KnowledgeBase, fqn: str) -> tuple[Executable, ...]:
    """Instance methods the generator may call on a value of type `fqn`."""
    out = []
    for m in kb.methods(fqn):
        if m.static or m.owner == OBJECT or m.varargs or m.ptv or m.deprecated or m.name in ("wait", "notify"):
            continue
        if not all(_usable_type(kb, p) and not p.endswith("[]") for p in m.params):
            continue
        if m.ret != "void" and not (_usable_type(kb, m.ret) or _accessible_public(kb, m.ret)):
            continue
        out.append(m)
    return _unambiguous(out, kb.methods(fqn))


@functools.cache
def _statics(kb: KnowledgeBase, fqn: str) -> tuple[Executable, ...]:
    info = kb.get(fqn)
    if info is None:
        return ()
    usable = [m for m in info.methods if m.static and not m.varargs and not m.ptv and not m.deprecated
              and all(_usable_type(kb, p) and not p.endswith("[]") for p in m.params)
              and (m.ret == "void" or _usable_type(kb, m.ret) or _accessible_public(kb, m.ret))]
    return _unambiguous(usable, kb.methods(fqn))


@functools.cache
def _ctors(kb: KnowledgeBase, fqn: str) -> tuple[Executable, ...]:
    info = kb.get(fqn)
    if info is None or not info.concrete or info.outer is not None:
        return ()
    usable = [c for c in info.ctors if not c.varargs and not c.ptv and not c.deprecated and not c.generic
              and all(_usable_type(kb, p) and not p.endswith("[]") for p in c.params)]
    return _unambiguous(usable, info.ctors)


@functools.cache
def _static_fields(kb: KnowledgeBase, fqn: str) -> tuple[Field, ...]:
    info = kb.get(fqn)
    if info is None:
        return ()
    return tuple(f for f in info.fields if f.static and not f.deprecated and not f.tv and _usable_type(kb, f.type))


@functools.cache
def _instance_fields(kb: KnowledgeBase, fqn: str) -> tuple[Field, ...]:
    return tuple(f for f in kb.fields(fqn) if not f.static and not f.deprecated and not f.tv
                 and _usable_type(kb, f.type) and _accessible_public(kb, f.owner))


def _unambiguous(chosen: list[Executable], every: list[Executable]) -> tuple[Executable, ...]:
    """The chosen members whose same-name, same-arity overloads in `every` are all chosen too."""
    ok = {(m.name, m.params) for m in chosen}
    return tuple(m for m in chosen
                 if all((o.name, o.params) in ok for o in every
                        if o.name == m.name and len(o.params) == len(m.params)))


def _overloads(methods: tuple[Executable, ...], name: str, arity: int) -> int:
    return sum(1 for m in methods if m.name == name and len(m.params) == arity)


@functools.cache
def library_pool(kb: KnowledgeBase, library: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(all seed types, the ambiguous ones) of a library: nameable types that need an import and can
    be produced (a constructor, a static factory or a constant of the type itself)."""
    prefixes = LIBRARY_PREFIXES[library]
    seeds = []
    for fqn, info in sorted(kb.types.items()):
        if not any(fqn.startswith(p if p.endswith(".") else p + ".") for p in prefixes):
            continue
        if library == "jdk" and not info.origin.startswith("jdk:java."):
            continue
        if in_java_lang(fqn) or not declarable(kb, fqn) or info.kind == "annotation_type":
            continue
        if not (_ctors(kb, fqn) or any(m.ret == fqn for m in _statics(kb, fqn))
                or any(f.type == fqn for f in _static_fields(kb, fqn))):
            continue
        seeds.append(fqn)
    ambiguous = tuple(f for f in seeds if kb.is_ambiguous(kb.types[f].simple))
    return tuple(seeds), ambiguous


# ---- synthesis state ---------------------------------------------------------------------------
@dataclass
class Var:
    name: str
    type: str


@dataclass
class State:
    kb: KnowledgeBase
    rng: random.Random
    limit: int  # at most this many imports
    ambiguity: float
    imports: dict[str, str] = field(default_factory=dict)  # simple name -> FQN
    vars: list[Var] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    counter: int = 0
    max_chain: int = 0
    used: set[str] = field(default_factory=set)  # right-hand sides already written (no repeated lines)

    def fork(self) -> dict[str, str]:
        return dict(self.imports)

    def name_of(self, fqn: str, pending: dict[str, str], allow_new: bool = True) -> str | None:
        """The simple name to write for `fqn`, registering its import in `pending`; None if it cannot
        be named here (taken by another FQN, or the import budget is spent)."""
        if fqn in PRIMITIVES:
            return fqn
        if fqn.endswith("[]"):
            inner = self.name_of(fqn[:-2], pending, allow_new)
            return inner + "[]" if inner else None
        if not declarable(self.kb, fqn):
            return None
        simple = self.kb.types[fqn].simple
        if in_java_lang(fqn):
            return simple
        if pending.get(simple) == fqn:
            return simple
        if simple in pending or not allow_new or len(pending) >= self.limit:
            return None
        pending[simple] = fqn
        return simple

    def fresh(self, fqn: str) -> str:
        self.counter += 1
        base = fqn.rstrip("[]").rsplit(".", 1)[-1]
        prim = {"boolean": "flag", "char": "ch", "double": "real", "float": "real"}
        base = base[0].lower() + base[1:] if base not in PRIMITIVES else prim.get(base, "num")
        if fqn.endswith("[]"):
            base += "s"
        return f"{base}{self.counter}"


def _literal(state: State, fqn: str) -> str | None:
    rng = state.rng
    n = rng.randint(1, 99)
    return {
        "int": str(n), "long": f"{n}L", "double": f"{n}.5", "float": f"{n}.5f", "boolean": rng.choice(("true", "false")),
        "char": f"'{rng.choice('abcxyz')}'", "byte": f"(byte) {n}", "short": f"(short) {n}",
        STRING: f'"{rng.choice(WORDS)}"',
    }.get(fqn)


def _argument(state: State, param: str, exact: bool, pending: dict[str, str], depth: int) -> str | None:
    """An expression of type exactly `param` (or a subtype when `exact` is False)."""
    literal = _literal(state, param)
    if literal is not None and (state.rng.random() < 0.7 or param in PRIMITIVES):
        return literal
    matches = [v for v in state.vars if v.type == param
               or (not exact and not param.endswith("[]") and v.type not in PRIMITIVES
                   and not v.type.endswith("[]") and state.kb.is_subtype(v.type, param))]
    if matches and state.rng.random() < 0.8:
        return state.rng.choice(matches).name
    if literal is not None:
        return literal
    name = state.name_of(param, pending)
    if name is None:
        return None
    if depth < 1:
        produced = _produce(state, param, pending, depth + 1)
        if produced is not None:
            return produced
    return f"({name}) null"


def _arguments(state: State, params: tuple[str, ...], exact: bool, pending: dict[str, str], depth: int) -> str | None:
    out = []
    for p in params:
        arg = _argument(state, p, exact, pending, depth)
        if arg is None:
            return None
        out.append(arg)
    return ", ".join(out)


def _produce(state: State, fqn: str, pending: dict[str, str], depth: int = 0) -> str | None:
    """An expression whose static type is exactly `fqn`: a constructor, a static factory or constant."""
    kb, rng = state.kb, state.rng
    name = state.name_of(fqn, pending)
    if name is None:
        return None
    options: list[tuple[str, Any]] = [("new", c) for c in _ctors(kb, fqn)]
    # As an argument, the value must be raw (a parameterized result such as Class<?> may not fit a
    # parameter of type Class<? extends X>): a constructor call is raw, a factory or constant only when
    # its type is not generic at all.
    raw_only = depth > 0 and kb.types[fqn].tparams > 0
    if not raw_only:
        options += [("static", m) for m in _statics(kb, fqn) if m.ret == fqn and not (depth > 0 and m.gret)]
        options += [("field", f) for f in _static_fields(kb, fqn) if f.type == fqn]
    rng.shuffle(options)
    for kind, member in options[:6]:
        trial = dict(pending)
        if kind == "field":
            pending.update(trial)
            return f"{name}.{member.name}"
        exact = _overloads(_ctors(kb, fqn) if kind == "new" else _statics(kb, fqn), member.name,
                           len(member.params)) > 1
        args = _arguments(state, member.params, exact, trial, depth)
        if args is None:
            continue
        pending.update(trial)
        return f"new {name}({args})" if kind == "new" else f"{name}.{member.name}({args})"
    return None


def _call_chain(state: State, pending: dict[str, str], max_depth: int) -> tuple[str, str, int] | None:
    """`v.m(..).n(..)` on an existing variable: (expression, result type, calls)."""
    kb, rng = state.kb, state.rng
    receivers = [v for v in state.vars if v.type not in PRIMITIVES and not v.type.endswith("[]")]
    if not receivers:
        return None
    var = rng.choice(receivers)
    expr, current, calls = var.name, var.type, 0
    depth = rng.randint(1, max_depth)
    while calls < depth:
        methods = _methods(kb, current)
        if not methods:
            break
        chosen = None
        for method in rng.sample(methods, min(6, len(methods))):
            if calls + 1 < depth and (method.ret in PRIMITIVES or method.ret == "void" or method.ret.endswith("[]")):
                continue
            trial = dict(pending)
            exact = _overloads(methods, method.name, len(method.params)) > 1
            args = _arguments(state, method.params, exact, trial, 0)
            if args is None:
                continue
            pending.update(trial)
            chosen = method
            expr = f"{expr}.{method.name}({args})"
            break
        if chosen is None:
            break
        calls += 1
        current = chosen.ret
        if current == "void" or current in PRIMITIVES or current.endswith("[]"):
            break
    if calls == 0:
        return None
    return expr, current, calls


def _declare(state: State, fqn: str, expr: str, pending: dict[str, str]) -> bool:
    """`T v = expr;` when T can be named (else the caller may fall back to an expression statement)."""
    if expr in state.used:
        return False
    name = state.name_of(fqn, pending)
    if name is None:
        return False
    state.used.add(expr)
    var = state.fresh(fqn)
    state.lines.append(f"{name} {var} = {expr};")
    state.vars.append(Var(var, fqn))
    state.imports = pending
    return True


def _pick_seed(state: State, pool: tuple[str, ...], ambiguous: tuple[str, ...]) -> str | None:
    rng = state.rng
    source = ambiguous if ambiguous and rng.random() < state.ambiguity else pool
    candidates = [f for f in source if state.kb.types[f].simple not in state.imports
                  and f not in {v.type for v in state.vars}]
    return rng.choice(candidates) if candidates else None


def _statement(state: State, pool: tuple[str, ...], ambiguous: tuple[str, ...], chain_depth: int) -> bool:
    rng = state.rng
    roll = rng.random()
    if roll < 0.30 and len(state.imports) < state.limit:
        seed = _pick_seed(state, pool, ambiguous)
        if seed is not None:
            pending = state.fork()
            expr = _produce(state, seed, pending)
            if expr is not None and _declare(state, seed, expr, pending):
                return True
    if roll < 0.85:
        pending = state.fork()
        chain = _call_chain(state, pending, chain_depth)
        if chain is not None:
            expr, result, calls = chain
            if result not in ("void",) and rng.random() < 0.8 and _declare(state, result, expr, dict(pending)):
                state.max_chain = max(state.max_chain, calls)
                return True
            if expr in state.used:
                return False
            state.used.add(expr)
            state.lines.append(f"{expr};")
            state.imports = pending
            state.max_chain = max(state.max_chain, calls)
            return True
    # a field read
    pending = state.fork()
    fields: list[tuple[str, Field]] = []
    for var in state.vars:
        if var.type not in PRIMITIVES and not var.type.endswith("[]"):
            fields += [(var.name, f) for f in _instance_fields(state.kb, var.type)]
    for simple, fqn in sorted(state.imports.items()):
        fields += [(simple, f) for f in _static_fields(state.kb, fqn)]
    if fields:
        owner, chosen = rng.choice(fields)
        if _declare(state, chosen.type, f"{owner}.{chosen.name}", pending):
            return True
    return False


# ---- instances ---------------------------------------------------------------------------------
def base_params(params: dict[str, Any]) -> dict[str, Any]:
    """The params that decide the untransformed snippet (so transformed variants share it)."""
    return {k: v for k, v in params.items() if k != "transform"}


def render(class_name: str, lines: list[str], package: str) -> str:
    head = f"package {package};\n\n" if package else ""
    body = "".join(f"        {line}\n" for line in lines)
    return (f"{head}public class {class_name} {{\n"
            f"    public static void main(String[] args) throws Throwable {{\n{body}    }}\n}}\n")


def synthesize(kb: KnowledgeBase, p: ImportsParams, library: str, rng: random.Random) -> tuple[State, int]:
    pool, ambiguous = library_pool(kb, library)
    if not pool:
        raise ValueError(f"the knowledge base has no usable types for library '{library}'")
    best: State | None = None
    attempts = 0
    for attempt in range(1, 9):
        attempts = attempt
        state = State(kb=kb, rng=rng, limit=p.n_types, ambiguity=p.ambiguity)
        # at least one library type first, so every snippet is about its library
        for _ in range(10):
            seed = _pick_seed(state, pool, ambiguous)
            if seed is None:
                break
            pending = state.fork()
            expr = _produce(state, seed, pending)
            if expr is not None and _declare(state, seed, expr, pending):
                break
        tries = 0
        while len(state.lines) < p.statements and tries < p.statements * 8:
            tries += 1
            _statement(state, pool, ambiguous, p.chain_depth)
        if state.lines and (best is None or len(state.imports) > len(best.imports)):
            best = state
        if best is not None and len(best.imports) >= min(p.n_types, 2) and len(best.lines) >= p.statements:
            break
    assert best is not None
    return best, attempts


def generate_one(params: dict[str, Any], seed: int, index: int) -> ImportsInstance:
    p = ImportsParams.model_validate(params)
    library = p.library[index % len(p.library)]
    kb = load_kb()
    rng = item_rng(FAMILY, base_params(p.model_dump(mode="json")), seed, index)
    state, attempts = synthesize(kb, p, library, rng)
    class_name = "Main"
    code = render(class_name, state.lines, p.package)
    imports = sorted(state.imports.values())
    n_ambiguous = sum(1 for fqn in imports if kb.is_ambiguous(kb.types[fqn].simple))
    meta: dict[str, Any] = {
        "library": library, "n_types": len(imports), "n_ambiguous": n_ambiguous, "statements": len(state.lines),
        "chain_depth": state.max_chain, "loc": code.count("\n"), "source": "generated",
        "transform": "none",
    }
    if attempts > 1:
        meta["attempts"] = attempts
    instance = ImportsInstance(params=p.model_dump(mode="json"), seed=seed, index=index, code=code,
                               library=library, ground_truth={"imports": imports}, meta=meta)
    if p.transform:
        from core.families.imports.transform import apply_all

        base_id = f"{FAMILY}-{content_hash(instance.payload(), 12)}"
        variant_rng = item_rng(FAMILY, base_params(p.model_dump(mode="json")), seed, index, stream="transform")
        instance.code = apply_all(instance.code, p.transform, variant_rng)
        instance.meta.update({"transform": "+".join(p.transform), "variant_of": base_id,
                              "loc": instance.code.count("\n")})
    return instance.with_content_id()  # type: ignore[return-value]
