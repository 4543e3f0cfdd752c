"""Hindley–Milner inference with type classes, over a task's dependencies (the family's baseline).

Algorithm W with a global substitution, let-polymorphism for `let`/`where` groups (split by dependency
analysis), class constraints collected from instantiated signatures, literals, sequences, negation and
refutable `do` patterns, then simplified as GHC does for an inferred type: instance reduction to head
normal form, duplicates and superclass-implied constraints dropped, and ambiguous variables defaulted
(Integer, then Double) where Haskell's defaulting rule allows. The monomorphism restriction is not
applied (the tasks ask for the principal type; the GHC validation uses NoMonomorphismRestriction).

Every step can be recorded as an `Event` (the sub-expression's span, the equation, the substitution
entries it added, the constraints), which `trace.py` turns into the stepper's derivation. Work is
bounded by `max_steps` (unifications plus visited nodes), never by the clock.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from core.families.typeinf import syntax as S
from core.families.typeinf.env import NUMERIC_CLASSES, STANDARD_CLASSES, Env
from core.families.typeinf.hsparse import HsParseError, parse_code
from core.families.typeinf.types import (
    ARROW,
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
    scheme_vars,
    show,
    show_pred,
    split_app,
    subst,
    tuple_of,
    tvars,
)

BOOL = TCon("Bool")
CHAR = TCon("Char")
STRING = list_of(CHAR)
DEFAULT_STEPS = 200_000


class InferError(Exception):
    """The code does not type-check (or uses something unsupported); `span` locates it."""

    def __init__(self, message: str, span: S.Span | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


class BudgetExceeded(InferError):
    pass


@dataclass
class Event:
    kind: str  # enter, var, lit, unify, constraint, bind, generalize, reduce, default, assume, fail, result
    label: str
    span: S.Span | None = None
    bindings: list[tuple[str, Type]] = field(default_factory=list)
    preds: list[Pred] = field(default_factory=list)
    depth: int = 0
    ok: bool = True


@dataclass
class Poly:
    """A type in scope: `qvars` are generalised (instantiated afresh at each use)."""

    qvars: tuple[str, ...]
    context: tuple[Pred, ...]
    body: Type


Scope = dict[str, Poly]


@dataclass
class InferResult:
    scheme: Scheme | None
    events: list[Event]
    error: InferError | None = None
    steps: int = 0
    defaulted: list[tuple[str, str]] = field(default_factory=list)


class Inferencer:
    def __init__(self, env: Env, max_steps: int = DEFAULT_STEPS, record: bool = False, pure: bool = False) -> None:
        self.env = env
        self.pure = pure
        # In a pure task Bool and Char have new names (T1, T2, ...): the types built-in syntax needs
        # (`if`, guards, literals) are then unknowns that the code's use identifies.
        self.bool: Type = TVar("Bool?") if pure else BOOL
        self.char: Type = TVar("Char?") if pure else CHAR
        self.max_steps = max_steps
        self.record = record
        self.sub: dict[str, Type] = {}
        self.preds: list[tuple[Pred, S.Span | None]] = []
        self.counter = itertools.count(1)
        self.events: list[Event] = []
        self.steps = 0
        self.depth = 0
        self.defaulted: list[tuple[str, str]] = []
        self.givens: list[Pred] = []  # constraints an answer or a local signature supplies

    # ---- bookkeeping ------------------------------------------------------------------------------
    def tick(self, n: int = 1) -> None:
        self.steps += n
        if self.steps > self.max_steps:
            raise BudgetExceeded(f"inference budget of {self.max_steps} steps exhausted")

    def emit(self, kind: str, label: str, span: S.Span | None = None, **kw: object) -> None:
        if self.record:
            self.events.append(Event(kind, label, span, depth=self.depth, **kw))  # type: ignore[arg-type]

    def fresh(self) -> TVar:
        return TVar(f"t{next(self.counter)}")

    def prune(self, t: Type) -> Type:
        while isinstance(t, TVar) and t.name in self.sub:
            t = self.sub[t.name]
        return t

    def zonk(self, t: Type) -> Type:
        t = self.prune(t)
        if isinstance(t, TAp):
            f, a = self.zonk(t.fun), self.zonk(t.arg)
            return t if f is t.fun and a is t.arg else TAp(f, a)
        if isinstance(t, TForall):
            return TForall(t.names, tuple(self.zonk_pred(p) for p in t.context), self.zonk(t.body))
        return t

    def zonk_pred(self, p: Pred) -> Pred:
        return Pred(p.cls, tuple(self.zonk(a) for a in p.args))

    def show(self, t: Type) -> str:
        return show(self.zonk(t))

    # ---- unification --------------------------------------------------------------------------------
    def occurs(self, name: str, t: Type) -> bool:
        t = self.prune(t)
        if isinstance(t, TVar):
            return t.name == name
        if isinstance(t, TAp):
            return self.occurs(name, t.fun) or self.occurs(name, t.arg)
        return False

    def unify(self, a: Type, b: Type, span: S.Span | None, why: str) -> None:
        before = len(self.sub)
        added: list[tuple[str, Type]] = []
        left, right = self.show(a), self.show(b)
        try:
            self._unify(a, b, added)
        except InferError as exc:
            self.emit("fail", f"{why}: {left} ~ {right} fails — {exc.message}", span, ok=False)
            raise InferError(f"{why}: cannot match {left} with {right} ({exc.message})", span) from None
        if self.record and (added or len(self.sub) != before):
            self.emit("unify", f"{why}: {left} ~ {right}", span, bindings=added)

    def _unify(self, a: Type, b: Type, added: list[tuple[str, Type]]) -> None:
        self.tick()
        a, b = self.prune(a), self.prune(b)
        if isinstance(a, TVar) and isinstance(b, TVar) and a.name == b.name:
            return
        if isinstance(a, TVar):
            self._bind(a.name, b, added)
            return
        if isinstance(b, TVar):
            self._bind(b.name, a, added)
            return
        if isinstance(a, TCon) and isinstance(b, TCon):
            if a.name != b.name:
                raise InferError(f"{a.name} is not {b.name}")
            return
        if isinstance(a, TAp) and isinstance(b, TAp):
            self._unify(a.fun, b.fun, added)
            self._unify(a.arg, b.arg, added)
            return
        if isinstance(a, TForall) != isinstance(b, TForall):
            # a rank-2 argument (`build :: (forall b. (a -> b -> b) -> b -> b) -> [a]`): the other side
            # must hold for a rigid b, so b becomes a fresh constant no other type equals
            poly, other = (a, b) if isinstance(a, TForall) else (b, a)
            if not poly.context:
                rigid = {n: TCon(f"{n}'{next(self.counter)}") for n in poly.names}  # type: ignore[union-attr]
                self._unify(subst(poly.body, rigid), other, added)  # type: ignore[union-attr]
                return
        if isinstance(a, TForall) or isinstance(b, TForall):
            raise InferError("higher-rank types are not supported")
        raise InferError(f"{show(self.zonk(a))} is not {show(self.zonk(b))}")

    def _bind(self, name: str, t: Type, added: list[tuple[str, Type]]) -> None:
        if self.occurs(name, t):
            raise InferError(f"occurs check: {name} = {self.show(t)} would be infinite")
        self.sub[name] = t
        added.append((name, t))

    # ---- schemes ------------------------------------------------------------------------------------
    def instantiate(self, poly: Poly, span: S.Span | None, origin: str) -> Type:
        mapping = {v: self.fresh() for v in poly.qvars}
        body = subst(poly.body, mapping)  # type: ignore[arg-type]
        preds = [Pred(p.cls, tuple(subst(a, mapping) for a in p.args)) for p in poly.context]  # type: ignore[arg-type]
        for p in preds:
            self.preds.append((p, span))
        if self.record:
            note = f" with {', '.join(show_pred(p) for p in preds)}" if preds else ""
            self.emit("var", f"{origin} :: {show(body)}{note}", span, preds=preds)
        return body

    def lookup(self, name: str, scope: Scope, span: S.Span | None, constructor: bool = False) -> Type:
        if not constructor and name in scope:
            return self.instantiate(scope[name], span, name)
        table = self.env.constructors if constructor else self.env.values
        scheme = table.get(name)
        if scheme is None and "." in name:
            scheme = table.get(name.rsplit(".", 1)[-1])
        if scheme is None:
            what = "constructor" if constructor else "variable"
            raise InferError(f"{what} '{name}' is not in scope (not among the dependencies)", span)
        return self.instantiate(Poly(tuple(scheme_vars(scheme)), scheme.context, scheme.body), span, name)

    def skolemize(self, scheme: Scheme) -> tuple[Type, list[Pred]]:
        """Rigid constants for the scheme's variables (lower-case TCon names never clash with types)."""
        mapping: dict[str, Type] = {v: TCon(v) for v in scheme_vars(scheme)}
        return subst(scheme.body, mapping), [Pred(p.cls, tuple(subst(a, mapping) for a in p.args))
                                             for p in scheme.context]

    # ---- patterns -----------------------------------------------------------------------------------
    def pat(self, p: S.Pat, binds: Scope) -> Type:
        self.tick()
        if isinstance(p, S.PVar):
            t = self.fresh()
            if p.name in binds:
                raise InferError(f"'{p.name}' is bound twice in one pattern", p.span)
            binds[p.name] = Poly((), (), t)
            self.emit("bind", f"{p.name} : {t.name}", p.span)
            given = self.param_type(p.name)
            if given is not None:
                self.unify(t, given, p.span, f"parameter {p.name} as the dependencies declare it")
            return t
        if isinstance(p, S.PWild):
            return self.fresh()
        if isinstance(p, S.PLit):
            return self.literal(p.kind, p.text, p.span, pattern=True)
        if isinstance(p, S.PAs):
            t = self.pat(p.pat, binds)
            binds[p.name] = Poly((), (), t)
            self.emit("bind", f"{p.name} : {self.show(t)}", p.span)
            return t
        if isinstance(p, S.PTuple):
            return tuple_of(*(self.pat(x, binds) for x in p.items))
        if isinstance(p, S.PList):
            elem = self.fresh()
            for x in p.items:
                self.unify(elem, self.pat(x, binds), x.span, "list pattern element")
            return list_of(elem)
        if isinstance(p, S.PCon):
            con_t = self.lookup(p.name, {}, p.span, constructor=True)
            arg_ts = [self.pat(x, binds) for x in p.args]
            result = self.fresh()
            self.unify(con_t, fn(*arg_ts, result), p.span, f"pattern {p.name}")
            return result
        raise InferError(f"unsupported pattern {type(p).__name__}")

    def param_type(self, name: str) -> Type | None:
        """TF-Bench fixes a parameter's type by a dependency signature of the same name (`x :: Natural`
        beside `abs x = id x`): a monomorphic signature from the dependencies annotates the parameter."""
        scheme = self.env.values.get(name)
        if scheme is None or self.env.origin.get(name) != "deps" or scheme.context or scheme_vars(scheme):
            return None
        return scheme.body

    def refutable(self, p: S.Pat) -> bool:
        if isinstance(p, (S.PVar, S.PWild)):
            return False
        if isinstance(p, S.PAs):
            return self.refutable(p.pat)
        if isinstance(p, S.PTuple):
            return any(self.refutable(x) for x in p.items)
        if isinstance(p, S.PCon):
            return self.env.con_siblings.get(p.name, 2) > 1 or any(self.refutable(x) for x in p.args)
        return True

    # ---- expressions --------------------------------------------------------------------------------
    def literal(self, kind: str, text: str, span: S.Span | None, pattern: bool = False) -> Type:
        if kind == "char":
            self.emit("lit", f"{text} : Char", span)
            return self.char
        if kind == "string":
            self.emit("lit", f"{text} : [Char]", span)
            return list_of(self.char)
        t = self.fresh()
        cls = "Num" if kind == "int" else "Fractional"
        preds = [Pred(cls, (t,))]
        if pattern:
            preds.insert(0, Pred("Eq", (t,)))
        for p in preds:
            self.preds.append((p, span))
        self.emit("lit", f"{text} : {t.name} with {', '.join(show_pred(p) for p in preds)}", span, preds=preds)
        return t

    def expr(self, e: S.Expr, scope: Scope) -> Type:
        self.tick()
        if isinstance(e, S.Var):
            return self.lookup(e.name, scope, e.span)
        if isinstance(e, S.Con):
            return self.lookup(e.name, scope, e.span, constructor=True)
        if isinstance(e, S.Lit):
            return self.literal(e.kind, e.text, e.span)
        if isinstance(e, S.App):
            tf = self.expr(e.fun, scope)
            ta = self.expr(e.arg, scope)
            pf = self.prune(tf)
            head, args = split_app(pf)
            if head == ARROW and len(args) == 2:
                self.unify(args[0], ta, e.span, "argument")
                return args[1]
            result = self.fresh()
            self.unify(tf, fn(ta, result), e.span, "application")
            return result
        if isinstance(e, S.Lam):
            binds: Scope = {}
            pts = [self.pat(p, binds) for p in e.pats]
            body = self.expr(e.body, {**scope, **binds})
            return fn(*pts, body)
        if isinstance(e, S.Let):
            inner = self.group(e.binds, scope)
            return self.expr(e.body, inner)
        if isinstance(e, S.If):
            self.unify(self.expr(e.cond, scope), self.bool, e.cond.span, "if condition")
            t = self.expr(e.then, scope)
            self.unify(t, self.expr(e.other, scope), e.other.span, "if branches")
            return t
        if isinstance(e, S.Case):
            ts = self.expr(e.scrutinee, scope)
            result = self.fresh()
            for alt in e.alts:
                binds = {}
                self.unify(ts, self.pat(alt.pat, binds), alt.pat.span, "case pattern")
                self.unify(result, self.rhs(alt.rhs, {**scope, **binds}), alt.span, "case alternative")
            return result
        if isinstance(e, S.TupleE):
            return tuple_of(*(self.expr(x, scope) for x in e.items))
        if isinstance(e, S.ListE):
            elem = self.fresh()
            for x in e.items:
                self.unify(elem, self.expr(x, scope), x.span, "list element")
            return list_of(elem)
        if isinstance(e, S.EnumFrom):
            t = self.fresh()
            self.preds.append((Pred("Enum", (t,)), e.span))
            self.emit("constraint", f"arithmetic sequence: Enum {t.name}", e.span, preds=[Pred("Enum", (t,))])
            for part in (e.start, e.then, e.end):
                if part is not None:
                    self.unify(t, self.expr(part, scope), part.span, "sequence bound")
            return list_of(t)
        if isinstance(e, S.LeftSection):
            top = self.expr(e.op, scope)
            tl = self.expr(e.left, scope)
            result = self.fresh()
            self.unify(top, fn(tl, result), e.span, "left section")
            return result
        if isinstance(e, S.RightSection):
            top = self.expr(e.op, scope)
            tr = self.expr(e.right, scope)
            a, r = self.fresh(), self.fresh()
            self.unify(top, fn(a, tr, r), e.span, "right section")
            return fn(a, r)
        if isinstance(e, S.Neg):
            t = self.expr(e.expr, scope)
            self.preds.append((Pred("Num", (t,)), e.span))
            self.emit("constraint", f"negation: Num {self.show(t)}", e.span, preds=[Pred("Num", (t,))])
            return t
        if isinstance(e, S.Annot):
            t = self.expr(e.expr, scope)
            body, ctx = self.skolemize(e.scheme)
            self.givens.extend(ctx)
            self.unify(t, body, e.span, "type annotation")
            return t
        if isinstance(e, S.ListComp):
            inner = dict(scope)
            for q in e.quals:
                inner = self.qual(q, inner, list_monad=True)
            return list_of(self.expr(e.expr, inner))
        if isinstance(e, S.Do):
            return self.do(e, scope)
        raise InferError(f"unsupported expression {type(e).__name__}")

    def qual(self, q: S.Qual, scope: Scope, list_monad: bool = False, monad: Type | None = None) -> Scope:
        if isinstance(q, S.QGuard):
            self.unify(self.expr(q.expr, scope), self.bool, q.span, "guard")
            return scope
        if isinstance(q, S.QLet):
            return self.group(q.binds, scope)
        te = self.expr(q.expr, scope)
        binds: Scope = {}
        tp = self.pat(q.pat, binds)
        if monad is not None:
            self.unify(te, TAp(monad, tp), q.span, "do binding")
        elif list_monad:
            self.unify(te, list_of(tp), q.span, "generator")
        else:
            self.unify(te, tp, q.span, "pattern guard")
        return {**scope, **binds}

    def do(self, e: S.Do, scope: Scope) -> Type:
        if not e.stmts or not isinstance(e.stmts[-1], S.QGuard):
            raise InferError("the last statement of a do block must be an expression", e.span)
        m = self.fresh()
        if len(e.stmts) > 1:
            self.preds.append((Pred("Monad", (m,)), e.span))
            self.emit("constraint", f"do block: Monad {m.name}", e.span, preds=[Pred("Monad", (m,))])
        inner = dict(scope)
        for stmt in e.stmts[:-1]:
            if isinstance(stmt, S.QGuard):
                self.unify(self.expr(stmt.expr, inner), TAp(m, self.fresh()), stmt.span, "do statement")
            else:
                inner = self.qual(stmt, inner, monad=m)
                if isinstance(stmt, S.QGen) and self.refutable(stmt.pat):
                    self.preds.append((Pred("MonadFail", (m,)), stmt.span))
                    self.emit("constraint", f"refutable pattern: MonadFail {m.name}", stmt.span)
        last = self.expr(e.stmts[-1].expr, inner)  # type: ignore[union-attr]
        result_arg = self.fresh()
        self.unify(last, TAp(m, result_arg), e.stmts[-1].span, "do result")
        return last

    def rhs(self, r: S.Rhs, scope: Scope) -> Type:
        inner = self.group(r.where, scope) if r.where else scope
        result = self.fresh()
        for g in r.alternatives:
            local = inner
            for q in g.guards:
                local = self.qual(q, local)
            self.unify(result, self.expr(g.expr, local), g.expr.span, "right-hand side")
        return result

    def match(self, m: S.Match, scope: Scope) -> Type:
        binds: Scope = {}
        pts = [self.pat(p, binds) for p in m.pats]
        return fn(*pts, self.rhs(m.rhs, {**scope, **binds}))

    # ---- binding groups -----------------------------------------------------------------------------
    def group(self, binds: list[S.Bind], scope: Scope) -> Scope:
        sigs: dict[str, Scheme] = {}
        for b in binds:
            if isinstance(b, S.SigBind):
                for n in b.names:
                    sigs[n] = self.env.expand_scheme(b.scheme)
        values = [b for b in binds if not isinstance(b, S.SigBind)]
        result = dict(scope)
        for name, sc in sigs.items():
            result[name] = Poly(tuple(scheme_vars(sc)), sc.context, sc.body)
        for scc in _sccs(values):
            result = self.scc(scc, result, sigs)
        return result

    def scc(self, binds: list[S.FunBind | S.PatBind], scope: Scope, sigs: dict[str, Scheme]) -> Scope:
        mark = len(self.preds)
        outer = dict(scope)
        mono: dict[str, Type] = {}
        inner = dict(scope)
        for b in binds:
            for name in _bound_names(b):
                if name not in sigs:
                    mono[name] = self.fresh()
                    inner[name] = Poly((), (), mono[name])
        pat_binds: dict[str, Type] = {}
        for b in binds:
            self.depth += 1
            try:
                if isinstance(b, S.FunBind):
                    self.emit("enter", f"binding {b.name}", b.name_span if b.name_span != S.NO_SPAN else b.span)
                    declared = sigs.get(b.name)
                    target = mono.get(b.name) if declared is None else None
                    if declared is not None:
                        target, given = self.skolemize(declared)
                        self.givens.extend(given)
                    arity = {len(m.pats) for m in b.matches}
                    if len(arity) > 1:
                        raise InferError(f"the equations of '{b.name}' have different numbers of arguments", b.span)
                    for m in b.matches:
                        self.unify(target, self.match(m, inner), m.span, f"equation of {b.name}")  # type: ignore[arg-type]
                else:
                    local: Scope = {}
                    tp = self.pat(b.pat, local)
                    self.unify(tp, self.rhs(b.rhs, inner), b.span, "pattern binding")
                    for name, poly in local.items():
                        pat_binds[name] = poly.body
                        if name in mono:
                            self.unify(mono[name], poly.body, b.span, f"binding {name}")
            finally:
                self.depth -= 1
        new_preds = self.preds[mark:]
        del self.preds[mark:]
        env_vars = self.free_in_scope(outer)
        types = {name: self.zonk(t) for name, t in mono.items()}
        type_vars: set[str] = set()
        for t in types.values():
            type_vars.update(tvars(t))
        reduced = self.reduce([(self.zonk_pred(p), sp) for p, sp in new_preds])
        deferred: list[tuple[Pred, S.Span | None]] = []
        retained: list[Pred] = []
        for p, sp in reduced:
            vs = set(_pred_vars(p))
            if vs and vs <= env_vars:
                deferred.append((p, sp))
            elif vs - env_vars - type_vars:
                # ambiguous: mentioned by neither the bound types nor the enclosing scope
                self.default(p, sp, reduced)
            elif not vs:
                continue
            else:
                retained.append(p)
        retained = [self.zonk_pred(p) for p in retained if not self.entailed_by_givens(self.zonk_pred(p))]
        retained = _dedupe([p for p in retained if _pred_vars(p)])
        if self.pure:
            retained = self.pure_classes(retained)
        self.preds.extend(deferred)
        result = dict(scope)
        for name, t in types.items():
            qvars = tuple(v for v in tvars(t) if v not in env_vars)
            ctx = tuple(p for p in retained if set(_pred_vars(p)) & set(qvars))
            result[name] = Poly(qvars, ctx, t)
            if self.record:
                ctx_text = ", ".join(show_pred(p) for p in ctx)
                self.emit("generalize", f"{name} :: {'(' + ctx_text + ') => ' if ctx else ''}{show(t)}"
                          + (f"  (generalised over {', '.join(qvars)})" if qvars else ""), None,
                          preds=list(ctx))
        return result

    def pure_classes(self, preds: list[Pred]) -> list[Pred]:
        """A pure task renames the classes too, but literals and `do` still bring Prelude classes (Num,
        Enum, Monad ...). A variable that also carries a class of the dependencies is taken to get those
        from it (the renamed class is their subclass or themselves); alone, they keep their names."""
        out = []
        for p in preds:
            vs = _pred_vars(p)
            from_deps = any(self.env.origin.get(q.cls) == "deps" and _pred_vars(q) == vs for q in preds)
            if self.env.origin.get(p.cls) == "base" and from_deps:
                self.emit("reduce", f"{show_pred(p)} taken from the dependencies' class on {', '.join(vs)}", None)
                continue
            out.append(p)
        return out

    def free_in_scope(self, scope: Scope) -> set[str]:
        out: set[str] = {"Bool?", "Char?"} if self.pure else set()
        for poly in scope.values():
            if poly.qvars and not tvars(poly.body):
                continue
            vs = tvars(self.zonk(poly.body))
            out.update(v for v in vs if v not in poly.qvars)
        return out

    # ---- constraints --------------------------------------------------------------------------------
    def by_super(self, p: Pred) -> list[Pred]:
        """p and every superclass constraint it implies."""
        out = [p]
        stack = [p]
        while stack:
            cur = stack.pop()
            info = self.env.classes.get(cur.cls)
            if info is None or len(info.params) != len(cur.args):
                continue
            mapping = dict(zip(info.params, cur.args, strict=True))
            for s in info.supers:
                q = Pred(s.cls, tuple(subst(a, mapping) for a in s.args))
                if q not in out:
                    out.append(q)
                    stack.append(q)
        return out

    def entailed_by_givens(self, p: Pred) -> bool:
        for g in self.givens:
            if p in self.by_super(self.zonk_pred(g)):
                return True
        return False

    def instance_for(self, p: Pred, assume: bool = True) -> list[Pred] | None:
        for inst in self.env.instances.get(p.cls, []):
            mapping: dict[str, Type] = {}
            if len(inst.head.args) == len(p.args) and all(
                    _match(h, a, mapping) for h, a in zip(inst.head.args, p.args, strict=True)):
                return [Pred(c.cls, tuple(subst(x, mapping) for x in c.args)) for c in inst.context]
        return self.assumed_instance(p) if assume else None

    def coercible(self, a: Type, b: Type) -> bool:
        """GHC's built-in Coercible, as the released tasks use it (`getSum #. foldMap' Sum`): equal types,
        or a newtype (a type whose only constructor has one field) and its field's type, either way."""
        a, b = self.zonk(a), self.zonk(b)
        if a == b:
            return True
        for wrapped, inner in ((a, b), (b, a)):
            head, args = split_app(wrapped)
            if not isinstance(head, TCon):
                continue
            for con, scheme in self.env.constructors.items():
                if self.env.con_siblings.get(con, 2) != 1 or not isinstance(scheme.body, TAp):
                    continue
                fun = scheme.body.fun
                if not (isinstance(fun, TAp) and fun.fun == ARROW):
                    continue
                field_t, result = scheme.body.fun.arg, scheme.body.arg
                r_head, r_args = split_app(result)
                if r_head != head or len(r_args) != len(args) or not all(isinstance(v, TVar) for v in r_args):
                    continue
                mapping = {v.name: x for v, x in zip(r_args, args, strict=True) if isinstance(v, TVar)}
                if subst(field_t, mapping) == inner:
                    return True
        return False

    def assumed_instance(self, p: Pred) -> list[Pred] | None:
        """No instance is declared, and the class or the type is not one of base's (a pure task's T1,
        a type the dependencies only name): the task compiles, so assume the instance a `deriving`
        clause would give — the class on each argument of a fully applied constructor, nothing for a
        partially applied one."""
        if len(p.args) != 1:
            return None
        head, args = split_app(p.args[0])
        if not isinstance(head, TCon):
            return None
        builtin_arity = {"[]": 1, "->": 2, "()": 0}
        from core.families.typeinf.types import is_tuple_con

        if is_tuple_con(head.name):
            builtin_arity[head.name] = len(head.name) - 1
        class_known = self.env.origin.get(p.cls) == "base"
        type_known = head.name in builtin_arity or self.env.origin.get(head.name) == "base"
        if class_known and type_known:
            return None
        arity = builtin_arity.get(head.name, self.env.types.get(head.name))
        context = [Pred(p.cls, (a,)) for a in args] if arity is not None and arity == len(args) else []
        self.emit("reduce", f"assumed instance {show_pred(p)} (not declared; the task compiles)", None,
                  preds=context)
        return context

    def hnf(self, p: Pred, span: S.Span | None, depth: int = 0) -> list[Pred]:
        self.tick()
        if depth > 40:
            raise InferError(f"instance resolution for {show_pred(p)} does not terminate", span)
        if all(_head_is_var(a) for a in p.args):
            return [p]
        if self.entailed_by_givens(p):
            return []
        if p.cls == "Coercible" and len(p.args) == 2 and self.coercible(*p.args):
            return []
        ctx = self.instance_for(p)
        if ctx is None:
            raise InferError(f"no instance for ({show_pred(p)})", span)
        out: list[Pred] = []
        for q in ctx:
            out.extend(self.hnf(q, span, depth + 1))
        if self.record:
            note = ", ".join(show_pred(q) for q in out) or "nothing"
            self.emit("reduce", f"instance: {show_pred(p)} reduces to {note}", span, preds=out)
        return out

    def reduce(self, preds: list[tuple[Pred, S.Span | None]]) -> list[tuple[Pred, S.Span | None]]:
        flat: list[tuple[Pred, S.Span | None]] = []
        for p, sp in preds:
            for q in self.hnf(self.zonk_pred(p), sp):
                if all(q != f for f, _ in flat):
                    flat.append((q, sp))
        out: list[tuple[Pred, S.Span | None]] = []
        for i, (p, sp) in enumerate(flat):
            implied = any(j != i and p in self.by_super(q)[1:] for j, (q, _) in enumerate(flat))
            if implied:
                if self.record:
                    self.emit("reduce", f"{show_pred(p)} is implied by a superclass", sp)
                continue
            out.append((p, sp))
        return out

    def default(self, p: Pred, span: S.Span | None, all_preds: list[tuple[Pred, S.Span | None]]) -> None:
        """Haskell's defaulting rule for an ambiguous variable: numeric + standard classes only."""
        var = next((v for v in _pred_vars(p) if v not in self.sub), None)
        if var is None:
            return
        on_var = [q for q, _ in all_preds if _pred_vars(q) == [var]]
        classes = {q.cls for q in on_var}
        simple = all(len(q.args) == 1 and isinstance(q.args[0], TVar) for q in on_var)
        if not simple or not classes & NUMERIC_CLASSES or not classes <= STANDARD_CLASSES:
            raise InferError(f"ambiguous type variable {var} in ({show_pred(p)}); it cannot be defaulted", span)
        for candidate in ("Integer", "Double"):
            if all(self.instance_for(Pred(c, (TCon(candidate),)), assume=False) is not None for c in classes):
                self.sub[var] = TCon(candidate)
                self.defaulted.append((var, candidate))
                self.emit("default", f"defaulting {var} := {candidate} (ambiguous: {', '.join(sorted(classes))})",
                          span, bindings=[(var, TCon(candidate))])
                return
        raise InferError(f"ambiguous type variable {var}: no default satisfies {', '.join(sorted(classes))}", span)


