"""Semantic-preserving transformations (paper §5, Algorithm 1), on tree-sitter-java syntax trees.

- `rename`: every variable (locals, parameters, catch and for-each variables, fields of the snippet's
  classes), every method the snippet declares that cannot override or be called on another type
  (not `main`, not @Override, no `x.m()` call anywhere uses its name), the snippet's own classes and
  its package get fresh three-word names. Declarations are resolved through nested scopes, so a name
  that is shadowed or reused is renamed per declaration. Type identifiers of library types are never
  touched: they are what the task is about.
- `lower`: method calls, object creations, casts, field reads and binary expressions inside a
  statement are hoisted, in evaluation order, into `var <fresh> = <expr>;` lines just before it (not
  the expression of an expression statement itself, not loop conditions or for headers, not operands
  of `&&`, `||` or `?:`, not lambda bodies, not assignment targets or qualifiers); field initialisers
  become an initialiser block after the field (`static` for static fields).
- `comments`: a `//<keyword>` comment at the end of every code line, never where the line ends inside a
  string, a text block or a comment (import, package and blank lines are left alone, as in the
  authors' script).
Each keeps the snippet compilable with the same imports (the tests compile every preset variant).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import tree_sitter as ts

from core.families.imports.snippet import JAVA_KEYWORDS, node_text, parse

# Three of these make a name (the paper uses a word list from Thalia's generator; this one is ours).
WORDS = (
    "amber", "anchor", "apple", "arrow", "aspen", "badger", "basil", "beacon", "birch", "bison", "bramble",
    "breeze", "brook", "cactus", "canyon", "cedar", "cinder", "clover", "cobalt", "comet", "coral", "cosmos",
    "cricket", "crimson", "dahlia", "delta", "dune", "ember", "falcon", "fern", "fjord", "flint", "garnet",
    "gecko", "ginger", "glacier", "granite", "grove", "harbor", "hazel", "heron", "hollow", "indigo", "iris",
    "ivory", "jasper", "juniper", "kelp", "kestrel", "lagoon", "lantern", "larch", "lemon", "lilac", "lotus",
    "lynx", "magma", "maple", "marble", "meadow", "mesa", "mint", "moss", "nectar", "nimbus", "nutmeg",
    "oasis", "obsidian", "ochre", "olive", "onyx", "orchid", "osprey", "otter", "pebble", "pepper", "pine",
    "plume", "poppy", "prairie", "quartz", "quill", "raven", "reef", "ridge", "river", "robin", "saffron",
    "sage", "salmon", "sapphire", "sequoia", "shale", "sierra", "slate", "sparrow", "spruce", "summit",
    "tangle", "thistle", "thunder", "tide", "timber", "topaz", "tulip", "tundra", "umber", "valley", "velvet",
    "violet", "walnut", "willow", "wren", "yarrow", "zephyr", "zinc",
)
KEYWORDS = (*JAVA_KEYWORDS, "_", "exports", "opens", "requires", "uses", "yield", "module", "permits", "sealed",
            "var", "non-sealed", "provides", "to", "when", "open", "record", "transitive", "with")
TRANSFORMS = ("rename", "lower", "comments")


class Names:
    """Fresh three-word names, never equal to an identifier already in the code."""

    def __init__(self, code: str, rng: random.Random) -> None:
        self.rng = rng
        self.taken = set(re.findall(r"[A-Za-z_$][A-Za-z0-9_$]*", code))

    def fresh(self, lower_first: bool = False) -> str:
        while True:
            words = [self.rng.choice(WORDS) for _ in range(3)]
            name = "".join(w.capitalize() for w in words)
            if lower_first:
                name = name[0].lower() + name[1:]
            if name not in self.taken:
                self.taken.add(name)
                return name


def _walk(node: ts.Node) -> Iterator[ts.Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _apply(data: bytes, edits: list[tuple[int, int, str]]) -> str:
    """Replace byte ranges (non-overlapping) by texts."""
    out = bytearray()
    last = 0
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < last:
            continue  # overlapping edit: keep the first
        out += data[last:start] + text.encode("utf-8", "surrogatepass")
        last = end
    out += data[last:]
    return out.decode("utf-8", "surrogatepass")


# ---- renaming ----------------------------------------------------------------------------------
SCOPES = ("block", "method_declaration", "constructor_declaration", "lambda_expression", "for_statement",
          "enhanced_for_statement", "catch_clause", "try_with_resources_statement", "class_body",
          "switch_block_statement_group", "interface_body", "enum_body_declarations")


def rename(code: str, rng: random.Random) -> str:
    data = code.encode("utf-8", "surrogatepass")
    tree = parse(code)
    names = Names(code, rng)
    text = lambda n: node_text(data, n)  # noqa: E731
    root = tree.root_node

    # Methods that must keep their names: called on an expression or overriding (paper lines 5-11).
    skip: set[str] = {"main"}
    for n in _walk(root):
        if n.type == "method_invocation" and n.child_by_field_name("object") is not None:
            skip.add(text(n.child_by_field_name("name")))
        elif n.type == "method_reference":
            skip.update(text(c) for c in n.children if c.type == "identifier")
    methods: dict[str, str] = {}
    classes: dict[str, str] = {}
    edits: list[tuple[int, int, str]] = []
    for n in _walk(root):
        if n.type == "method_declaration":
            mods = next((c for c in n.children if c.type == "modifiers"), None)
            name = text(n.child_by_field_name("name"))
            if name in skip or (mods is not None and "@Override" in text(mods)):
                skip.add(name)
            elif name not in methods:
                methods[name] = names.fresh(lower_first=True)
        elif n.type in ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration"):
            name = text(n.child_by_field_name("name"))
            classes.setdefault(name, names.fresh())
    for name in list(methods):
        if name in skip:
            methods.pop(name)

    scopes: list[dict[str, str]] = [{}]
    var_types: dict[str, str] = {}  # new variable name -> its declared type's text
    fields: dict[str, str] = {}  # a field name of the snippet's classes -> its new name (one per name)

    def declare(ident: ts.Node, type_node: ts.Node | None = None, field: bool = False) -> None:
        old = text(ident)
        if field:
            new = fields.setdefault(old, names.fresh(lower_first=True))
        else:
            new = names.fresh(lower_first=True)
        scopes[-1][old] = new
        if type_node is not None:
            var_types[new] = text(type_node)
        edits.append((ident.start_byte, ident.end_byte, new))

    def lookup(name: str) -> str | None:
        for scope in reversed(scopes):
            if name in scope:
                return scope[name]
        return None

    def own_object(obj: ts.Node) -> bool:
        """Is `obj` (of `obj.f`) a value or name of one of the snippet's own classes?"""
        if obj.type == "this":
            return True
        if obj.type == "identifier":
            new = lookup(text(obj))
            if new is None:
                return text(obj) in classes
            return var_types.get(new, "").split("<")[0].strip() in classes
        if obj.type == "object_creation_expression":
            type_node = obj.child_by_field_name("type")
            return type_node is not None and text(type_node) in classes
        return False

    def visit(n: ts.Node) -> None:
        t = n.type
        opened = t in SCOPES
        if opened:
            scopes.append({})
            if t in ("class_body", "interface_body", "enum_body_declarations"):
                for member in n.children:  # fields are visible in the whole body
                    if member.type == "field_declaration":
                        for d in member.children:
                            if d.type == "variable_declarator":
                                declare(d.child_by_field_name("name"), member.child_by_field_name("type"),
                                        field=True)
        if t == "package_declaration":
            for c in n.children:
                if c.type in ("scoped_identifier", "identifier"):
                    edits.append((c.start_byte, c.end_byte, names.fresh(lower_first=True).lower()))
            return
        if t in ("import_declaration", "annotation", "marker_annotation"):
            return
        if t == "variable_declarator" and n.parent is not None and n.parent.type == "local_variable_declaration":
            value = n.child_by_field_name("value")
            if value is not None:
                visit(value)  # the initialiser cannot see the variable it declares (except itself: rare)
            declare(n.child_by_field_name("name"), n.parent.child_by_field_name("type"))
            return
        if t in ("formal_parameter", "catch_formal_parameter", "spread_parameter", "resource"):
            for c in n.children:
                if c.type not in ("identifier", "variable_declarator"):
                    visit(c)
            name = n.child_by_field_name("name")
            if name is None:
                name = next((c for c in n.children if c.type == "identifier"), None)
            if name is not None:
                declare(name, n.child_by_field_name("type"))
            if opened:
                scopes.pop()
            return
        if t == "enhanced_for_statement":
            value = n.child_by_field_name("value")
            if value is not None:
                visit(value)
            name = n.child_by_field_name("name")
            if name is not None:
                declare(name)
            body = n.child_by_field_name("body")
            if body is not None:
                visit(body)
            scopes.pop()
            return
        if t == "lambda_expression":
            params = n.child_by_field_name("parameters")
            if params is not None and params.type == "identifier":
                declare(params)
            elif params is not None:
                for c in params.children:
                    if c.type == "identifier":
                        declare(c)
                    else:
                        visit(c)
            body = n.child_by_field_name("body")
            if body is not None:
                visit(body)
            scopes.pop()
            return
        if t in ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration"):
            name = n.child_by_field_name("name")
            edits.append((name.start_byte, name.end_byte, classes[text(name)]))
        elif t == "constructor_declaration":
            name = n.child_by_field_name("name")
            if text(name) in classes:
                edits.append((name.start_byte, name.end_byte, classes[text(name)]))
        elif t == "method_declaration":
            name = n.child_by_field_name("name")
            if text(name) in methods:
                edits.append((name.start_byte, name.end_byte, methods[text(name)]))
        elif t == "type_identifier" and text(n) in classes:
            parent = n.parent
            if parent is None or parent.type != "scoped_type_identifier" or parent.children[0] is n:
                edits.append((n.start_byte, n.end_byte, classes[text(n)]))
        elif t == "method_invocation":
            name = n.child_by_field_name("name")
            if n.child_by_field_name("object") is None and text(name) in methods:
                edits.append((name.start_byte, name.end_byte, methods[text(name)]))
            for c in n.children:
                if c is not name:
                    visit(c)
            if opened:
                scopes.pop()
            return
        elif t == "field_access":
            obj = n.child_by_field_name("object")
            field = n.child_by_field_name("field")
            if obj is not None:
                visit(obj)
                if field is not None and text(field) in fields and own_object(obj):
                    edits.append((field.start_byte, field.end_byte, fields[text(field)]))
            if opened:
                scopes.pop()
            return
        elif t == "identifier":
            parent = n.parent
            if parent is not None and parent.type in ("scoped_identifier", "labeled_statement", "break_statement",
                                                     "continue_statement", "method_reference"):
                return
            new = lookup(text(n))
            if new is not None:
                edits.append((n.start_byte, n.end_byte, new))
            elif text(n) in classes:  # `Main.helper()`: the snippet's class used as a qualifier
                edits.append((n.start_byte, n.end_byte, classes[text(n)]))
            return
        for c in n.children:
            visit(c)
        if opened:
            scopes.pop()

    visit(root)
    return _apply(data, edits)


