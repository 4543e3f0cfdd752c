"""tree-sitter-haskell's tree turned into `types` and `syntax` data.

Everything Haskell that the family reads goes through here: answers' signatures, dependency
declarations, the task's code and the base environment. Unsupported or malformed input raises
`HsParseError` with a one-line message (callers turn it into an extraction result or a UserError).
Infix chains come out of tree-sitter right-nested without fixities; they are re-associated here with
the fixities in scope (Prelude's plus any `infixl/infixr/infix` declarations).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from core.families.typeinf import syntax as S
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
    tuple_con,
    tuple_of,
    tvars,
)

Node = Any  # tree_sitter.Node (imported lazily)
Fixities = dict[str, tuple[str, int]]  # operator -> (infixl|infixr|infix, precedence)


class HsParseError(ValueError):
    """Input that is not Haskell this family understands (message: one line)."""


@functools.cache
def _parser() -> Any:
    import tree_sitter_haskell
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_haskell.language()))


# tree-sitter's time grows with the square of bracket nesting (2,000 levels: 2.4 s): text nesting deeper
# than this is refused before it is parsed. Real code and types nest under 10 levels.
MAX_NESTING = 256
# A type with more tokens is refused (answers, ground truths, dependency signatures): the checker recurses
# along a type's arrow spine, and the longest real signature has under 60 tokens.
MAX_TYPE_TOKENS = 300
_TYPE_TOKEN = re.compile(r"[\w']+|->|=>|::|\S")
# The first MAX_TYPE_TOKENS tokens of a type text, matched by the regex engine itself, each token atomic
# (no backtracking could split `->` or a word into more tokens) and with the whitespace before it read
# possessively (a run of spaces is consumed once, not tried position by position). A per-token loop in
# Python was most of the fixed cost of checking an over-long answer.
_FIRST_TOKENS = re.compile(rf"(?:\s*+(?>[\w']+|->|=>|::|\S)){{0,{MAX_TYPE_TOKENS}}}")
_NON_SPACE = re.compile(r"\S")


def first_tokens_end(text: str) -> int:
    """Where the first MAX_TYPE_TOKENS tokens of `text` end (all of it, trailing spaces aside, if fewer)."""
    return _FIRST_TOKENS.match(text).end()  # type: ignore[union-attr]  # {0,…}: always matches


def too_many_tokens(text: str, head: int | None = None) -> bool:
    """More than MAX_TYPE_TOKENS tokens: a non-space character after the first ones (each starts a token)."""
    return _NON_SPACE.search(text, first_tokens_end(text) if head is None else head) is not None


_BRACKETS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[()\[\]{}]')


def nesting_depth(text: str, stop: int = MAX_NESTING) -> int:
    """The deepest bracket nesting in `text` (string literals skipped), up to `stop` + 1. Linear."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(text):
        ch = m.group()
        if ch in "([{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop:
                    break
        elif ch in ")]}":
            depth = max(0, depth - 1)
    return deepest


def parse_tree(text: str) -> Node:
    if nesting_depth(text) > MAX_NESTING:
        raise HsParseError(f"the text nests brackets more than {MAX_NESTING} deep")
    return _parser().parse(text.encode("utf-8")).root_node


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")


def _span(node: Node) -> S.Span:
    (r1, c1), (r2, c2) = node.start_point, node.end_point
    return (r1, c1, r2, c2)


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type not in ("comment", "haddock", "pragma")]


def _first_error(node: Node) -> Node | None:
    if node.type == "ERROR" or node.is_missing:
        return node
    if not node.has_error:
        return None
    for child in node.children:
        found = _first_error(child)
        if found is not None:
            return found
    return node


def _check(root: Node, what: str) -> None:
    bad = _first_error(root)
    if bad is not None:
        row, col = bad.start_point
        snippet = _text(bad).strip().splitlines()[0][:40] if _text(bad).strip() else "end of input"
        raise HsParseError(f"{what} does not parse as Haskell (line {row + 1}, column {col + 1}: {snippet!r})")


# ---- types -------------------------------------------------------------------------------------
def _op_name(node: Node) -> str:
    """The bare name of a variable, constructor, operator or `(op)`/`` `f` `` node."""
    if node.type in ("prefix_id", "infix_id", "parens"):
        inner = _named(node)
        if inner:
            return _op_name(inner[0])
    return _text(node).strip()


