"""Statement-level transformations of the paper's Appendix A: MergeVarDecl, InfixDividing, SwapStatement.

Each applies once per variant (the first place it may) and only where it cannot change the meaning:
the conditions are checked on the syntax tree (side effects, types, reads and writes), and the family
still checks every variant against its original by differential testing.
"""

from __future__ import annotations

import tree_sitter as ts

from core.families.specs.csyntax import is_annotation, node_text, walk
from core.families.specs.transform_base import (
    ARITHMETIC,
    apply_edits,
    body,
    int_type,
    pure,
    variable_types,
)


def _annotated(node: ts.Node, data: bytes) -> bool:
    """An ACSL annotation right before the statement (a statement contract, an assertion, a loop's
    annotation) belongs to that place: statements next to one are not moved or merged."""
    prev = node.prev_sibling
    return prev is not None and prev.type == "comment" and is_annotation(node_text(prev, data))


def _specifiers(decl: ts.Node, data: bytes) -> str | None:
    """Everything before the first declarator (`const int`, `unsigned long`, ...)."""
    first = decl.child_by_field_name("declarator")
    if first is None:
        return None
    return " ".join(node_text(c, data) for c in decl.children if c.end_byte <= first.start_byte)


def merge_var_decl(text: str, function: str) -> str | None:
    """MergeVarDecl: consecutive declarations with the same specifiers, `int a = 0; int b;`, become one,
    `int a = 0, b;` (each declarator is complete before the next begins, so initialisers that read the
    earlier names keep their meaning)."""
    fn, data = body(text, function)
    if fn is None:
        return None
    for block in walk(fn):
        if block.type != "compound_statement":
            continue
        kids = block.named_children
        for i in range(len(kids) - 1):
            a, b = kids[i], kids[i + 1]
            if a.type != "declaration" or b.type != "declaration" or _annotated(b, data):
                continue
            spec = _specifiers(a, data)
            if spec is None or spec != _specifiers(b, data) or "static" in spec.split():
                continue
            first_b = b.child_by_field_name("declarator")
            if first_b is None:
                continue
            rest = data[first_b.start_byte:b.end_byte].decode("utf-8", "surrogatepass").rstrip()
            head = data[a.start_byte:a.end_byte].decode("utf-8", "surrogatepass").rstrip()
            if not head.endswith(";") or not rest.endswith(";"):
                continue
            return apply_edits(data, [(a.start_byte, b.end_byte, f"{head[:-1]}, {rest}")])
    return None


def _fresh(text: str, base: str = "temp") -> str:
    names = set(text.replace("(", " ").replace(")", " ").split())
    k = 0
    while True:
        name = base if k == 0 else f"{base}{k}"
        if name not in names and name not in text:
            return name
        k += 1


def _divisible(stmt: ts.Node) -> ts.Node | None:
    """The expression a statement computes, if the statement is one InfixDividing may split: `x = e;`,
    `T x = e;` (one declarator) or `return e;`."""
    if stmt.type == "expression_statement" and stmt.named_children:
        expr = stmt.named_children[0]
        if expr.type == "assignment_expression" and expr.child_by_field_name("operator") is not None \
                and expr.child_by_field_name("operator").type == "=":
            return expr.child_by_field_name("right")
    elif stmt.type == "declaration":
        decls = stmt.children_by_field_name("declarator")
        if len(decls) == 1 and decls[0].type == "init_declarator":
            return decls[0].child_by_field_name("value")
    elif stmt.type == "return_statement" and stmt.named_children:
        return stmt.named_children[0]
    return None