# ---- code lowering -----------------------------------------------------------------------------
HOISTABLE = ("method_invocation", "object_creation_expression", "cast_expression", "field_access",
             "binary_expression")
BARRIERS = ("lambda_expression", "class_body", "ternary_expression", "switch_expression", "array_initializer")
STATEMENT_PARENTS = ("block", "switch_block_statement_group", "constructor_body")


def _statement_of(node: ts.Node) -> ts.Node | None:
    """The statement directly inside a block that contains `node`, or None when hoisting out of the
    expression would change when or whether it runs."""
    child = node
    parent = node.parent
    while parent is not None:
        t = parent.type
        if t in BARRIERS:
            return None
        if t in ("while_statement", "do_statement") and parent.child_by_field_name("condition") == child:
            return None
        if t == "for_statement" and child != parent.child_by_field_name("body"):
            return None
        if t in ("try_with_resources_statement", "resource_specification", "explicit_constructor_invocation",
                 "enhanced_for_statement") and child != parent.child_by_field_name("body"):
            return None
        if t == "binary_expression" and any(self_op in ("&&", "||") for self_op in
                                            [c.type for c in parent.children if not c.is_named]):
            return None
        if t == "assignment_expression" and child == parent.child_by_field_name("left"):
            return None
        if t == "update_expression":
            return None
        if t in STATEMENT_PARENTS:
            if parent.type == "constructor_body" and child.type == "explicit_constructor_invocation":
                return None
            return child
        if t in ("if_statement", "while_statement", "for_statement", "do_statement", "labeled_statement",
                 "enhanced_for_statement", "try_statement", "catch_clause", "finally_clause", "switch_block",
                 "synchronized_statement") and child.type.endswith("statement") or child.type == "block":
            return None  # inside a nested statement that is not itself in a block position
        child, parent = parent, parent.parent
    return None


