"""Semantic-preserving transformations (the paper's Appendix A, those that apply to C), on annotated text.

Each takes an annotated program and returns the transformed annotated program, or None when it does
not apply (or would not change anything). Annotations move with the code: renamed variables are renamed
inside annotations too, and a `for` loop's annotation stays in front of the `while` it becomes.
Equivalence is not assumed: the family checks each variant against the original by differential testing.
The statement-level ones (MergeVarDecl, InfixDividing, SwapStatement) are in transform_stmt.py, the
control-flow ones (ElseIf2If, Switch2If, If2CondExp, CondExp2If) in transform_control.py; which of the
paper's 18 apply to C, and why the others do not: docs/specs-transformations.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter as ts

from core.families.specs.csyntax import is_annotation, node_text, walk
from core.families.specs.transform_base import Edit
from core.families.specs.transform_base import apply_edits as _apply
from core.families.specs.transform_base import body as _body
from core.families.specs.transform_control import cond_exp_to_if, else_if_to_if, if_to_cond_exp, switch_to_if
from core.families.specs.transform_stmt import infix_dividing, merge_var_decl, swap_statement


def _code_nodes(fn: ts.Node) -> list[ts.Node]:
    return [n for n in walk(fn) if n.type != "comment"]


def rename_variables(text: str, function: str) -> str | None:
    """VariableRenaming: every local variable gets a fresh name (its first letter and a number)."""
    fn, data = _body(text, function)
    if fn is None:
        return None
    body = fn.child_by_field_name("body")
    locals_: list[str] = []
    for node in walk(body):
        if node.type in ("init_declarator",):
            name = node.child_by_field_name("declarator")
            if name is not None and name.type == "identifier":
                locals_.append(node_text(name, data))
        elif node.type == "declaration":
            for child in node.named_children:
                if child.type == "identifier":
                    locals_.append(node_text(child, data))
    if not locals_:
        return None
    taken = {node_text(n, data) for n in walk(fn) if n.type == "identifier"}
    mapping: dict[str, str] = {}
    for name in dict.fromkeys(locals_):
        k = 1
        while f"{name[0]}{k}" in taken or f"{name[0]}{k}" in mapping.values():
            k += 1
        mapping[name] = f"{name[0]}{k}"
    edits: list[Edit] = []
    pattern = re.compile(r"(?<![\\\w])(" + "|".join(map(re.escape, mapping)) + r")(?!\w)")
    for node in walk(fn):
        if node.type == "identifier" and node_text(node, data) in mapping:
            edits.append((node.start_byte, node.end_byte, mapping[node_text(node, data)]))
        elif node.type == "comment" and is_annotation(node_text(node, data)):
            new = pattern.sub(lambda m: mapping[m.group(1)], node_text(node, data))
            edits.append((node.start_byte, node.end_byte, new))
    return _apply(data, edits)


def _loop_annotation(loop: ts.Node, data: bytes) -> ts.Node | None:
    prev = loop.prev_named_sibling
    if prev is not None and prev.type == "comment" and is_annotation(node_text(prev, data)) \
            and "loop" in node_text(prev, data):
        return prev
    return None


def _indent(node: ts.Node) -> str:
    return " " * node.start_point[1]


def for_to_while(text: str, function: str) -> str | None:
    """For2While: `for (init; cond; step) body` becomes `{ init; while (cond) { body step; } }`."""
    fn, data = _body(text, function)
    if fn is None:
        return None
    edits: list[Edit] = []
    for loop in walk(fn):
        if loop.type != "for_statement":
            continue
        body = loop.child_by_field_name("body")
        if body is None or body.type != "compound_statement":
            continue
        if any(n.type == "continue_statement" for n in walk(body)):
            continue
        init = loop.child_by_field_name("initializer")
        cond = loop.child_by_field_name("condition")
        step = loop.child_by_field_name("update")
        pad = _indent(loop)
        annot = _loop_annotation(loop, data)
        init_text = node_text(init, data) if init is not None else ""
        if init_text and not init_text.rstrip().endswith(";"):
            init_text += ";"
        cond_text = node_text(cond, data) if cond is not None else "1"
        inner = node_text(body, data)
        if step is not None:
            close = inner.rstrip()[:-1].rstrip()
            inner = f"{close}\n{pad}  {node_text(step, data)};\n{pad}}}"
        start = annot.start_byte if annot is not None else loop.start_byte
        annot_text = (node_text(annot, data).replace("\n", "\n  ") + f"\n{pad}  ") if annot is not None else ""
        inner = inner.replace("\n", "\n  ")
        new = f"{{\n{pad}  {init_text}\n{pad}  {annot_text}while ({cond_text}) {inner}\n{pad}}}" if init_text \
            else f"{annot_text.rstrip()}\n{pad}while ({cond_text}) {node_text(body, data)}".lstrip()
        edits.append((start, loop.end_byte, new))
        break  # one loop per variant keeps the transformation easy to read
    return _apply(data, edits) if edits else None


def while_to_for(text: str, function: str) -> str | None:
    """While2For: `while (cond) body` becomes `for (; cond;) body`."""
    fn, data = _body(text, function)
    if fn is None:
        return None
    for loop in walk(fn):
        if loop.type == "while_statement":
            cond = loop.child_by_field_name("condition")
            body = loop.child_by_field_name("body")
            if cond is None or body is None:
                continue
            inner = node_text(cond, data).strip()
            if inner.startswith("(") and inner.endswith(")"):
                inner = inner[1:-1]
            return _apply(data, [(loop.start_byte, body.start_byte, f"for (; {inner};) ")])
    return None


def reverse_if(text: str, function: str) -> str | None:
    """ReverseIf: `if (c) A else B` becomes `if (!(c)) B else A`."""
    fn, data = _body(text, function)
    if fn is None:
        return None
    for node in walk(fn):
        if node.type != "if_statement":
            continue
        alt = node.child_by_field_name("alternative")
        cons = node.child_by_field_name("consequence")
        cond = node.child_by_field_name("condition")
        if alt is None or cons is None or cond is None:
            continue
        # tree-sitter-c wraps the else branch in an else_clause node
        alt_body = alt.named_children[-1] if alt.type == "else_clause" and alt.named_children else alt
        inner = node_text(cond, data).strip()
        if inner.startswith("(") and inner.endswith(")"):
            inner = inner[1:-1]
        alt_text = node_text(alt_body, data)
        if alt_body.type != "compound_statement":
            alt_text = "{\n" + " " * (node.start_point[1] + 2) + alt_text + "\n" + " " * node.start_point[1] + "}"
        cons_text = node_text(cons, data)
        if cons.type != "compound_statement":
            cons_text = "{ " + cons_text + " }"
        return _apply(data, [(node.start_byte, node.end_byte, f"if (!({inner})) {alt_text} else {cons_text}")])
    return None


_SWAP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def _swap_binary(text: str, function: str, ops: set[str]) -> str | None:
    fn, data = _body(text, function)
    if fn is None:
        return None
    edits: list[Edit] = []
    for node in _code_nodes(fn):
        if node.type != "binary_expression":
            continue
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is None or left is None or right is None:
            continue
        sym = node_text(op, data)
        if sym not in ops or any(e[0] <= node.start_byte < e[1] for e in edits):
            continue
        new_op = _SWAP.get(sym, sym)
        edits.append((node.start_byte, node.end_byte,
                      f"{node_text(right, data)} {new_op} {node_text(left, data)}"))
    return _apply(data, edits) if edits else None


def switch_relation(text: str, function: str) -> str | None:
    """SwitchRelation: `a < b` becomes `b > a` (every relational comparison)."""
    return _swap_binary(text, function, {"<", ">", "<=", ">="})


def switch_equal(text: str, function: str) -> str | None:
    """SwitchEqualExp: `a == b` becomes `b == a`."""
    return _swap_binary(text, function, {"==", "!="})


def commute_arithmetic(text: str, function: str) -> str | None:
    """Ours, not one of the paper's 18: `a + b` becomes `b + a`, `a * b` becomes `b * a`."""
    return _swap_binary(text, function, {"+", "*"})