def convert_type(node: Node) -> Type:
    t = node.type
    if t == "variable":
        return TVar(_text(node))
    if t in ("name", "qualified", "constructor"):
        return TCon(_text(node))
    if t == "apply":
        f = node.child_by_field_name("constructor") or _named(node)[0]
        a = node.child_by_field_name("argument") or _named(node)[-1]
        return TAp(convert_type(f), convert_type(a))
    if t == "function":
        return fn(convert_type(node.child_by_field_name("parameter")), convert_type(node.child_by_field_name("result")))
    if t == "list":
        items = _named(node)
        if len(items) != 1:
            raise HsParseError(f"a list type has one element type, not {len(items)}: {_text(node)!r}")
        return list_of(convert_type(items[0]))
    if t == "tuple":
        return tuple_of(*(convert_type(c) for c in _named(node)))
    if t in ("parens", "strict_field", "lazy_field", "field"):
        inner = _named(node)
        if len(inner) != 1:
            raise HsParseError(f"unexpected type {_text(node)!r}")
        return convert_type(inner[0])
    if t == "unit":
        return UNIT
    if t == "prefix_tuple":
        return tuple_con(_text(node).count(",") + 1)
    if t == "prefix_list":
        return LIST
    if t == "prefix_id":
        name = _op_name(node)
        return ARROW if name == "->" else TCon(name)
    if t in ("forall", "context"):
        names, ctx, body = _peel(node)
        return TForall(tuple(names), tuple(ctx), body)
    raise HsParseError(f"unsupported type syntax ({t}): {_text(node)[:40]!r}")


def convert_preds(node: Node, bare: bool = False) -> list[Pred]:
    """A context's constraints. With `bare`, a class name alone (`Integral => a -> Integer`, as several
    released TF-Bench dependencies and pure signatures are written) is kept with no argument, for the
    caller to apply to the type's variable."""
    t = node.type
    if t == "tuple":
        out: list[Pred] = []
        for c in _named(node):
            out.extend(convert_preds(c, bare))
        return out
    if t == "parens":
        inner = _named(node)
        return convert_preds(inner[0], bare) if inner else []
    if t == "unit":
        return []
    head = convert_type(node)
    args: list[Type] = []
    while isinstance(head, TAp):
        args.append(head.arg)
        head = head.fun
    if isinstance(head, TCon) and not args and bare:
        return [Pred(head.name, ())]
    if not isinstance(head, TCon) or not args:
        raise HsParseError(f"a constraint looks like 'Class type': {_text(node)!r}")
    return [Pred(head.name, tuple(reversed(args)))]


def _forall_names(node: Node) -> list[str]:
    names: list[str] = []
    for c in _named(node):
        if c.type == "quantified_variables":
            for v in _named(c):
                if v.type == "variable":
                    names.append(_text(v))
                elif v.type in ("annotated", "parens"):
                    inner = [x for x in _named(v) if x.type == "variable"]
                    if inner:
                        names.append(_text(inner[0]))
        elif c.type == "variable" and c != node.child_by_field_name("type"):
            names.append(_text(c))
    return names


def _peel(node: Node) -> tuple[list[str], list[Pred], Type]:
    """Leading `forall a b.` and `C a =>` layers (in any order, curried contexts merged)."""
    names: list[str] = []
    ctx: list[Pred] = []
    while node.type in ("forall", "context"):
        if node.type == "forall":
            names.extend(_forall_names(node))
            node = node.child_by_field_name("type")
        else:
            ctx.extend(convert_preds(node.child_by_field_name("context"), bare=True))
            node = node.child_by_field_name("type")
        if node is None:
            raise HsParseError("a quantifier or context without a type after it")
    body = convert_type(node)
    if any(not p.args for p in ctx):
        # `C => t`: the class applies to t's variable (the released files' slip for `C a => t`); with no
        # variable or several it is not a type we can read
        variables = tvars(body)
        if len(variables) != 1:
            raise HsParseError("a constraint without a type variable ('C =>') on a type with "
                               f"{len(variables)} variables")
        ctx = [p if p.args else Pred(p.cls, (TVar(variables[0]),)) for p in ctx]
    return names, ctx, body