def _match(pattern: Type, target: Type, mapping: dict[str, Type]) -> bool:
    if isinstance(pattern, TVar):
        if pattern.name in mapping:
            return mapping[pattern.name] == target
        mapping[pattern.name] = target
        return True
    if isinstance(pattern, TCon):
        return isinstance(target, TCon) and target.name == pattern.name
    if isinstance(pattern, TAp):
        return isinstance(target, TAp) and _match(pattern.fun, target.fun, mapping) and _match(
            pattern.arg, target.arg, mapping)
    return False


def _head_is_var(t: Type) -> bool:
    head, _ = split_app(t)
    return isinstance(head, TVar)


def _pred_vars(p: Pred) -> list[str]:
    out: list[str] = []
    for a in p.args:
        tvars(a, out)
    return out


def _dedupe(preds: list[Pred]) -> list[Pred]:
    out: list[Pred] = []
    for p in preds:
        if p not in out:
            out.append(p)
    return out


def _bound_names(b: S.FunBind | S.PatBind) -> list[str]:
    if isinstance(b, S.FunBind):
        return [b.name]
    out: list[str] = []
    stack: list[S.Pat] = [b.pat]
    while stack:
        p = stack.pop()
        if isinstance(p, S.PVar):
            out.append(p.name)
        elif isinstance(p, S.PAs):
            out.append(p.name)
            stack.append(p.pat)
        elif isinstance(p, (S.PTuple, S.PList)):
            stack.extend(p.items)
        elif isinstance(p, S.PCon):
            stack.extend(p.args)
    return out