def unary_to_add(text: str, function: str) -> str | None:
    """Unary2Add: `i++` becomes `i = i + 1` (as a statement or a for-loop step)."""
    fn, data = _body(text, function)
    if fn is None:
        return None
    edits: list[Edit] = []
    for node in _code_nodes(fn):
        if node.type != "update_expression" or node.parent is None:
            continue
        if node.parent.type not in ("expression_statement", "for_statement"):
            continue
        arg = node.child_by_field_name("argument")
        op = node.child_by_field_name("operator")
        if arg is None or op is None:
            continue
        sign = "+" if node_text(op, data) == "++" else "-"
        name = node_text(arg, data)
        edits.append((node.start_byte, node.end_byte, f"{name} = {name} {sign} 1"))
    return _apply(data, edits) if edits else None


def add_to_equal(text: str, function: str) -> str | None:
    """Add2Equal: `s += e` becomes `s = s + (e)`."""
    fn, data = _body(text, function)
    if fn is None:
        return None
    edits: list[Edit] = []
    for node in _code_nodes(fn):
        if node.type != "assignment_expression":
            continue
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is None or left is None or right is None or node_text(op, data) not in ("+=", "-=", "*="):
            continue
        target = node_text(left, data)
        edits.append((node.start_byte, node.end_byte,
                      f"{target} = {target} {node_text(op, data)[0]} ({node_text(right, data)})"))
    return _apply(data, edits) if edits else None