def _hoistable(node: ts.Node, data: bytes) -> bool:
    if node.type not in HOISTABLE:
        return False
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "expression_statement":
        return False
    if parent.type in ("method_invocation", "field_access") and parent.child_by_field_name("object") == node:
        # a qualifier: fine when it is a call or creation, never a (possibly package or type) name chain
        if node.type == "field_access":
            return False
    if node.type == "object_creation_expression":
        if node.child_by_field_name("body") is not None:
            return False  # anonymous classes stay where they are
        type_node = node.child_by_field_name("type")
        if type_node is not None and "<>" in node_text(data, type_node).replace(" ", ""):
            return False  # a diamond takes its type arguments from the context
    if node.type == "binary_expression" and any(c.type in ("&&", "||") for c in node.children):
        return True
    if any(n.type in ("lambda_expression", "method_reference") for n in _walk(node)):
        return False
    return True


def lower(code: str, rng: random.Random) -> str:
    names = Names(code, rng)
    code = _lower_fields(code)
    data = code.encode("utf-8", "surrogatepass")
    tree = parse(code)
    # statement -> expressions hoisted out of it, in evaluation order (post-order, left to right)
    plans: dict[int, tuple[ts.Node, list[ts.Node]]] = {}

    def post(n: ts.Node) -> Iterator[ts.Node]:
        for c in n.children:
            yield from post(c)
        yield n

    for n in post(tree.root_node):
        if not _hoistable(n, data):
            continue
        stmt = _statement_of(n)
        if stmt is None or stmt.type not in ("local_variable_declaration", "expression_statement", "return_statement",
                             "if_statement", "throw_statement", "switch_statement", "synchronized_statement"):
            continue
        plans.setdefault(stmt.start_byte, (stmt, []))[1].append(n)
    edits: list[tuple[int, int, str]] = []
    for _start, (stmt, nodes) in sorted(plans.items()):
        # Rewrite inner expressions first: an outer one's text uses the temps of the inner ones.
        temp_of: dict[tuple[int, int], str] = {}
        lines: list[str] = []
        indent = _indent(data, stmt)
        for node in nodes:
            text = _render(data, node, temp_of)
            temp = names.fresh(lower_first=True)
            temp_of[(node.start_byte, node.end_byte)] = temp
            lines.append(f"var {temp} = {text};")
        outer = [n for n in nodes if not any(o is not n and o.start_byte <= n.start_byte and n.end_byte <= o.end_byte
                                             for o in nodes)]
        stmt_text = _render(data, stmt, {k: v for k, v in temp_of.items()
                                         if any((o.start_byte, o.end_byte) == k for o in outer)})
        block = "".join(f"{line}\n{indent}" for line in lines) + stmt_text
        edits.append((stmt.start_byte, stmt.end_byte, block))
    return _apply(data, edits)


