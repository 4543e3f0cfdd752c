"""Control-flow transformations of the paper's Appendix A: ElseIf2If, Switch2If, If2CondExp, CondExp2If.

Each applies once per variant (the first place it may) and only where the meaning is kept: a switch
with fall-through, or a `break` that would then leave an enclosing loop, is not rewritten; a branch
is folded into `?:` only when each side is one expression. The family still checks every variant
against its original by differential testing.
"""

from __future__ import annotations

import tree_sitter as ts

from core.families.specs.csyntax import is_annotation, node_text, walk
from core.families.specs.transform_base import (
    apply_edits,
    block_statements,
    body,
    cond_text,
    has_comment,
    indent,
    pure,
)


def _reindent(text: str, by: str = "  ") -> str:
    return text.replace("\n", "\n" + by)


def else_if_to_if(text: str, function: str) -> str | None:
    """ElseIf2If: `if (a) A else if (b) B ...` becomes `if (a) A else { if (b) B ... }`."""
    fn, data = body(text, function)
    if fn is None:
        return None
    for node in walk(fn):
        if node.type != "else_clause" or not node.named_children:
            continue
        inner = node.named_children[-1]
        if inner.type != "if_statement":
            continue
        pad = indent(node.parent) if node.parent is not None else ""
        new = f"{{\n{pad}  {_reindent(node_text(inner, data))}\n{pad}}}"
        return apply_edits(data, [(inner.start_byte, inner.end_byte, new)])
    return None


_JUMPS = ("break_statement", "return_statement", "continue_statement", "goto_statement")
_INNER_BREAK_SCOPES = ("for_statement", "while_statement", "do_statement", "switch_statement")


def _stray_break(stmts: list[ts.Node]) -> bool:
    """A `break` (outside a nested loop or switch) anywhere but as the group's last statement: it
    leaves the switch today but would leave an enclosing loop, or nothing, as an if."""
    def visit(node: ts.Node) -> bool:
        if node.type == "break_statement":
            return True
        if node.type in _INNER_BREAK_SCOPES:
            return False
        return any(visit(c) for c in node.named_children)
    return any(visit(s) for s in stmts)


def _case_groups(switch_body: ts.Node, data: bytes) -> list[tuple[list[ts.Node], list[ts.Node]]] | None:
    """[(labels, statements)]: consecutive labels with no statement between them share one group.
    None when the body is not a list of case groups each ending in a jump (fall-through)."""
    groups: list[tuple[list[ts.Node], list[ts.Node]]] = []
    labels: list[ts.Node] = []
    for case in switch_body.named_children:
        if case.type == "comment":
            if is_annotation(node_text(case, data)):
                return None
            continue
        if case.type != "case_statement":
            return None
        labels.append(case)
        value = case.child_by_field_name("value")
        stmts = [c for c in case.named_children if c != value]
        if stmts:
            groups.append((labels, stmts))
            labels = []
    if labels or not groups:
        return None  # trailing labels with nothing under them
    for i, (_, stmts) in enumerate(groups):
        last = stmts[-1]
        ends = last.type in ("break_statement", "return_statement")
        if not ends and i != len(groups) - 1:
            return None  # falls through into the next group
        if _stray_break(stmts[:-1] if last.type == "break_statement" else stmts):
            return None
        if any(s.type == "declaration" for s in stmts):
            return None  # its scope is the whole switch; in a branch's braces later cases lose it
    return groups


def switch_to_if(text: str, function: str) -> str | None:
    """Switch2If: a switch whose case groups each end in `break` or `return` becomes an if/else-if
    chain, `case 1: case 2: A; break; default: D;` -> `if (e == 1 || e == 2) { A; } else { D; }`.
    The switched expression must be free of side effects (it is compared once per group)."""
    fn, data = body(text, function)
    if fn is None:
        return None
    for node in walk(fn):
        if node.type != "switch_statement":
            continue
        cond, sw_body = node.child_by_field_name("condition"), node.child_by_field_name("body")
        if cond is None or sw_body is None or not pure(cond):
            continue
        groups = _case_groups(sw_body, data)
        if groups is None:
            continue
        subject = cond_text(cond, data)
        pad = indent(node)
        branches: list[str] = []
        fallback: str | None = None
        for labels, stmts in groups:
            keep = stmts[:-1] if stmts[-1].type == "break_statement" else stmts
            lines = "".join(f"\n{pad}  {node_text(s, data)}" for s in keep)
            block = f"{{{lines}\n{pad}}}"
            values = [lab.child_by_field_name("value") for lab in labels]
            if any(v is None for v in values):  # a `default` label: the final else
                fallback = block
                continue
            test = " || ".join(f"({subject}) == {node_text(v, data)}" for v in values if v is not None)
            branches.append(f"if ({test}) {block}")
        if not branches:
            continue
        new = " else ".join(branches) + (f" else {fallback}" if fallback is not None else "")
        return apply_edits(data, [(node.start_byte, node.end_byte, new)])
    return None