def divide_composed_if(text: str, function: str) -> str | None:
    """DividingComposedIf: `if (a && b) S` (no else) becomes `if (a) { if (b) S }`."""
    fn, data = _body(text, function)
    if fn is None:
        return None
    for node in walk(fn):
        if node.type != "if_statement" or node.child_by_field_name("alternative") is not None:
            continue
        cond = node.child_by_field_name("condition")
        cons = node.child_by_field_name("consequence")
        if cond is None or cons is None:
            continue
        inner = cond.named_children[0] if cond.named_children else None
        if inner is None or inner.type != "binary_expression":
            continue
        op = inner.child_by_field_name("operator")
        if op is None or node_text(op, data) != "&&":
            continue
        left, right = inner.child_by_field_name("left"), inner.child_by_field_name("right")
        pad = " " * node.start_point[1]
        new = (f"if ({node_text(left, data)}) {{\n{pad}  if ({node_text(right, data)}) "
               f"{node_text(cons, data).replace(chr(10), chr(10) + '  ')}\n{pad}}}")
        return _apply(data, [(node.start_byte, node.end_byte, new)])
    return None


TRANSFORMATIONS: dict[str, Callable[[str, str], str | None]] = {
    "rename_variables": rename_variables,
    "for_to_while": for_to_while,
    "while_to_for": while_to_for,
    "reverse_if": reverse_if,
    "switch_relation": switch_relation,
    "switch_equal": switch_equal,
    "commute_arithmetic": commute_arithmetic,
    "unary_to_add": unary_to_add,
    "add_to_equal": add_to_equal,
    "divide_composed_if": divide_composed_if,
    "else_if_to_if": else_if_to_if,
    "switch_to_if": switch_to_if,
    "merge_var_decl": merge_var_decl,
    "infix_dividing": infix_dividing,
    "swap_statement": swap_statement,
    "if_to_cond_exp": if_to_cond_exp,
    "cond_exp_to_if": cond_exp_to_if,
}

# the paper's name for each (Appendix A); commute_arithmetic is this project's own addition
PAPER_NAMES: dict[str, str | None] = {
    "rename_variables": "VariableRenaming-1", "for_to_while": "For2While", "while_to_for": "While2For",
    "reverse_if": "ReverseIf", "switch_relation": "SwitchRelation", "switch_equal": "SwitchEqualExp",
    "commute_arithmetic": None, "unary_to_add": "Unary2Add", "add_to_equal": "Add2Equal",
    "divide_composed_if": "DividingComposedIf", "else_if_to_if": "ElseIf2If", "switch_to_if": "Switch2If",
    "merge_var_decl": "MergeVarDecl", "infix_dividing": "InfixDividing", "swap_statement": "SwapStatement",
    "if_to_cond_exp": "If2CondExp", "cond_exp_to_if": "CondExp2If",
}


def variants(annotated: str, function: str) -> dict[str, str]:
    """Every transformation that applies and changes the program, by name (in a fixed order)."""
    out = {}
    for name, transform in TRANSFORMATIONS.items():
        try:
            new = transform(annotated, function)
        except (ValueError, IndexError, AttributeError):
            new = None
        if new is not None and new != annotated:
            out[name] = new
    return out
