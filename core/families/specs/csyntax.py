"""C syntax with tree-sitter-c: annotations (ACSL comments), code tokens, signatures, control-flow class.

ACSL lives in comments that start with `/*@` or `//@`; tree-sitter parses every comment as a `comment`
node, so a comment or a string that merely *contains* `/*@` is never taken for an annotation. The
program "outside the annotations" is the sequence of code tokens (comments and `#include` lines left
out), which is what the extractor compares to catch a reply that edits the code; directives are compared
whole, as the preprocessor reads them, by `cpp.compare_directives`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter as ts
import tree_sitter_c as tsc

LOOPS = ("for_statement", "while_statement", "do_statement")
BRANCHES = ("if_statement", "conditional_expression", "switch_statement", "return_statement",
            "break_statement", "continue_statement", "goto_statement")
CONTROL_FLOWS = ("sequential", "branching", "single_path_loop", "multi_path_loop", "nested_loop")


@functools.cache
def _parser() -> ts.Parser:
    return ts.Parser(ts.Language(tsc.language()))


def parse(text: str) -> tuple[ts.Tree, bytes]:
    data = text.encode("utf-8", "surrogatepass")
    return _parser().parse(data), data


def walk(node: ts.Node) -> Iterator[ts.Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def node_text(node: ts.Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def is_annotation(text: str) -> bool:
    return text.startswith("/*@") or text.startswith("//@")


@dataclass
class Annotation:
    start: int  # byte offsets in the source
    end: int
    line: int  # 1-based first line
    line_end: int
    text: str


def annotations(text: str) -> list[Annotation]:
    tree, data = parse(text)
    found = []
    for node in walk(tree.root_node):
        if node.type == "comment":
            body = node_text(node, data)
            if is_annotation(body):
                found.append(Annotation(node.start_byte, node.end_byte, node.start_point[0] + 1,
                                        node.end_point[0] + 1, body))
    return found


def strip_annotations(text: str) -> str:
    """The program with every ACSL annotation removed; a line that held only annotation text goes too."""
    spans = [(a.start, a.end) for a in annotations(text)]
    if not spans:
        return text
    data = text.encode("utf-8", "surrogatepass")
    keep = bytearray(data)
    marked = [False] * len(data)
    for start, end in spans:
        for i in range(start, end):
            marked[i] = True
    out_lines: list[str] = []
    pos = 0
    for raw in data.split(b"\n"):
        end = pos + len(raw)
        kept = bytes(keep[i] for i in range(pos, end) if not marked[i])
        touched = any(marked[pos:end])
        if not (touched and not kept.strip()):
            out_lines.append(kept.decode("utf-8", "replace").rstrip() if touched else raw.decode("utf-8", "replace"))
        pos = end + 1
    return "\n".join(out_lines)


@dataclass
class Token:
    text: str
    line: int  # 1-based
    col: int


def code_tokens(text: str) -> list[Token]:
    """Leaf tokens of the program outside comments and #include directives."""
    tree, data = parse(text)
    tokens: list[Token] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in ("comment", "preproc_include"):
            continue
        if node.child_count == 0:
            body = node_text(node, data)
            if body.strip():
                tokens.append(Token(body, node.start_point[0] + 1, node.start_point[1]))
            continue
        if node.type in ("string_literal", "char_literal", "number_literal", "system_lib_string"):
            tokens.append(Token(node_text(node, data), node.start_point[0] + 1, node.start_point[1]))
            continue
        stack.extend(reversed(node.children))
    return tokens


@dataclass
class CodeDiff:
    same: bool
    expected_line: int = 0
    got_line: int = 0
    expected: str = ""
    got: str = ""


def compare_code(task_code: str, annotated: str) -> CodeDiff:
    """Whether `annotated` is `task_code` plus annotations (token by token, ignoring layout and comments)."""
    want, have = code_tokens(task_code), code_tokens(annotated)
    for i in range(max(len(want), len(have))):
        a = want[i] if i < len(want) else None
        b = have[i] if i < len(have) else None
        if a is None or b is None or a.text != b.text:
            return CodeDiff(False, a.line if a else 0, b.line if b else 0, a.text if a else "(end)",
                            b.text if b else "(end)")
    return CodeDiff(True)


# ---- functions and signatures -------------------------------------------------------------------
@dataclass
class Param:
    name: str
    base: str  # int, char, long, unsigned, ...
    pointer: bool
    const: bool = False