def _single(branch: ts.Node | None) -> ts.Node | None:
    if branch is None:
        return None
    if branch.type == "else_clause":
        branch = branch.named_children[-1] if branch.named_children else None
        if branch is None:
            return None
    stmts = block_statements(branch)
    return stmts[0] if len(stmts) == 1 else None


def _assignment(stmt: ts.Node) -> ts.Node | None:
    if stmt.type != "expression_statement" or not stmt.named_children:
        return None
    expr = stmt.named_children[0]
    if expr.type != "assignment_expression":
        return None
    op = expr.child_by_field_name("operator")
    return expr if op is not None and op.type == "=" else None


def _folded(cond: str, a: ts.Node, b: ts.Node, data: bytes) -> str | None:
    """`c ? A : B` as one statement, for branches that are each one statement of the same shape."""
    if a.type == "return_statement" and b.type == "return_statement" and a.named_children and b.named_children:
        return f"return ({cond}) ? ({node_text(a.named_children[0], data)}) : ({node_text(b.named_children[0], data)});"
    ea, eb = _assignment(a), _assignment(b)
    if ea is not None and eb is not None:
        la, lb = ea.child_by_field_name("left"), eb.child_by_field_name("left")
        ra, rb = ea.child_by_field_name("right"), eb.child_by_field_name("right")
        if la is None or lb is None or ra is None or rb is None:
            return None
        if node_text(la, data) == node_text(lb, data) and pure(la):
            return f"{node_text(la, data)} = ({cond}) ? ({node_text(ra, data)}) : ({node_text(rb, data)});"
    return None


def if_to_cond_exp(text: str, function: str) -> str | None:
    """If2CondExp: `if (c) { x = A; } else { x = B; }` becomes `x = (c) ? (A) : (B);`, and
    `if (c) { return A; } else { return B; }` (or with the else's return following the if) becomes
    `return (c) ? (A) : (B);`."""
    fn, data = body(text, function)
    if fn is None:
        return None
    for node in walk(fn):
        if node.type != "if_statement" or has_comment(node):
            continue
        cond = node.child_by_field_name("condition")
        cons = _single(node.child_by_field_name("consequence"))
        alt_node = node.child_by_field_name("alternative")
        end = node.end_byte
        if alt_node is not None:
            alt = _single(alt_node)
        else:  # `if (c) return A; return B;`: the return after the if is the else
            after = node.next_named_sibling
            alt = after if after is not None and after.type == "return_statement" else None
            if alt is not None and (cons is None or cons.type != "return_statement"):
                alt = None
            end = alt.end_byte if alt is not None else end
        if cond is None or cons is None or alt is None:
            continue
        new = _folded(cond_text(cond, data), cons, alt, data)
        if new is not None:
            return apply_edits(data, [(node.start_byte, end, new)])
    return None


def cond_exp_to_if(text: str, function: str) -> str | None:
    """CondExp2If: `x = c ? A : B;` becomes `if (c) { x = A; } else { x = B; }`; `return c ? A : B;`
    becomes `if (c) { return A; } else { return B; }`."""
    fn, data = body(text, function)
    if fn is None:
        return None
    for stmt in walk(fn):
        if stmt.type not in ("expression_statement", "return_statement") or not stmt.named_children:
            continue
        if has_comment(stmt):
            continue
        expr = stmt.named_children[0]
        if stmt.type == "return_statement":
            target, value = "return ", expr
        else:
            assign = _assignment(stmt)
            left = assign.child_by_field_name("left") if assign is not None else None
            value = assign.child_by_field_name("right") if assign is not None else None
            if left is None or value is None or not pure(left):
                continue
            target = f"{node_text(left, data)} = "
        while value.type == "parenthesized_expression" and value.named_children:
            value = value.named_children[0]
        if value.type != "conditional_expression":
            continue
        c = value.child_by_field_name("condition")
        a = value.child_by_field_name("consequence")
        b = value.child_by_field_name("alternative")
        if c is None or a is None or b is None:
            continue
        pad = indent(stmt)
        new = (f"if ({node_text(c, data)}) {{\n{pad}  {target}{node_text(a, data)};\n{pad}}} "
               f"else {{\n{pad}  {target}{node_text(b, data)};\n{pad}}}")
        if stmt.parent is None or stmt.parent.type != "compound_statement":
            new = f"{{ {new} }}"
        return apply_edits(data, [(stmt.start_byte, stmt.end_byte, new)])
    return None