class ParsedType:
    """A signature's type: the scheme, and the variables an explicit `forall` named (if any)."""

    def __init__(self, scheme: Scheme, forall: list[str] | None) -> None:
        self.scheme = scheme
        self.forall = forall


@functools.lru_cache(maxsize=1024)
def bare_classes(text: str) -> tuple[str, ...]:
    """The classes a type's context names without an argument (`Integral => a -> Integer`, `(Eq a, Show)
    => …`): the parse reads them as applied to the type's one variable, which a released file may mean
    but an answer may not say (GHC would not read it). Only the tree is read: any type text, bounded."""
    if not text.strip() or too_many_tokens(text) or "=>" not in text:
        return ()
    root = parse_tree("x__ :: " + " ".join(text.split()))
    decls = _named(_named(root)[0]) if _named(root) else []
    if len(decls) != 1 or decls[0].type != "signature" or decls[0].child_by_field_name("type") is None:
        return ()
    return tuple(_bare_classes(decls[0].child_by_field_name("type")))


def _bare_classes(node: Node) -> list[str]:
    """The classes written alone in the leading contexts of a type node (`C =>`, `(Eq a, C) =>`)."""
    out: list[str] = []
    while node is not None and node.type in ("forall", "context"):
        if node.type == "context":
            items = [node.child_by_field_name("context")]
            while items:
                item = items.pop()
                if item is None:
                    continue
                if item.type in ("tuple", "parens"):
                    items.extend(_named(item))
                elif item.type in ("name", "qualified", "constructor"):
                    out.append(_text(item))
        node = node.child_by_field_name("type")
    return out


def _type_node_of_signature(sig: Node) -> Node:
    node = sig.child_by_field_name("type")
    if node is None:
        raise HsParseError("a signature without a type")
    return node


def parse_type(text: str) -> ParsedType:
    """A type with optional `forall` and context (`(Eq a, Show b) => a -> b`). Memoised: verdicts parse
    the same ground truth for every answer."""
    return _parse_type_cached(text)


@functools.lru_cache(maxsize=8192)
def _parse_type_cached(text: str) -> ParsedType:
    if not text.strip():
        raise HsParseError("empty type")
    if too_many_tokens(text):
        raise HsParseError(f"the type has more than {MAX_TYPE_TOKENS} tokens")
    if "\n" in text.strip():
        text = " ".join(text.split())
    src = f"x__ :: {text}"
    root = parse_tree(src)
    _check(root, "the type")
    decls = _named(_named(root)[0]) if _named(root) else []
    if len(decls) != 1 or decls[0].type != "signature":
        raise HsParseError(f"not a single type: {text.strip()[:60]!r}")
    node = _type_node_of_signature(decls[0])
    had_forall = node.type == "forall" or (node.type == "context" and False)
    names, ctx, body = _peel(node)
    return ParsedType(Scheme(tuple(ctx), body), names if (names or had_forall) else None)


_SIG_HEAD = re.compile(r"^\s*(\((?:[^()]|\(\))+\)|[A-Za-z_][\w']*(?:\s*,\s*[A-Za-z_][\w']*)*)\s*::(?!:)")


def split_signature(text: str) -> tuple[str | None, str]:
    """`name :: type` -> (name, type text); text without a `name ::` hook -> (None, text)."""
    m = _SIG_HEAD.match(text)
    if not m:
        return None, text
    name = m.group(1).strip()
    if name.startswith("(") and name.endswith(")"):
        name = name[1:-1].strip()
    return name, text[m.end():]


# ---- declarations ------------------------------------------------------------------------------
_CON_SIG = re.compile(r"^\s*([A-Z][\w']*|\(:[^)]*\))\s*::(?!:)(.*)$", re.S)


