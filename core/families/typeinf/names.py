"""Which names a piece of code uses, in order of appearance, respecting local scopes.

Dependency solving (the corpus builder lists the signature of every free function and the declaration
of every constructor's type) and the pure-variant rewrite both need this.
"""

from __future__ import annotations

from core.families.typeinf import syntax as S


def pattern_vars(p: S.Pat) -> list[str]:
    out: list[str] = []
    stack: list[S.Pat] = [p]
    while stack:
        cur = stack.pop()
        if isinstance(cur, S.PVar):
            out.append(cur.name)
        elif isinstance(cur, S.PAs):
            out.append(cur.name)
            stack.append(cur.pat)
        elif isinstance(cur, (S.PTuple, S.PList)):
            stack.extend(reversed(cur.items))
        elif isinstance(cur, S.PCon):
            stack.extend(reversed(cur.args))
    return out


def pattern_cons(p: S.Pat, out: list[str]) -> None:
    if isinstance(p, S.PCon):
        if p.name not in out:
            out.append(p.name)
        for a in p.args:
            pattern_cons(a, out)
    elif isinstance(p, S.PAs):
        pattern_cons(p.pat, out)
    elif isinstance(p, (S.PTuple, S.PList)):
        for a in p.items:
            pattern_cons(a, out)


class _Walker:
    def __init__(self) -> None:
        self.vars: list[str] = []
        self.cons: list[str] = []

    def var(self, name: str, bound: frozenset[str]) -> None:
        if name not in bound and name not in self.vars:
            self.vars.append(name)

    def con(self, name: str) -> None:
        if name not in self.cons:
            self.cons.append(name)

    def pat(self, p: S.Pat) -> None:
        pattern_cons(p, self.cons)

    def binds(self, binds: list[S.Bind], bound: frozenset[str]) -> frozenset[str]:
        names = set(bound)
        for b in binds:
            if isinstance(b, S.FunBind):
                names.add(b.name)
            elif isinstance(b, S.PatBind):
                names.update(pattern_vars(b.pat))
        inner = frozenset(names)
        for b in binds:
            if isinstance(b, S.FunBind):
                for m in b.matches:
                    self.match(m, inner)
            elif isinstance(b, S.PatBind):
                self.pat(b.pat)
                self.rhs(b.rhs, inner)
        return inner

    def match(self, m: S.Match, bound: frozenset[str]) -> None:
        inner = set(bound)
        for p in m.pats:
            self.pat(p)
            inner.update(pattern_vars(p))
        self.rhs(m.rhs, frozenset(inner))

    def rhs(self, r: S.Rhs, bound: frozenset[str]) -> None:
        inner = self.binds(r.where, bound) if r.where else bound
        for g in r.alternatives:
            local = inner
            for q in g.guards:
                local = self.qual(q, local)
            self.expr(g.expr, local)

    def qual(self, q: S.Qual, bound: frozenset[str]) -> frozenset[str]:
        if isinstance(q, S.QGuard):
            self.expr(q.expr, bound)
            return bound
        if isinstance(q, S.QLet):
            return self.binds(q.binds, bound)
        self.expr(q.expr, bound)
        self.pat(q.pat)
        return bound | frozenset(pattern_vars(q.pat))

    def expr(self, e: S.Expr, bound: frozenset[str]) -> None:
        if isinstance(e, S.Var):
            self.var(e.name, bound)
        elif isinstance(e, S.Con):
            self.con(e.name)
        elif isinstance(e, S.Lit):
            return
        elif isinstance(e, S.App):
            # operators applied infix were built as App(App(op, l), r): visit in source order
            if isinstance(e.fun, S.App) and _starts_after(e.fun.fun, e.fun.arg):
                self.expr(e.fun.arg, bound)
                self.expr(e.fun.fun, bound)
            else:
                self.expr(e.fun, bound)
            self.expr(e.arg, bound)
        elif isinstance(e, S.Lam):
            inner = set(bound)
            for p in e.pats:
                self.pat(p)
                inner.update(pattern_vars(p))
            self.expr(e.body, frozenset(inner))
        elif isinstance(e, S.Let):
            self.expr(e.body, self.binds(e.binds, bound))
        elif isinstance(e, S.If):
            for x in (e.cond, e.then, e.other):
                self.expr(x, bound)
        elif isinstance(e, S.Case):
            self.expr(e.scrutinee, bound)
            for alt in e.alts:
                self.pat(alt.pat)
                self.rhs(alt.rhs, bound | frozenset(pattern_vars(alt.pat)))
        elif isinstance(e, (S.TupleE, S.ListE)):
            for x in e.items:
                self.expr(x, bound)
        elif isinstance(e, S.EnumFrom):
            for x in (e.start, e.then, e.end):
                if x is not None:
                    self.expr(x, bound)
        elif isinstance(e, S.LeftSection):
            self.expr(e.left, bound)
            self.expr(e.op, bound)
        elif isinstance(e, S.RightSection):
            self.expr(e.op, bound)
            self.expr(e.right, bound)
        elif isinstance(e, (S.Neg, S.Annot)):
            self.expr(e.expr, bound)
        elif isinstance(e, S.ListComp):
            inner = bound
            for q in e.quals:
                inner = self.qual(q, inner)
            self.expr(e.expr, inner)
        elif isinstance(e, S.Do):
            inner = bound
            for q in e.stmts:
                inner = self.qual(q, inner)


def _starts_after(a: S.Expr, b: S.Expr) -> bool:
    return (a.span[0], a.span[1]) > (b.span[0], b.span[1])


def free_names(decls: list[S.Decl]) -> tuple[list[str], list[str]]:
    """(free variables, constructors) of the bindings in `decls`, in order of appearance; the
    bindings' own names are not free."""
    w = _Walker()
    binds = [d for d in decls if isinstance(d, (S.FunBind, S.PatBind))]
    w.binds(binds, frozenset())  # type: ignore[arg-type]
    return w.vars, w.cons