def infix_dividing(text: str, function: str) -> str | None:
    """InfixDividing: `x = a + b * c;` becomes `int temp = b * c; x = a + temp;`.

    Only an arithmetic operand of an arithmetic infix expression is taken out (both operands of `+`
    are always evaluated, so evaluating one first changes nothing when neither has side effects), and
    only when its type is known to be one integer type T: `temp` is declared T, so no value changes.
    """
    fn, data = body(text, function)
    if fn is None:
        return None
    types = variable_types(fn, data)
    for block in walk(fn):
        if block.type != "compound_statement":
            continue
        for stmt in block.named_children:
            expr = _divisible(stmt)
            if expr is None or _annotated(stmt, data) or expr.type != "binary_expression" or not pure(expr):
                continue
            op = expr.child_by_field_name("operator")
            if op is None or node_text(op, data) not in ARITHMETIC:
                continue
            for side in ("right", "left"):
                part = expr.child_by_field_name(side)
                inner = part
                while inner is not None and inner.type == "parenthesized_expression" and inner.named_children:
                    inner = inner.named_children[0]
                if part is None or inner is None or inner.type != "binary_expression":
                    continue
                kind = int_type(inner, data, types)
                if kind is None:
                    continue
                temp = _fresh(text)
                pad = " " * stmt.start_point[1]
                return apply_edits(data, [
                    (stmt.start_byte, stmt.start_byte, f"{kind} {temp} = {node_text(inner, data)};\n{pad}"),
                    (part.start_byte, part.end_byte, temp),
                ])
    return None


MEMORY = "*memory*"  # every access through a pointer or an array: they may alias, so one location


def _access(node: ts.Node, data: bytes, reads: set[str], writes: set[str]) -> None:
    def target(lhs: ts.Node) -> None:
        if lhs.type == "identifier":
            writes.add(node_text(lhs, data))
        else:  # a[i], *p, s.f: memory (and what the index reads)
            writes.add(MEMORY)
            for sub in lhs.named_children:
                if sub.type != "field_identifier":
                    _access(sub, data, reads, writes)

    for n in walk(node):
        if n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            op = n.child_by_field_name("operator")
            if left is not None:
                target(left)
                if op is not None and op.type != "=":
                    _access(left, data, reads, set())
        elif n.type == "update_expression":
            arg = n.child_by_field_name("argument")
            if arg is not None:
                target(arg)
        elif n.type == "declaration":
            for declarator in n.children_by_field_name("declarator"):
                name = _declared(declarator)
                writes.add(node_text(name, data) if name is not None else MEMORY)
        elif n.type in ("subscript_expression", "pointer_expression", "field_expression"):
            reads.add(MEMORY)
        if n.type == "identifier":
            reads.add(node_text(n, data))


def _declared(node: ts.Node | None) -> ts.Node | None:
    while node is not None and node.type != "identifier":
        node = node.child_by_field_name("declarator")
    return node


def _movable(stmt: ts.Node) -> bool:
    return stmt.type in ("expression_statement", "declaration") and stmt.named_children != [] \
        and not any(n.type in ("call_expression", "comma_expression", "comment") for n in walk(stmt))


def swap_statement(text: str, function: str) -> str | None:
    """SwapStatement: two adjacent simple statements with no data dependency change places.

    Simple: an expression statement or a declaration without calls. Independent: neither writes what
    the other reads or writes (a declaration writes its names; every access through an array or a
    pointer counts as one location, since two pointers may alias). Statements with no control flow of
    their own have no control dependency on each other.
    """
    fn, data = body(text, function)
    if fn is None:
        return None
    for block in walk(fn):
        if block.type != "compound_statement":
            continue
        kids = block.named_children
        for a, b in zip(kids, kids[1:], strict=False):
            if not (_movable(a) and _movable(b)) or _annotated(a, data) or _annotated(b, data):
                continue
            ra: set[str] = set()
            wa: set[str] = set()
            rb: set[str] = set()
            wb: set[str] = set()
            _access(a, data, ra, wa)
            _access(b, data, rb, wb)
            if wa & (rb | wb) or wb & ra:
                continue
            between = data[a.end_byte:b.start_byte]
            return apply_edits(data, [(a.start_byte, b.end_byte,
                                       node_text(b, data) + between.decode() + node_text(a, data))])
    return None