def parse_decls(text: str, fixities: Fixities | None = None, what: str = "the declarations") -> list[S.Decl]:
    """Top-level declarations (signatures, data/newtype/type/class/instance, fixity, bindings)."""
    out: list[S.Decl] = []
    # Constructor signatures (`T2 :: a -> T1 a`) are not Haskell declarations; read them one by one.
    kept: list[str] = []
    for chunk in _top_level_chunks(text):
        m = _CON_SIG.match(chunk)
        if m:
            name = m.group(1)
            name = name[1:-1] if name.startswith("(") else name
            out.append(S.ConSigDecl([name], parse_type(m.group(2)).scheme))
            kept.append("\n" * chunk.count("\n"))
        else:
            kept.append(chunk)
    source = "\n".join(kept)
    root = parse_tree(source)
    _check(root, what)
    decl_nodes: list[Node] = []
    for top in _named(root):
        if top.type == "declarations":
            decl_nodes.extend(_named(top))
        elif top.type not in ("header", "imports", "pragma"):
            decl_nodes.append(top)
    fix = dict(fixities or {})
    # fixity declarations first, so that operators used before their declaration resolve right
    for node in decl_nodes:
        if node.type == "fixity":
            decl = _fixity(node)
            out.append(decl)
            for op in decl.ops:
                fix[op] = (decl.assoc, decl.prec)
    conv = _Converter(fix)
    for node in decl_nodes:
        if node.type == "fixity":
            continue
        out.extend(conv.decl(node))
    return _merge_equations(out)


def _top_level_chunks(text: str) -> Iterator[str]:
    """Lines grouped into top-level declarations (a line that does not start with a blank continues)."""
    chunk: list[str] = []
    for line in text.splitlines():
        if chunk and line.strip() and not line[0].isspace():
            yield "\n".join(chunk)
            chunk = []
        chunk.append(line)
    if chunk:
        yield "\n".join(chunk)


def _merge_equations(decls: list[S.Decl]) -> list[S.Decl]:
    out: list[S.Decl] = []
    for d in decls:
        if isinstance(d, S.FunBind) and out and isinstance(out[-1], S.FunBind) and out[-1].name == d.name:
            prev = out[-1]
            prev.matches.extend(d.matches)
            prev.span = (prev.span[0], prev.span[1], d.span[2], d.span[3])
        else:
            out.append(d)
    return out


def _fixity(node: Node) -> S.FixityDecl:
    assoc = "infixl"
    prec = 9
    ops: list[str] = []
    for c in _named(node):
        if c.type in ("infixl", "infixr", "infix"):
            assoc = c.type
        elif c.type == "integer":
            prec = int(_text(c))
        elif c.type in ("operator", "constructor_operator", "infix_id", "variable", "constructor"):
            ops.append(_op_name(c))
    for c in node.children:
        if c.type in ("infixl", "infixr", "infix"):
            assoc = c.type
    return S.FixityDecl(assoc, prec, ops)


DEFAULT_FIXITY = ("infixl", 9)


def _climb_chain(operands: list[Any], ops: list[tuple[str, Any]], fix: Fixities, make: Any) -> Any:
    """`e0 op0 e1 op1 e2 ...` associated by precedence climbing (Haskell 2010 fixities)."""
    index = 0

    def climb(min_prec: int) -> Any:
        nonlocal index
        left = operands[index]
        while index < len(ops):
            name, op = ops[index]
            assoc, prec = fix.get(name, DEFAULT_FIXITY)
            if prec < min_prec:
                break
            index += 1
            right = climb(prec if assoc == "infixr" else prec + 1)
            left = make(op, left, right)
        return left

    return climb(-1)