def free_vars(node: object, bound: frozenset[str] = frozenset()) -> set[str]:
    """Variable names a binding refers to (for dependency analysis; over-approximates shadowing)."""
    out: set[str] = set()
    stack: list[object] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, S.Var):
            out.add(cur.name)
        elif isinstance(cur, list):
            stack.extend(cur)
        elif hasattr(cur, "__dataclass_fields__") and not isinstance(cur, (S.Con, S.Lit)):
            for name in cur.__dataclass_fields__:  # type: ignore[attr-defined]
                value = getattr(cur, name)
                if isinstance(value, (list,)) or hasattr(value, "__dataclass_fields__"):
                    stack.append(value)
    return out - set(bound)


def _sccs(binds: list[S.FunBind | S.PatBind]) -> list[list[S.FunBind | S.PatBind]]:
    """Strongly connected components in dependency order (Tarjan), keeping source order otherwise."""
    names: dict[str, int] = {}
    for i, b in enumerate(binds):
        for n in _bound_names(b):
            names[n] = i
    edges = [sorted({names[v] for v in free_vars(b.matches if isinstance(b, S.FunBind) else b.rhs) if v in names})
             for b in binds]
    index = 0
    indices: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on: set[int] = set()
    out: list[list[int]] = []

    def visit(v: int) -> None:
        nonlocal index
        indices[v] = low[v] = index
        index += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in indices:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], indices[w])
        if low[v] == indices[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in range(len(binds)):
        if v not in indices:
            visit(v)
    return [[binds[i] for i in comp] for comp in out]


# ---- entry points ---------------------------------------------------------------------------------
def find_binding(decls: list[S.Decl], name: str | None) -> tuple[list[S.FunBind | S.PatBind], str]:
    binds = [d for d in decls if isinstance(d, (S.FunBind, S.PatBind))]
    if not binds:
        raise InferError("the code defines no function")
    if name is None:
        first = binds[0]
        name = first.name if isinstance(first, S.FunBind) else (_bound_names(first) or ["?"])[0]
    if not any(name in _bound_names(b) for b in binds):
        raise InferError(f"the code does not define '{name}'")
    return binds, name


def infer_code(code: str, env: Env, name: str | None = None, expected: Scheme | None = None,
               record: bool = False, max_steps: int = DEFAULT_STEPS, pure: bool = False,
               decls: list[S.Decl] | None = None) -> InferResult:
    """The principal type of `name` (default: the first binding) in `code`, or the error that stops it.

    With `expected` (an answer's scheme) the binding is checked against it instead: its variables
    become rigid constants and its constraints are given, so the first step that disagrees fails.
    `decls`: `code` already parsed under `env.fixities` (the generator parses each candidate first to
    judge it; parsing again was ~13% of generating a task).
    """
    inf = Inferencer(env, max_steps=max_steps, record=record, pure=pure)
    try:
        try:
            if decls is None:
                decls = parse_code(code, env.fixities)
        except HsParseError as exc:
            raise InferError(str(exc)) from None
        binds, name = find_binding(decls, name)
        sigs: dict[str, Scheme] = {}
        for d in decls:
            if isinstance(d, S.SigDecl):
                for n in d.names:
                    sigs[n] = env.expand_scheme(d.scheme)
        if expected is not None:
            sigs[name] = env.expand_scheme(expected)
            body, given = inf.skolemize(sigs[name])
            inf.emit("assume", f"check the answer: {name} :: {show(body)}"
                     + (f" given {', '.join(show_pred(p) for p in given)}" if given else ""), None)
        scope: Scope = {}
        for n, sc in sigs.items():
            scope[n] = Poly(tuple(scheme_vars(sc)), sc.context, sc.body)
        scope = inf.group(binds, scope) if expected is None else inf.group(
            [*binds, S.SigBind([name], sigs[name])], {})
        poly = scope[name]
        if pure:  # syntax's Bool/Char never met a named type: they are the Prelude's
            for alias, real in (("Bool?", BOOL), ("Char?", CHAR)):
                if not isinstance(inf.prune(TVar(alias)), TCon):
                    inf.sub.setdefault(alias, real)
        leftover = inf.reduce([(inf.zonk_pred(p), sp) for p, sp in inf.preds])
        if leftover:
            p, sp = leftover[0]
            raise InferError(f"constraint ({show_pred(p)}) is not satisfied", sp)
        body = inf.zonk(poly.body)
        scheme = Scheme(tuple(inf.zonk_pred(p) for p in poly.context), body)
        if expected is not None:
            scheme = sigs[name]
        inf.emit("result", f"{name} :: {show_scheme_pretty(scheme)}", None, preds=list(scheme.context))
        return InferResult(scheme, inf.events, None, inf.steps, inf.defaulted)
    except InferError as exc:
        if not isinstance(exc, BudgetExceeded) and (not inf.events or inf.events[-1].kind != "fail"):
            inf.emit("fail", exc.message, exc.span, ok=False)
        return InferResult(None, inf.events, exc, inf.steps, inf.defaulted)
    except RecursionError:
        err = InferError("the code nests too deeply")
        return InferResult(None, inf.events, err, inf.steps, inf.defaulted)


def rename_scheme(scheme: Scheme, style: str = "letters") -> Scheme:
    """Variables renamed in order of appearance: a, b, c, ... (or t1, t2, ... for the pure variant)."""
    names = scheme_vars(scheme)
    if style == "letters":
        pool = [chr(c) for c in range(ord("a"), ord("z") + 1)]
        fresh = pool + [f"a{i}" for i in range(1, 100)]
    else:
        fresh = [f"t{i}" for i in range(1, 200)]
    mapping: dict[str, Type] = {v: TVar(fresh[i]) for i, v in enumerate(names)}
    ctx = tuple(Pred(p.cls, tuple(subst(a, mapping) for a in p.args)) for p in scheme.context)
    return Scheme(ctx, subst(scheme.body, mapping))


def show_scheme_pretty(scheme: Scheme) -> str:
    from core.families.typeinf.types import show_scheme

    return show_scheme(scheme)


__all__ = ["InferError", "InferResult", "Event", "infer_code", "rename_scheme", "UNIT"]
