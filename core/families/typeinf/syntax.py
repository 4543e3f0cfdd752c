"""The Haskell subset the inference understands, as plain data with source spans.

Expressions, patterns, bindings and declarations as produced by `hsparse` from tree-sitter-haskell's
tree. Infix chains are already resolved by fixity; sections, `if`, `case`, `let`/`where`, guards, list
comprehensions, arithmetic sequences and `do` are kept as their own nodes so the derivation can show
them as written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.families.typeinf.types import Pred, Scheme, Type

Span = tuple[int, int, int, int]  # start row, start col, end row, end col (0-based, end exclusive)
NO_SPAN: Span = (0, 0, 0, 0)


# ---- patterns ----------------------------------------------------------------------------------
@dataclass
class PVar:
    name: str
    span: Span = NO_SPAN


@dataclass
class PWild:
    span: Span = NO_SPAN


@dataclass
class PLit:
    kind: str  # int, frac, char, string
    text: str
    span: Span = NO_SPAN


@dataclass
class PCon:
    name: str
    args: list[Pat]
    span: Span = NO_SPAN


@dataclass
class PTuple:
    items: list[Pat]
    span: Span = NO_SPAN


@dataclass
class PList:
    items: list[Pat]
    span: Span = NO_SPAN


@dataclass
class PAs:
    name: str
    pat: Pat
    span: Span = NO_SPAN


Pat = PVar | PWild | PLit | PCon | PTuple | PList | PAs


# ---- expressions -------------------------------------------------------------------------------
@dataclass
class Var:
    name: str
    span: Span = NO_SPAN


@dataclass
class Con:
    name: str
    span: Span = NO_SPAN


@dataclass
class Lit:
    kind: str  # int, frac, char, string
    text: str
    span: Span = NO_SPAN


@dataclass
class App:
    fun: Expr
    arg: Expr
    span: Span = NO_SPAN


@dataclass
class Lam:
    pats: list[Pat]
    body: Expr
    span: Span = NO_SPAN


@dataclass
class Let:
    binds: list[Bind]
    body: Expr
    span: Span = NO_SPAN


@dataclass
class If:
    cond: Expr
    then: Expr
    other: Expr
    span: Span = NO_SPAN


@dataclass
class Alt:
    pat: Pat
    rhs: Rhs
    span: Span = NO_SPAN


@dataclass
class Case:
    scrutinee: Expr
    alts: list[Alt]
    span: Span = NO_SPAN


@dataclass
class TupleE:
    items: list[Expr]
    span: Span = NO_SPAN


@dataclass
class ListE:
    items: list[Expr]
    span: Span = NO_SPAN


@dataclass
class EnumFrom:
    start: Expr
    then: Expr | None
    end: Expr | None
    span: Span = NO_SPAN


@dataclass
class LeftSection:
    """`(e op)` = `(op) e`."""

    op: Expr
    left: Expr
    span: Span = NO_SPAN


@dataclass
class RightSection:
    """`(op e)` = `\\x -> x op e`."""

    op: Expr
    right: Expr
    span: Span = NO_SPAN


@dataclass
class Neg:
    expr: Expr
    span: Span = NO_SPAN


@dataclass
class Annot:
    expr: Expr
    scheme: Scheme
    span: Span = NO_SPAN


@dataclass
class QGen:
    pat: Pat
    expr: Expr
    span: Span = NO_SPAN


@dataclass
class QLet:
    binds: list[Bind]
    span: Span = NO_SPAN


@dataclass
class QGuard:
    expr: Expr
    span: Span = NO_SPAN


Qual = QGen | QLet | QGuard


@dataclass
class ListComp:
    expr: Expr
    quals: list[Qual]
    span: Span = NO_SPAN


@dataclass
class Do:
    stmts: list[Qual]  # QGen = `p <- e`, QLet, QGuard = an expression statement
    span: Span = NO_SPAN


Expr = Var | Con | Lit | App | Lam | Let | If | Case | TupleE | ListE | EnumFrom | LeftSection | RightSection | Neg \
    | Annot | ListComp | Do


# ---- bindings ----------------------------------------------------------------------------------
@dataclass
class Guarded:
    guards: list[Qual]
    expr: Expr
    span: Span = NO_SPAN


@dataclass
class Rhs:
    """`= e` (one unguarded alternative) or `| g1 = e1 | g2 = e2`, with its `where` bindings."""

    alternatives: list[Guarded]
    where: list[Bind] = field(default_factory=list)
    span: Span = NO_SPAN


@dataclass
class Match:
    pats: list[Pat]
    rhs: Rhs
    span: Span = NO_SPAN


@dataclass
class FunBind:
    name: str
    matches: list[Match]
    span: Span = NO_SPAN
    name_span: Span = NO_SPAN


@dataclass
class PatBind:
    pat: Pat
    rhs: Rhs
    span: Span = NO_SPAN


@dataclass
class SigBind:
    """A type signature inside a `let`/`where` group."""

    names: list[str]
    scheme: Scheme
    span: Span = NO_SPAN


Bind = FunBind | PatBind | SigBind


# ---- declarations (dependencies and the base environment) ----------------------------------------
@dataclass
class ConDecl:
    name: str
    fields: list[Type]
    field_names: list[str | None] = field(default_factory=list)


@dataclass
class DataDecl:
    name: str
    params: list[str]
    constructors: list[ConDecl]
    deriving: list[str] = field(default_factory=list)
    newtype: bool = False


@dataclass
class SynDecl:
    name: str
    params: list[str]
    body: Type


@dataclass
class SigDecl:
    names: list[str]
    scheme: Scheme
    explicit_forall: bool = False


@dataclass
class ConSigDecl:
    """`T2 :: a -> T1 a` — a constructor's type given as a signature (the released pure tasks do this)."""

    names: list[str]
    scheme: Scheme


@dataclass
class ClassDecl:
    name: str
    params: list[str]
    supers: list[Pred]
    methods: list[SigDecl]


@dataclass
class InstanceDecl:
    context: list[Pred]
    head: Pred


@dataclass
class FixityDecl:
    assoc: str  # infixl, infixr, infix
    prec: int
    ops: list[str]


Decl = DataDecl | SynDecl | SigDecl | ConSigDecl | ClassDecl | InstanceDecl | FixityDecl | FunBind | PatBind