class _Converter:
    def __init__(self, fixities: Fixities) -> None:
        self.fix = fixities

    # -- declarations --------------------------------------------------------------------------
    def decl(self, node: Node) -> list[S.Decl]:
        t = node.type
        if t == "signature":
            return [self.signature(node)]
        if t in ("data_type", "newtype"):
            return [self.data(node)]
        if t == "type_synonym":
            params = self._params(node)
            return [S.SynDecl(_text(node.child_by_field_name("name")), params,
                              convert_type(node.child_by_field_name("type")))]
        if t == "class":
            return [self.klass(node)]
        if t == "instance":
            ctx_node = node.child_by_field_name("context")
            ctx = convert_preds(ctx_node.child_by_field_name("context")) if ctx_node is not None else []
            pats = node.child_by_field_name("patterns")
            args = tuple(convert_type(c) for c in _named(pats)) if pats is not None else ()
            return [S.InstanceDecl(ctx, Pred(_text(node.child_by_field_name("name")), args))]
        if t in ("function", "bind"):
            return [self.binding(node)]
        raise HsParseError(f"unsupported declaration ({t}): {_text(node).splitlines()[0][:50]!r}")

    def signature(self, node: Node) -> S.SigDecl:
        names: list[str] = []
        for c in node.children:
            if c.type == "::":
                break
            if c.type in ("variable", "prefix_id", "binding_list", "operator"):
                if c.type == "binding_list":
                    names.extend(_op_name(x) for x in _named(c))
                else:
                    names.append(_op_name(c))
        tnode = _type_node_of_signature(node)
        forall, ctx, body = _peel(tnode)
        return S.SigDecl(names, Scheme(tuple(ctx), body), explicit_forall=bool(forall))

    def _params(self, node: Node) -> list[str]:
        pats = node.child_by_field_name("patterns")
        if pats is None:
            return []
        out = []
        for c in _named(pats):
            if c.type == "variable":
                out.append(_text(c))
            else:
                vs = [x for x in _named(c) if x.type == "variable"]
                if vs:
                    out.append(_text(vs[0]))
        return out

    def data(self, node: Node) -> S.DataDecl:
        name = _text(node.child_by_field_name("name"))
        params = self._params(node)
        cons: list[S.ConDecl] = []
        newtype = node.type == "newtype"
        if newtype:
            cnode = node.child_by_field_name("constructor")
            cons.append(self._newtype_con(cnode))
        else:
            cs = node.child_by_field_name("constructors")
            if cs is not None:
                for dc in _named(cs):
                    if dc.type == "data_constructor":
                        inner = dc.child_by_field_name("constructor") or _named(dc)[0]
                        cons.append(self._con(inner))
        deriving: list[str] = []
        for c in _named(node):
            if c.type == "deriving":
                classes = c.child_by_field_name("classes")
                if classes is not None:
                    stack = [classes]
                    while stack:
                        n = stack.pop()
                        if n.type in ("name", "qualified"):
                            deriving.append(_text(n))
                        else:
                            stack.extend(reversed(_named(n)))
        return S.DataDecl(name, params, cons, deriving, newtype)

    def _newtype_con(self, node: Node) -> S.ConDecl:
        name = _text(node.child_by_field_name("name"))
        field = node.child_by_field_name("field")
        if field is not None and field.type == "record":
            names, types = self._record(field)
            return S.ConDecl(name, types, names)
        fields = [c for c in _named(node) if c != node.child_by_field_name("name")]
        return S.ConDecl(name, [convert_type(f) for f in fields], [None] * len(fields))

    def _record(self, node: Node) -> tuple[list[str | None], list[Type]]:
        names: list[str | None] = []
        types: list[Type] = []
        for f in _named(node):
            if f.type != "field":
                continue
            ty = convert_type(f.child_by_field_name("type"))
            for c in _named(f):
                if c.type == "field_name":
                    names.append(_text(c))
                    types.append(ty)
        return names, types

    def _con(self, node: Node) -> S.ConDecl:
        if node.type == "prefix":
            name = _text(node.child_by_field_name("name"))
            fields = [c for c in _named(node) if c != node.child_by_field_name("name")]
            return S.ConDecl(name, [convert_type(f) for f in fields], [None] * len(fields))
        if node.type == "infix":
            op = _op_name(node.child_by_field_name("operator"))
            left = convert_type(node.child_by_field_name("left_operand"))
            right = convert_type(node.child_by_field_name("right_operand"))
            return S.ConDecl(op, [left, right], [None, None])
        if node.type == "record":
            name = _text(node.child_by_field_name("name"))
            fields = node.child_by_field_name("fields") or next(c for c in _named(node) if c.type == "fields")
            names, types = self._record(fields)
            return S.ConDecl(name, types, names)
        raise HsParseError(f"unsupported constructor: {_text(node)[:40]!r}")

    def klass(self, node: Node) -> S.ClassDecl:
        name = _text(node.child_by_field_name("name"))
        params = self._params(node)
        ctx_node = node.child_by_field_name("context")
        supers = convert_preds(ctx_node.child_by_field_name("context")) if ctx_node is not None else []
        methods: list[S.SigDecl] = []
        body = node.child_by_field_name("declarations")
        if body is not None:
            for d in _named(body):
                if d.type == "signature":
                    methods.append(self.signature(d))
        return S.ClassDecl(name, params, supers, methods)

    # -- bindings ------------------------------------------------------------------------------
    def binding(self, node: Node) -> S.FunBind | S.PatBind:
        name_node = node.child_by_field_name("name")
        pats: list[S.Pat] = []
        if node.type == "bind" and name_node is None:
            pat = self.pat(node.child_by_field_name("pattern"))
            return S.PatBind(pat, self.rhs(node), _span(node))
        if name_node is None:
            head = _named(node)[0]
            if head.type == "function_head_parens":
                head = _named(head)[0]
            if head.type != "infix":
                raise HsParseError(f"unsupported function head: {_text(head)[:40]!r}")
            name_node = head.child_by_field_name("operator")
            pats = [self.pat(head.child_by_field_name("left_operand")), self.pat(head.child_by_field_name("right_operand"))]
        more = node.child_by_field_name("patterns")
        if more is not None:
            pats.extend(self.pat(p) for p in _named(more))
        name = _op_name(name_node)
        match = S.Match(pats, self.rhs(node), _span(node))
        return S.FunBind(name, [match], _span(node), _span(name_node))

    def rhs(self, node: Node) -> S.Rhs:
        alts: list[S.Guarded] = []
        where: list[S.Bind] = []
        for i, c in enumerate(node.children):
            field = node.field_name_for_child(i)
            if c.type == "match" and field == "match":
                alts.append(self.guarded(c))
            elif field == "binds" and c.type == "local_binds":
                where.extend(self.local_binds(c))
        if not alts:
            raise HsParseError(f"a binding without a right-hand side: {_text(node)[:40]!r}")
        return S.Rhs(alts, where, _span(node))

    def guarded(self, match: Node) -> S.Guarded:
        guards: list[S.Qual] = []
        g = match.child_by_field_name("guards")
        if g is not None:
            for q in _named(g):
                guards.append(self.qual(q))
        expr = match.child_by_field_name("expression")
        if expr is None:
            raise HsParseError(f"a match without an expression: {_text(match)[:40]!r}")
        return S.Guarded(guards, self.expr(expr), _span(match))

    def local_binds(self, node: Node) -> list[S.Bind]:
        out: list[Any] = []
        for d in _named(node):
            if d.type == "signature":
                sig = self.signature(d)
                out.append(S.SigBind(sig.names, sig.scheme, _span(d)))
            elif d.type in ("function", "bind"):
                out.append(self.binding(d))
            elif d.type == "fixity":
                continue
            else:
                raise HsParseError(f"unsupported local declaration ({d.type})")
        return _merge_equations(out)  # type: ignore[return-value]

    def qual(self, node: Node) -> S.Qual:
        t = node.type
        if t == "boolean":
            return S.QGuard(self.expr(_named(node)[0]), _span(node))
        if t in ("generator", "pattern_guard", "bind"):
            pat = node.child_by_field_name("pattern") or _named(node)[0]
            expr = node.child_by_field_name("expression") or _named(node)[-1]
            return S.QGen(self.pat(pat), self.expr(expr), _span(node))
        if t == "let":
            binds = node.child_by_field_name("binds") or next((c for c in _named(node) if c.type == "local_binds"), None)
            return S.QLet(self.local_binds(binds) if binds is not None else [], _span(node))
        if t == "exp":
            return S.QGuard(self.expr(_named(node)[0]), _span(node))
        return S.QGuard(self.expr(node), _span(node))

    # -- expressions ---------------------------------------------------------------------------
    def operator(self, node: Node) -> S.Expr:
        name = _op_name(node)
        inner = _named(node)[0] if node.type == "infix_id" and _named(node) else node
        if name.startswith(":") or inner.type == "constructor" or node.type == "constructor_operator":
            return S.Con(name, _span(node))
        return S.Var(name, _span(node))

    def _chain(self, node: Node) -> tuple[list[Node], list[Node]]:
        operands: list[Node] = []
        ops: list[Node] = []
        while node.type == "infix":
            operands.append(node.child_by_field_name("left_operand"))
            ops.append(node.child_by_field_name("operator"))
            node = node.child_by_field_name("right_operand")
        operands.append(node)
        return operands, ops

    def _resolve(self, operands: list[Any], ops: list[tuple[str, Any]], make: Any) -> Any:
        return _climb_chain(operands, ops, self.fix, make)

    def expr(self, node: Node) -> S.Expr:
        t = node.type
        sp = _span(node)
        if t == "variable":
            return S.Var(_text(node), sp)
        if t == "constructor":
            return S.Con(_text(node), sp)
        if t == "qualified":
            name = _text(node)
            last = name.rsplit(".", 1)[-1]
            return S.Con(name, sp) if last[:1].isupper() else S.Var(name, sp)
        if t == "literal":
            return self.literal(node)
        if t == "apply":
            f = node.child_by_field_name("function") or _named(node)[0]
            a = node.child_by_field_name("argument") or _named(node)[-1]
            return S.App(self.expr(f), self.expr(a), sp)
        if t == "infix":
            operands, ops = self._chain(node)
            exprs = [self.expr(o) for o in operands]
            named_ops = [(_op_name(o), self.operator(o)) for o in ops]

            def make(op: S.Expr, left: S.Expr, right: S.Expr) -> S.Expr:
                whole = (left.span[0], left.span[1], right.span[2], right.span[3])
                return S.App(S.App(op, left, (left.span[0], left.span[1], op.span[2], op.span[3])), right, whole)

            return self._resolve(exprs, named_ops, make)
        if t == "parens":
            inner = _named(node)
            if len(inner) != 1:
                raise HsParseError(f"unexpected parenthesised expression {_text(node)[:40]!r}")
            e = self.expr(inner[0])
            return e
        if t == "tuple":
            return S.TupleE([self.expr(c) for c in _named(node)], sp)
        if t == "list":
            return S.ListE([self.expr(c) for c in _named(node)], sp)
        if t == "unit":
            return S.Con("()", sp)
        if t == "prefix_tuple":
            return S.Con(tuple_con(_text(node).count(",") + 1).name, sp)
        if t == "prefix_list":
            return S.ListE([], sp)
        if t == "prefix_id":
            return self.operator(_named(node)[0]) if _named(node) else S.Var(_op_name(node), sp)
        if t == "lambda":
            pats = node.child_by_field_name("patterns")
            return S.Lam([self.pat(p) for p in _named(pats)], self.expr(node.child_by_field_name("expression")), sp)
        if t == "let_in":
            binds = node.child_by_field_name("binds")
            return S.Let(self.local_binds(binds) if binds is not None else [],
                         self.expr(node.child_by_field_name("expression")), sp)
        if t == "conditional":
            return S.If(self.expr(node.child_by_field_name("if")), self.expr(node.child_by_field_name("then")),
                        self.expr(node.child_by_field_name("else")), sp)
        if t == "case":
            kids = _named(node)
            alts_node = node.child_by_field_name("alternatives") or next((k for k in kids if k.type == "alternatives"), None)
            scrut = next(k for k in kids if k.type != "alternatives")
            alts = [self.alt(a) for a in (_named(alts_node) if alts_node is not None else []) if a.type == "alternative"]
            return S.Case(self.expr(scrut), alts, sp)
        if t == "list_comprehension":
            quals = node.child_by_field_name("qualifiers")
            return S.ListComp(self.expr(node.child_by_field_name("expression")),
                              [self.qual(q) for q in _named(quals)], sp)
        if t == "arithmetic_sequence":
            start = node.child_by_field_name("from")
            step = node.child_by_field_name("step")
            end = node.child_by_field_name("to")
            return S.EnumFrom(self.expr(start), self.expr(step) if step is not None else None,
                              self.expr(end) if end is not None else None, sp)
        if t == "do":
            stmts: list[S.Qual] = []
            for c in _named(node):
                stmts.append(self.qual(c))
            return S.Do(stmts, sp)
        if t == "negation":
            return S.Neg(self.expr(node.child_by_field_name("expression") or _named(node)[-1]), sp)
        if t == "left_section":
            return S.LeftSection(self.operator(node.child_by_field_name("operator")),
                                 self.expr(node.child_by_field_name("left_operand")), sp)
        if t == "right_section":
            right = node.child_by_field_name("right_operand")
            op = next(c for c in _named(node) if c != right)
            return S.RightSection(self.operator(op), self.expr(right), sp)
        if t == "signature":
            e = node.child_by_field_name("expression")
            names, ctx, body = _peel(node.child_by_field_name("type"))
            return S.Annot(self.expr(e), Scheme(tuple(ctx), body), sp)
        raise HsParseError(f"unsupported expression syntax ({t}): {_text(node)[:40]!r}")

    def alt(self, node: Node) -> S.Alt:
        pat = self.pat(node.child_by_field_name("pattern"))
        alts: list[S.Guarded] = []
        where: list[S.Bind] = []
        for i, c in enumerate(node.children):
            field = node.field_name_for_child(i)
            if c.type == "match":
                alts.append(self.guarded(c))
            elif field == "binds" and c.type == "local_binds":
                where.extend(self.local_binds(c))
        return S.Alt(pat, S.Rhs(alts, where, _span(node)), _span(node))

    def literal(self, node: Node) -> S.Lit:
        inner = _named(node)[0] if _named(node) else node
        kind = {"integer": "int", "float": "frac", "char": "char", "string": "string"}.get(inner.type)
        if kind is None:
            raise HsParseError(f"unsupported literal {_text(node)[:30]!r}")
        return S.Lit(kind, _text(inner), _span(node))

    # -- patterns ------------------------------------------------------------------------------
    def pat(self, node: Node) -> S.Pat:
        t = node.type
        sp = _span(node)
        if t == "variable":
            return S.PVar(_text(node), sp)
        if t == "wildcard":
            return S.PWild(sp)
        if t == "literal":
            lit = self.literal(node)
            return S.PLit(lit.kind, lit.text, sp)
        if t in ("constructor", "qualified"):
            return S.PCon(_text(node), [], sp)
        if t == "unit":
            return S.PCon("()", [], sp)
        if t == "prefix_id":
            op = _op_name(node)
            # `(.*.)` binds a variable operator; only `:`-operators are constructors
            return S.PCon(op, [], sp) if op.startswith(":") else S.PVar(op, sp)
        if t == "apply":
            args: list[S.Pat] = []
            cur = node
            while cur.type == "apply":
                args.append(self.pat(cur.child_by_field_name("argument") or _named(cur)[-1]))
                cur = cur.child_by_field_name("function") or _named(cur)[0]
            head = self.pat(cur)
            if not isinstance(head, S.PCon) or head.args:
                raise HsParseError(f"a pattern applies a constructor: {_text(node)[:40]!r}")
            return S.PCon(head.name, list(reversed(args)), sp)
        if t == "infix":
            operands, ops = self._chain(node)
            pats = [self.pat(o) for o in operands]
            named_ops = [(_op_name(o), _op_name(o)) for o in ops]

            def make(op: str, left: S.Pat, right: S.Pat) -> S.Pat:
                return S.PCon(op, [left, right], (left.span[0], left.span[1], right.span[2], right.span[3]))

            return self._resolve(pats, named_ops, make)
        if t == "parens":
            return self.pat(_named(node)[0])
        if t == "tuple":
            return S.PTuple([self.pat(c) for c in _named(node)], sp)
        if t == "list":
            return S.PList([self.pat(c) for c in _named(node)], sp)
        if t == "as":
            return S.PAs(_text(node.child_by_field_name("bind")), self.pat(node.child_by_field_name("pattern")), sp)
        if t in ("irrefutable", "strict"):
            return self.pat(node.child_by_field_name("pattern") or _named(node)[-1])
        if t == "negation":
            inner = self.pat(_named(node)[-1])
            if isinstance(inner, S.PLit):
                return S.PLit(inner.kind, "-" + inner.text, sp)
            raise HsParseError("only literals can be negated in a pattern")
        raise HsParseError(f"unsupported pattern syntax ({t}): {_text(node)[:40]!r}")


def parse_code(text: str, fixities: Fixities | None = None) -> list[S.Decl]:
    """A task's code: one or more equations (and possibly signatures)."""
    return parse_decls(text, fixities, what="the code")