def _render(data: bytes, node: ts.Node, temps: dict[tuple[int, int], str]) -> str:
    """The node's text with sub-expressions replaced by their temps (outermost replacement wins)."""
    edits: list[tuple[int, int, str]] = []
    for (start, end), temp in temps.items():
        if node.start_byte <= start and end <= node.end_byte and (start, end) != (node.start_byte, node.end_byte):
            if not any(s <= start and end <= e and (s, e) != (start, end) for (s, e) in temps
                       if node.start_byte <= s and e <= node.end_byte and (s, e) != (node.start_byte, node.end_byte)):
                edits.append((start - node.start_byte, end - node.start_byte, temp))
    return _apply(data[node.start_byte:node.end_byte], edits)


def _indent(data: bytes, node: ts.Node) -> str:
    line_start = data.rfind(b"\n", 0, node.start_byte) + 1
    prefix = data[line_start:node.start_byte].decode("utf-8", "replace")
    return prefix if not prefix.strip() else ""


def _lower_fields(code: str) -> str:
    """`T f = init;` in a class body -> `T f;` and an initialiser block `{ f = init; }` after it."""
    data = code.encode("utf-8", "surrogatepass")
    tree = parse(code)
    edits: list[tuple[int, int, str]] = []
    for n in _walk(tree.root_node):
        if n.type != "field_declaration" or n.parent is None or n.parent.type != "class_body":
            continue
        declarators = [c for c in n.children if c.type == "variable_declarator"]
        if not declarators or not all(d.child_by_field_name("value") is not None for d in declarators):
            continue
        if any(d.child_by_field_name("value").type == "array_initializer" for d in declarators):
            continue  # `{1, 2}` is only legal in a declaration
        mods = next((c for c in n.children if c.type == "modifiers"), None)
        static = mods is not None and "static" in node_text(data, mods).split()
        indent = _indent(data, n)
        assigns = []
        local_edits = []
        for d in declarators:
            name, value = d.child_by_field_name("name"), d.child_by_field_name("value")
            assigns.append(f"{node_text(data, name)} = {node_text(data, value)};")
            local_edits.append((name.end_byte - n.start_byte, value.end_byte - n.start_byte, ""))
        declaration = _apply(data[n.start_byte:n.end_byte], local_edits)
        block = f"{declaration}\n{indent}{'static ' if static else ''}{{ {' '.join(assigns)} }}"
        edits.append((n.start_byte, n.end_byte, block))
    return _apply(data, edits)


