"""Shared pieces of the transformations: byte-range edits on the annotated text, the function's node,
and the side-effect and type facts the newer transformations need before they may move code."""

from __future__ import annotations

import tree_sitter as ts

from core.families.specs.csyntax import function_node, node_text, parse, walk

Edit = tuple[int, int, str]  # byte range and its replacement

# nodes whose evaluation writes something or may (a call can do anything)
EFFECTS = ("assignment_expression", "update_expression", "call_expression", "comma_expression")
ARITHMETIC = ("+", "-", "*", "/", "%")
# the integer types for which `T op T` (and `T op int literal`) has type T after the usual conversions
INT_TYPES = ("int", "long", "long int", "long long", "long long int", "unsigned", "unsigned int",
             "unsigned long", "unsigned long int", "unsigned long long")


def apply_edits(data: bytes, edits: list[Edit]) -> str:
    out = bytearray()
    pos = 0
    for start, end, text in sorted(edits):
        if start < pos:
            continue  # overlapping edits: keep the first
        out += data[pos:start] + text.encode()
        pos = end
    out += data[pos:]
    return out.decode("utf-8", "surrogatepass")


def body(text: str, function: str) -> tuple[ts.Node | None, bytes]:
    tree, data = parse(text)
    return function_node(tree, data, function), data


def indent(node: ts.Node) -> str:
    return " " * node.start_point[1]


def pure(node: ts.Node) -> bool:
    """No assignment, increment, call or comma anywhere in the expression: evaluating it twice, or
    earlier, changes nothing."""
    return not any(n.type in EFFECTS for n in walk(node))


def has_comment(node: ts.Node) -> bool:
    return any(n.type == "comment" for n in walk(node))


def unparen(node: ts.Node) -> ts.Node:
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


def cond_text(cond: ts.Node, data: bytes) -> str:
    """The condition of an if/while/switch without its own parentheses."""
    inner = node_text(cond, data).strip()
    return inner[1:-1].strip() if inner.startswith("(") and inner.endswith(")") else inner


def block_statements(node: ts.Node) -> list[ts.Node]:
    """A branch's statements: the compound statement's children, or the single statement itself."""
    if node.type == "compound_statement":
        return [c for c in node.named_children]
    return [node]


def variable_types(fn: ts.Node, data: bytes) -> dict[str, tuple[str, int]]:
    """Parameters and locals of the function: name -> (base type without qualifiers, pointer depth),
    an array counting as one level. Names declared twice (shadowing) are dropped: their type is not
    one thing."""
    out: dict[str, tuple[str, int]] = {}
    seen: set[str] = set()
    for decl in walk(fn):
        if decl.type not in ("parameter_declaration", "declaration"):
            continue
        base = " ".join(node_text(c, data) for c in decl.children
                        if c.type in ("primitive_type", "sized_type_specifier", "type_identifier"))
        for child in decl.children_by_field_name("declarator"):
            depth, node = 0, child
            while True:
                if node.type == "init_declarator":
                    node = node.child_by_field_name("declarator")
                elif node.type in ("pointer_declarator", "array_declarator"):
                    depth += 1
                    node = node.child_by_field_name("declarator")
                else:
                    break
                if node is None:
                    break
            if node is None or node.type != "identifier":
                continue
            name = node_text(node, data)
            if name in seen:
                out.pop(name, None)
                continue
            seen.add(name)
            out[name] = (" ".join(base.split()), depth)
    return out


def int_type(expr: ts.Node, data: bytes, types: dict[str, tuple[str, int]]) -> str | None:
    """The type of an arithmetic expression when every leaf has one integer type T (decimal literals
    allowed, as `T op literal` has type T for T of rank int or above); None when unsure."""
    found: set[str] = set()

    def visit(node: ts.Node) -> bool:
        node = unparen(node)
        if node.type == "number_literal":
            return node_text(node, data).isdigit()
        if node.type == "identifier":
            kind = types.get(node_text(node, data))
            if kind is None or kind[1] != 0:
                return False
            found.add(kind[0])
            return True
        if node.type == "subscript_expression":
            arr, idx = node.child_by_field_name("argument"), node.child_by_field_name("index")
            if arr is None or idx is None or arr.type != "identifier":
                return False
            kind = types.get(node_text(arr, data))
            if kind is None or kind[1] != 1:
                return False
            found.add(kind[0])
            return pure(idx)
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            return (op is not None and node_text(op, data) in ARITHMETIC and left is not None
                    and right is not None and visit(left) and visit(right))
        return False

    if not visit(expr) or len(found) != 1:
        return None
    kind = found.pop()
    return kind if kind in INT_TYPES else None
