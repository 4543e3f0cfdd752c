"""Ghost code in a reply: it may use the program's own functions and variables and its own ghost
variables, nothing else.

ACSL ghost code (`/*@ ghost ... */`, `//@ ghost ...`) is C that Frama-C adds to the program: E-ACSL
compiles and runs it (the counterexample search). Ghost code that declares or calls a function the
program does not define (`/*@ ghost int system(); */`, then `system("...")`) has no place in a
specification: it can only reach the C library or the system. Such a reply is refused at extraction, a
second line of defence before the sandbox (docs/sandbox.md).

Each ghost annotation's C text is parsed with tree-sitter (inside a function body, as statements, or
else at file level, as declarations), and refused when it: declares or defines a function other than
one the program defines; calls anything but a function the program defines; or names an identifier that
is neither the program's (its own names, or names it uses from its headers, which it does not call) nor
declared by the ghost code itself as a variable. Ghost text that does not parse as C is refused too.
"""

from __future__ import annotations

import re

from core.families.specs.csyntax import annotations, calls_in, function_names, node_text, parse, walk

_GHOST = re.compile(r"^(?:/\*@|//@)[\s@]*ghost\b")
_NESTED = re.compile(r"/@.*?@/", re.S)  # a contract inside ghost code (`/@ assigns \nothing; @/`)
_WRAPPER = "sembench_ghost_body"
# Constants and names of the standard headers that ghost code may use without the program using them
STANDARD = frozenset({"NULL", "true", "false", "INT_MAX", "INT_MIN", "UINT_MAX", "LONG_MAX", "LONG_MIN",
                      "ULONG_MAX", "LLONG_MAX", "LLONG_MIN", "SHRT_MAX", "SHRT_MIN", "CHAR_MAX", "CHAR_MIN",
                      "SCHAR_MAX", "SCHAR_MIN", "UCHAR_MAX", "SIZE_MAX", "CHAR_BIT"})


def ghost_texts(annotated: str) -> list[tuple[int, str]]:
    """(line, C text) of every ghost annotation."""
    found = []
    for annotation in annotations(annotated):
        match = _GHOST.match(annotation.text)
        if match is None:
            continue
        body = annotation.text[match.end():]
        if annotation.text.startswith("/*@"):
            body = body[:-2] if body.endswith("*/") else body
        # ACSL lets every line of an annotation start with `@`; a nested contract is logic, not code
        body = re.sub(r"(?m)^\s*@", " ", _NESTED.sub(" ", body))
        found.append((annotation.line, body))
    return found


def _tree(text: str):  # noqa: ANN202 - a tree-sitter tree and its bytes, or None
    for source in (f"void {_WRAPPER}(void) {{\n{text}\n}}\n", text):
        tree, data = parse(source)
        if not tree.root_node.has_error:
            return tree, data
    return None


def _declared_name(node, data: bytes) -> str | None:  # noqa: ANN001 - a tree-sitter declarator
    while node is not None and node.type != "identifier":
        node = node.child_by_field_name("declarator")
    return node_text(node, data) if node is not None else None


def check(program: str, annotated: str) -> str:
    """'' when the reply's ghost code uses only what the program defines, else why not (one clause)."""
    texts = ghost_texts(annotated)
    if not texts:
        return ""
    defined = set(function_names(program))
    tree, data = parse(program)
    known = {node_text(n, data) for n in walk(tree.root_node) if n.type == "identifier"}
    called_not_defined = calls_in(tree.root_node, data) - defined
    parsed = []
    own: set[str] = set()  # the ghost variables, declared in any ghost annotation
    for line, text in texts:
        tree_and_data = _tree(text)
        if tree_and_data is None:
            return f"the ghost code at line {line} is not C that can be checked"
        ghost, gdata = tree_and_data
        parsed.append((line, ghost, gdata))
        for node in walk(ghost.root_node):
            if node.type == "function_definition" and _declared_name(node, gdata) != _WRAPPER:
                return f"the ghost code at line {line} defines a function ({_declared_name(node, gdata)})"
            if node.type == "function_declarator":
                name = _declared_name(node, gdata)
                if name not in defined and name != _WRAPPER:
                    return f"the ghost code at line {line} declares `{name}`, a function the program does not define"
            if node.type == "declaration":
                for declarator in node.children_by_field_name("declarator"):
                    name = _declared_name(declarator, gdata)
                    if name:
                        own.add(name)
    for line, ghost, gdata in parsed:
        for node in walk(ghost.root_node):
            if node.type == "call_expression":
                callee = node.child_by_field_name("function")
                name = node_text(callee, gdata) if callee is not None else ""
                if callee is None or callee.type != "identifier" or name not in defined:
                    return f"the ghost code at line {line} calls `{name}`, which is not a function the program defines"
            if node.type != "identifier":
                continue
            name = node_text(node, gdata)
            if name == _WRAPPER or (name in own and name not in defined | called_not_defined):
                continue
            if name in called_not_defined or (name not in known and name not in STANDARD):
                return f"the ghost code at line {line} uses `{name}`, which the program does not define"
    return ""