@dataclass
class Signature:
    name: str
    returns: str  # "void", "int", "char", ...
    params: list[Param] = field(default_factory=list)


def _declarator_name(node: ts.Node, data: bytes) -> tuple[str, bool]:
    pointer = False
    while node.type in ("pointer_declarator", "array_declarator", "parenthesized_declarator"):
        pointer = True
        inner = node.child_by_field_name("declarator")
        if inner is None:
            break
        node = inner
    return node_text(node, data), pointer


def functions(text: str) -> dict[str, ts.Node]:
    tree, _ = parse(text)
    _, data = parse(text)
    out = {}
    for node in tree.root_node.children:
        if node.type == "function_definition":
            decl = node.child_by_field_name("declarator")
            while decl is not None and decl.type == "pointer_declarator":
                decl = decl.child_by_field_name("declarator")
            if decl is not None and decl.type == "function_declarator":
                name = decl.child_by_field_name("declarator")
                if name is not None:
                    out[node_text(name, data)] = node
    return out


def signature(text: str, function: str) -> Signature | None:
    tree, data = parse(text)
    for node in tree.root_node.children:
        if node.type != "function_definition":
            continue
        decl = node.child_by_field_name("declarator")
        if decl is None or decl.type != "function_declarator":
            continue
        name_node = decl.child_by_field_name("declarator")
        if name_node is None or node_text(name_node, data) != function:
            continue
        type_node = node.child_by_field_name("type")
        returns = " ".join(node_text(type_node, data).split()) if type_node is not None else "int"
        params = []
        plist = decl.child_by_field_name("parameters")
        for p in plist.named_children if plist is not None else []:
            if p.type != "parameter_declaration":
                continue
            ptype = p.child_by_field_name("type")
            base = " ".join(node_text(ptype, data).split()) if ptype is not None else "int"
            pdecl = p.child_by_field_name("declarator")
            if pdecl is None:
                continue  # `void`
            pname, pointer = _declarator_name(pdecl, data)
            const = any(c.type == "type_qualifier" and node_text(c, data) == "const" for c in p.children)
            params.append(Param(pname, base, pointer, const))
        return Signature(function, returns, params)
    return None


def function_names(text: str) -> list[str]:
    tree, data = parse(text)
    names = []
    for node in tree.root_node.children:
        if node.type == "function_definition":
            decl = node.child_by_field_name("declarator")
            if decl is not None and decl.type == "function_declarator":
                name = decl.child_by_field_name("declarator")
                if name is not None:
                    names.append(node_text(name, data))
    return names


def function_node(tree: ts.Tree, data: bytes, function: str) -> ts.Node | None:
    for node in tree.root_node.children:
        if node.type == "function_definition":
            decl = node.child_by_field_name("declarator")
            if decl is not None and decl.type == "function_declarator":
                name = decl.child_by_field_name("declarator")
                if name is not None and node_text(name, data) == function:
                    return node
    return None


def calls_in(node: ts.Node, data: bytes) -> set[str]:
    out = set()
    for n in walk(node):
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "identifier":
                out.add(node_text(fn, data))
    return out


def loop_count(text: str, function: str) -> int:
    tree, data = parse(text)
    fn = function_node(tree, data, function)
    return 0 if fn is None else sum(1 for n in walk(fn) if n.type in LOOPS)


def control_flow(text: str, function: str) -> str:
    """The paper's five control-flow classes, decided from the syntax tree of `function`."""
    tree, data = parse(text)
    fn = function_node(tree, data, function)
    if fn is None:
        return "sequential"
    body = fn.child_by_field_name("body")
    loops = [n for n in walk(fn) if n.type in LOOPS]
    if not loops:
        branching = any(n.type in BRANCHES and n.type != "return_statement" for n in walk(fn))
        returns = sum(1 for n in walk(fn) if n.type == "return_statement")
        return "branching" if branching or returns > 1 else "sequential"
    for loop in loops:
        if any(n is not loop and n.type in LOOPS for n in walk(loop)):
            return "nested_loop"
    for loop in loops:
        inner = loop.child_by_field_name("body")
        if inner is not None and any(n.type in BRANCHES for n in walk(inner)):
            return "multi_path_loop"
        cond = loop.child_by_field_name("condition")
        if cond is not None and any(n.type == "binary_expression" and n.child_by_field_name("operator") is not None
                                    and node_text(n.child_by_field_name("operator"), data) in ("&&", "||")
                                    for n in walk(cond)):
            return "multi_path_loop"
    del body
    return "single_path_loop"