# ---- keyword comments --------------------------------------------------------------------------
def comments(code: str, rng: random.Random) -> str:
    tree = parse(code)
    spans = [(n.start_byte, n.end_byte) for n in _walk(tree.root_node)
             if n.type in ("line_comment", "block_comment", "string_literal", "text_block", "character_literal")]
    out: list[str] = []
    offset = 0
    for line in code.split("\n"):
        raw_len = len(line.encode("utf-8", "surrogatepass"))
        end = offset + raw_len  # byte offset of the line's end
        stripped = line.strip()
        inside = any(s < end <= e for s, e in spans) or any(s <= offset < e and e > end for s, e in spans)
        if stripped and not inside and not stripped.startswith(("import ", "package ")):
            out.append(f"{line} //{rng.choice(KEYWORDS)}")
        else:
            out.append(line)
        offset = end + 1
    return "\n".join(out)


def apply(code: str, name: str, rng: random.Random) -> str:
    if name == "rename":
        return rename(code, rng)
    if name == "lower":
        return lower(code, rng)
    if name == "comments":
        return comments(code, rng)
    raise ValueError(f"unknown transformation '{name}' (known: {', '.join(TRANSFORMS)})")


def apply_all(code: str, names: list[str], rng: random.Random) -> str:
    for name in names:
        code = apply(code, name, rng)
    return code
