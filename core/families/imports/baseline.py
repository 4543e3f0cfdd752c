"""An SnR-style constraint-based baseline (Dong et al., ICSE 2022), solved against the knowledge base.

1. Every simple name the snippet uses as a type (declarations, `new`, casts, generics, `X.m()`, `X.F`,
   `X.class`, extends/implements, catch, annotations `@X`) that it does not declare itself and that is
   not in java.lang is a variable whose domain is the knowledge base's public types of that simple name.
2. Constraints come from the snippet, in source order, each with its span:
   - `new T(a, b)`: T has a public constructor of that arity whose parameters accept the known
     argument types;
   - `T.m(..)` / `T.F`: T has a static method / field of that name (and arity);
   - `v.m(..)`, `v.f`, chains `v.m().n()`: the receiver's type (a declared variable's type, a `var`'s
     initialiser, a previous call's return type) has the method (arity, argument types) or field;
   - `T v = e`, and `v = e` to a declared `T v`: the type of `e` (a constructor, a method's return type,
     a field's type) is assignable to T;
   - `@A(k = v, k2 = {w})`: A is an annotation type with elements `k`, `k2` whose types accept the values
     (a lone value is the element `value`), so `@ManyToOne(cascade = CascadeType.ALL)` picks JPA's
     `CascadeType`, and `@Entity` cannot be `org.w3c.dom.Entity`;
   - `T<A, B>`: T has two type parameters (`T<>`: some), so `List<String>` is `java.util.List`, never
     `java.awt.List` or `org.hibernate.mapping.List`.
   A constraint filters the domain of every name it mentions: a candidate stays when SOME choice of
   the other names satisfies it (generalised arc consistency), repeated until nothing changes.
3. Each name left with candidates gets one: the instance's library first (its packages, and the `javax.`
   APIs shipped in its own jars: JPA for Hibernate), then a package another resolved name uses, then
   the JDK; between `java.` types, the one more of the knowledge base's signatures name (`java.util.Date`,
   named by 152, over `java.sql.Date`, by 26: the JDK's own use of a type as a measure of how common it
   is); then alphabetical order (SnR breaks ties by order too).
Comments, identifiers' spelling and statement structure do not matter, so the paper's transformations
leave its answer unchanged (checked by the tests). The work is bounded by the snippet's size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import tree_sitter as ts

from core.families.imports.kb import OBJECT, PRIMITIVES, KnowledgeBase
from core.families.imports.snippet import node_text, parse

Types = frozenset[str] | None  # None: unknown (anything); a set: the possible erased FQNs
NULL = "<null>"
BOXES = {"int": "java.lang.Integer", "long": "java.lang.Long", "double": "java.lang.Double",
         "float": "java.lang.Float", "boolean": "java.lang.Boolean", "char": "java.lang.Character",
         "byte": "java.lang.Byte", "short": "java.lang.Short"}
NUMERIC = ("byte", "short", "char", "int", "long", "float", "double")
MAX_ROUNDS = 6
ANNOTATIONS = ("marker_annotation", "annotation")


@dataclass
class Constraint:
    kind: str  # new, call, field, assign, annotation, generic
    text: str
    names: tuple[str, ...]
    node: ts.Node
    check: Callable[[dict[str, frozenset[str]]], bool]
    line: int = 0
    col_start: int = 0
    col_end: int = 0
    line_end: int = 0


@dataclass
class Analysis:
    code: str
    names: dict[str, list[str]]  # simple name -> initial candidates (sorted)
    spans: dict[str, tuple[int, int, int]]  # first use: (line, col_start, col_end)
    unresolved: list[str]  # used as types but unknown to the knowledge base
    constraints: list[Constraint] = field(default_factory=list)


@dataclass
class Step:
    constraint: Constraint | None
    label: str
    domains: dict[str, list[str]]
    changed: list[str]
    round: int


@dataclass
class Solution:
    analysis: Analysis
    steps: list[Step]
    domains: dict[str, list[str]]
    chosen: dict[str, str]
    contradictions: list[str]

    @property
    def imports(self) -> list[str]:
        return sorted(set(self.chosen.values()))


class _Snippet:
    """Names and types of one parsed snippet."""

    def __init__(self, code: str, kb: KnowledgeBase) -> None:
        self.code = code
        self.kb = kb
        self.data = code.encode("utf-8", "surrogatepass")
        self.tree = parse(code)
        self.declared_types: set[str] = set()  # classes, interfaces, type parameters of the snippet
        self.variables: dict[str, ts.Node] = {}  # name -> declared type node, or the initialiser of a `var`
        self.type_uses: list[ts.Node] = []
        self._collect(self.tree.root_node)

    def text(self, node: ts.Node) -> str:
        return node_text(self.data, node)

    def _collect(self, root: ts.Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            t = node.type
            if t in ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
                     "annotation_type_declaration"):
                name = node.child_by_field_name("name")
                if name is not None:
                    self.declared_types.add(self.text(name))
            elif t == "type_parameter":
                for child in node.children:
                    if child.type in ("type_identifier", "identifier"):
                        self.declared_types.add(self.text(child))
                        break
            elif t in ("local_variable_declaration", "field_declaration"):
                type_node = node.child_by_field_name("type")
                for child in node.children:
                    if child.type == "variable_declarator":
                        name = child.child_by_field_name("name")
                        value = child.child_by_field_name("value")
                        if name is None:
                            continue
                        is_var = type_node is not None and self.text(type_node) == "var"
                        target = value if is_var and value is not None else type_node
                        if target is not None and child.child_by_field_name("dimensions") is None:
                            self.variables.setdefault(self.text(name), target)
            elif t in ("formal_parameter", "catch_formal_parameter", "enhanced_for_statement", "resource"):
                type_node = node.child_by_field_name("type")
                name = node.child_by_field_name("name")
                if type_node is None and t == "catch_formal_parameter":
                    type_node = next((c for c in node.children if c.type == "catch_type"), None)
                if type_node is not None and name is not None:
                    self.variables.setdefault(self.text(name), type_node)
            if t == "type_identifier":
                self.type_uses.append(node)
            stack.extend(reversed(node.children))

    # -- which simple names are types to infer ---------------------------------------------------
    def is_type_name(self, ident: str) -> bool:
        return ident[:1].isupper() and ident not in self.variables

    def type_name_of(self, node: ts.Node) -> str | None:
        """The simple name to import for a type node (`Map.Entry` -> Map; `a.b.C` -> None)."""
        if node.type == "type_identifier":
            return self.text(node)
        if node.type == "scoped_type_identifier":
            first = node
            while first.children and first.children[0].type in ("scoped_type_identifier", "type_identifier"):
                first = first.children[0]
                if first.type == "type_identifier":
                    break
            head = self.text(first)
            return head if head[:1].isupper() else None
        if node.type == "generic_type":
            return self.type_name_of(node.children[0])
        return None


class Solver:
    def __init__(self, code: str, kb: KnowledgeBase) -> None:
        self.kb = kb
        self.s = _Snippet(code, kb)
        self.java_lang = {t.simple for t in kb.types.values()
                          if t.public and t.outer is None and t.fqn == f"java.lang.{t.simple}"}
        self.names: dict[str, list[str]] = {}
        self.spans: dict[str, tuple[int, int, int]] = {}
        self.unresolved: list[str] = []
        self.constraints: list[Constraint] = []

    # -- names ----------------------------------------------------------------------------------
    def _add_name(self, name: str, node: ts.Node) -> None:
        if name in self.s.declared_types or name in self.java_lang or name in PRIMITIVES or name == "var":
            return
        if name in self.names or name in self.unresolved:
            return
        candidates = self.kb.candidates(name)
        if candidates:
            self.names[name] = list(candidates)
            self.spans[name] = (node.start_point[0] + 1, node.start_point[1], node.end_point[1])
        else:
            self.unresolved.append(name)

    def collect_names(self) -> None:
        uses: list[tuple[int, str, ts.Node]] = []
        for node in self.s.type_uses:
            parent = node.parent
            if parent is not None and parent.type == "scoped_type_identifier" and parent.children[0] is not node:
                continue  # `Map.Entry`: only Map is imported
            uses.append((node.start_byte, self.s.text(node), node))
        for node in self._walk(self.s.tree.root_node):
            if node.type in ("method_invocation", "field_access"):
                obj = node.child_by_field_name("object")
                if obj is not None and obj.type == "identifier" and self.s.is_type_name(self.s.text(obj)):
                    uses.append((obj.start_byte, self.s.text(obj), obj))
            elif node.type == "class_literal":
                first = node.children[0]
                if first.type == "type_identifier":
                    uses.append((first.start_byte, self.s.text(first), first))
            elif node.type in ANNOTATIONS:
                head = self._annotation_head(node)
                if head is not None:
                    uses.append((head.start_byte, self.s.text(head), head))
        for _start, name, node in sorted(uses, key=lambda u: u[0]):
            self._add_name(name, node)

    def _annotation_head(self, node: ts.Node) -> ts.Node | None:
        """The simple name to import for `@A` / `@A(..)` / `@Outer.A` (None for `@a.b.A`)."""
        name = node.child_by_field_name("name")
        while name is not None and name.type == "scoped_identifier":
            name = name.child_by_field_name("scope")
        if name is None or name.type != "identifier" or not self.s.text(name)[:1].isupper():
            return None
        return name

    def _annotation_type(self, node: ts.Node, dom: dict[str, frozenset[str]]) -> Types:
        name = node.child_by_field_name("name")
        if name is None:
            return None
        text = self.s.text(name).replace(" ", "")
        if name.type == "identifier":
            return self._simple_types(text, dom)
        head = self._annotation_head(node)
        if head is None:  # @a.b.A: fully qualified
            return frozenset({text}) if text in self.kb.types else None
        outers = self._simple_types(self.s.text(head), dom)
        if outers is None:
            return None
        tail = text.split(".", 1)[1]
        return frozenset(f"{o}.{tail}" for o in outers if f"{o}.{tail}" in self.kb.types)

    def _annotation_elements(self, node: ts.Node) -> list[tuple[str, list[ts.Node]]]:
        """(element name, value nodes) of `@A(k = v, k2 = {v1, v2})`; a lone value is `value`."""
        args = node.child_by_field_name("arguments")
        if args is None:
            return []
        out: list[tuple[str, list[ts.Node]]] = []
        for child in args.children:
            if not child.is_named or "comment" in child.type:
                continue
            if child.type == "element_value_pair":
                key = child.child_by_field_name("key")
                value = child.child_by_field_name("value")
                if key is not None:
                    out.append((self.s.text(key), self._element_values(value)))
            else:
                out.append(("value", self._element_values(child)))
        return out

    @staticmethod
    def _element_values(value: ts.Node | None) -> list[ts.Node]:
        if value is None:
            return []
        if value.type == "element_value_array_initializer":
            return [c for c in value.children if c.is_named and "comment" not in c.type]
        return [value]

    @staticmethod
    def _walk(root: ts.Node) -> list[ts.Node]:
        out = []
        stack = [root]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out

    # -- typing under a choice of domains -------------------------------------------------------------
    def type_of_type_node(self, node: ts.Node | None, dom: dict[str, frozenset[str]]) -> Types:
        if node is None:
            return None
        t = node.type
        text = self.s.text(node)
        if t in ("integral_type", "floating_point_type", "boolean_type"):
            return frozenset({text})
        if t == "array_type":
            inner = self.type_of_type_node(node.child_by_field_name("element"), dom)
            return None if inner is None else frozenset(f"{x}[]" for x in inner)
        if t == "generic_type":
            return self.type_of_type_node(node.children[0], dom)
        if t == "scoped_type_identifier":
            if self.s.type_name_of(node) is None:  # fully qualified: a.b.C
                fqn = text.replace(" ", "")
                return frozenset({fqn}) if fqn in self.kb.types else None
            head = self.s.type_name_of(node)
            outers = self._simple_types(head, dom) if head else None
            if outers is None:
                return None
            tail = text.split(".", 1)[1].replace(" ", "")
            return frozenset(f"{o}.{tail}" for o in outers if f"{o}.{tail}" in self.kb.types)
        if t == "type_identifier":
            return self._simple_types(text, dom)
        return None

    def _simple_types(self, name: str, dom: dict[str, frozenset[str]]) -> Types:
        if name in dom:
            return dom[name]
        if name in self.java_lang:
            return frozenset({f"java.lang.{name}"})
        return None  # the snippet's own type, a type parameter, or unknown

    def type_of(self, node: ts.Node | None, dom: dict[str, frozenset[str]], depth: int = 0) -> Types:
        if node is None or depth > 40:
            return None
        t = node.type
        if t == "string_literal" or t == "text_block":
            return frozenset({"java.lang.String"})
        if t == "decimal_integer_literal" or t in ("hex_integer_literal", "octal_integer_literal", "binary_integer_literal"):
            return frozenset({"long" if self.s.text(node).lower().endswith("l") else "int"})
        if t in ("decimal_floating_point_literal", "hex_floating_point_literal"):
            return frozenset({"float" if self.s.text(node).lower().endswith("f") else "double"})
        if t in ("true", "false"):
            return frozenset({"boolean"})
        if t == "character_literal":
            return frozenset({"char"})
        if t == "null_literal":
            return frozenset({NULL})
        if t == "parenthesized_expression":
            inner = [c for c in node.children if c.is_named]
            return self.type_of(inner[0], dom, depth + 1) if inner else None
        if t == "cast_expression":
            return self.type_of_type_node(node.child_by_field_name("type"), dom)
        if t == "object_creation_expression":
            return self.type_of_type_node(node.child_by_field_name("type"), dom)
        if t == "identifier":
            target = self.s.variables.get(self.s.text(node))
            if target is None:
                return None
            if target.type.endswith("_type") or target.type in ("type_identifier", "scoped_type_identifier", "catch_type"):
                return self.type_of_type_node(target, dom) if target.type != "catch_type" else None
            return self.type_of(target, dom, depth + 1)  # a `var`: its initialiser's type
        if t == "method_invocation":
            return self._call_type(node, dom, depth)
        if t == "field_access":
            return self._field_type(node, dom, depth)
        return None

    def _receiver(self, node: ts.Node, dom: dict[str, frozenset[str]], depth: int) -> tuple[Types, bool]:
        """(types of the object of a call or field access, whether it is a type name: a static use)."""
        obj = node.child_by_field_name("object")
        if obj is None:
            return None, False
        if obj.type == "identifier" and self.s.is_type_name(self.s.text(obj)):
            return self._simple_types(self.s.text(obj), dom), True
        return self.type_of(obj, dom, depth + 1), False

    def _args(self, node: ts.Node, dom: dict[str, frozenset[str]], depth: int) -> list[Types]:
        args = node.child_by_field_name("arguments")
        if args is None:
            return []
        return [self.type_of(a, dom, depth + 1) for a in args.children if a.is_named and a.type not in ("line_comment", "block_comment")]

    def accepts(self, param: str, arg: Types) -> bool:
        if arg is None:
            return True
        for a in arg:
            if a == NULL:
                if param not in PRIMITIVES:
                    return True
                continue
            if a == param or param == OBJECT and a not in PRIMITIVES:
                return True
            if a in PRIMITIVES or param in PRIMITIVES:
                if a in PRIMITIVES and param in PRIMITIVES:
                    if a in NUMERIC and param in NUMERIC and NUMERIC.index(a) <= NUMERIC.index(param):
                        return True
                elif BOXES.get(a) == param or BOXES.get(param) == a or (a in PRIMITIVES and param in (
                        "java.lang.Number", "java.io.Serializable", "java.lang.Comparable")):
                    return True
                continue
            if a.endswith("[]") or param.endswith("[]"):
                if a.endswith("[]") and param.endswith("[]") and self.accepts(param[:-2], frozenset({a[:-2]})):
                    return True
                if a.endswith("[]") and param in (OBJECT, "java.lang.Cloneable", "java.io.Serializable"):
                    return True
                continue
            if self.kb.is_subtype(a, param):
                return True
        return False

    def _applicable(self, params: tuple[str, ...], varargs: bool, args: list[Types]) -> bool:
        if varargs:
            if len(args) < len(params) - 1:
                return False
            fixed = params[:-1]
            return all(self.accepts(p, a) for p, a in zip(fixed, args, strict=False))
        if len(params) != len(args):
            return False
        return all(self.accepts(p, a) for p, a in zip(params, args, strict=True))

    def _call_type(self, node: ts.Node, dom: dict[str, frozenset[str]], depth: int) -> Types:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return None
        name = self.s.text(name_node)
        receiver, static = self._receiver(node, dom, depth)
        if node.child_by_field_name("object") is None or receiver is None:
            return None
        args = self._args(node, dom, depth)
        out: set[str] = set()
        for r in receiver:
            if r in PRIMITIVES or r == NULL:
                continue
            if r.endswith("[]"):
                return None  # clone(), length...: not worth modelling
            for m in self.kb.methods(r):
                if m.name == name and (m.static or not static) and self._applicable(m.params, m.varargs, args):
                    out.add(m.ret)
        return frozenset(out)

    def _field_type(self, node: ts.Node, dom: dict[str, frozenset[str]], depth: int) -> Types:
        name_node = node.child_by_field_name("field")
        if name_node is None:
            return None
        name = self.s.text(name_node)
        receiver, static = self._receiver(node, dom, depth)
        if receiver is None:
            return None
        out: set[str] = set()
        for r in receiver:
            if r.endswith("[]"):
                if name == "length":
                    out.add("int")
                continue
            if r in PRIMITIVES or r == NULL:
                continue
            for f in self.kb.fields(r):
                if f.name == name and (f.static or not static):
                    out.add(f.type)
            if static:
                nested = f"{r}.{name}"
                if nested in self.kb.types:
                    return None  # `Outer.Inner.m()`: a nested type, not a field
        return frozenset(out)

    # -- constraints ----------------------------------------------------------------------------
    def names_in(self, node: ts.Node, expanding: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """Simple names to infer that `node` mentions, through the declarations of the variables it
        uses (`expanding` stops a cycle such as `var a = a.m();`, legal to parse, not to compile)."""
        found: list[str] = []
        for n in self._walk(node):
            text = self.s.text(n)
            if n.type == "type_identifier" or n.type == "identifier" and self.s.is_type_name(text):
                if text in self.names and text not in found:
                    found.append(text)
            elif n.type == "identifier" and text not in expanding:
                target = self.s.variables.get(text)
                if target is not None:
                    for name in self.names_in(target, expanding | {text}):
                        if name not in found:
                            found.append(name)
        return tuple(found)

    def _add(self, kind: str, text: str, node: ts.Node, check: Callable[[dict[str, frozenset[str]]], bool]) -> None:
        names = self.names_in(node)
        if not names:
            return
        self.constraints.append(Constraint(kind=kind, text=text, names=names, node=node, check=check,
                                           line=node.start_point[0] + 1, col_start=node.start_point[1],
                                           col_end=node.end_point[1] if node.end_point[0] == node.start_point[0] else
                                           node.start_point[1] + 1, line_end=node.end_point[0] + 1))

    def collect_constraints(self) -> None:
        for node in self._walk(self.s.tree.root_node):
            t = node.type
            short = " ".join(self.s.text(node).split())
            short = short if len(short) <= 70 else short[:69] + "…"
            if t == "object_creation_expression":
                type_node = node.child_by_field_name("type")

                def check_new(dom, node=node, type_node=type_node):
                    types = self.type_of_type_node(type_node, dom)
                    if types is None:
                        return True
                    args = self._args(node, dom, 0)
                    for fqn in types:
                        info = self.kb.get(fqn)
                        if info is None:
                            continue
                        if info.kind == "interface" or info.abstract:
                            if node.child_by_field_name("body") is not None:
                                return True  # an anonymous class
                            continue
                        if any(self._applicable(c.params, c.varargs, args) for c in info.ctors):
                            return True
                    return False

                self._add("new", f"`{short}`: a public constructor accepting {len(self._arg_nodes(node))} argument(s)",
                          node, check_new)
            elif t == "method_invocation" and node.child_by_field_name("object") is not None:
                name_node = node.child_by_field_name("name")
                name = self.s.text(name_node) if name_node is not None else "?"

                def check_call(dom, node=node):
                    types = self._call_type(node, dom, 0)
                    return types is None or bool(types)

                self._add("call", f"`{short}`: the receiver's type has `{name}` taking "
                                  f"{len(self._arg_nodes(node))} argument(s)", node, check_call)
            elif t == "field_access":
                name_node = node.child_by_field_name("field")
                name = self.s.text(name_node) if name_node is not None else "?"

                def check_field(dom, node=node):
                    types = self._field_type(node, dom, 0)
                    return types is None or bool(types)

                self._add("field", f"`{short}`: the type has a field `{name}`", node, check_field)
            elif t in ANNOTATIONS and self._annotation_head(node) is not None:
                head_name = self.s.text(self._annotation_head(node))

                def check_annotation(dom, node=node):
                    types = self._annotation_type(node, dom)
                    if types is None:
                        return True
                    elements = self._annotation_elements(node)
                    return any(self._annotation_fits(fqn, elements, dom) for fqn in types)

                self._add("annotation", f"`{short}`: `{head_name}` is an annotation type with these elements",
                          node, check_annotation)
            elif t == "generic_type" and node.children:
                args = next((c for c in node.children if c.type == "type_arguments"), None)
                n_args = len([c for c in args.children if c.is_named]) if args is not None else 0

                def check_generic(dom, node=node, n_args=n_args):
                    types = self.type_of_type_node(node.children[0], dom)
                    if types is None:
                        return True
                    for fqn in types:
                        info = self.kb.get(fqn)
                        # `List<>` (a diamond) needs some type parameters, `List<A, B>` exactly two
                        if info is None or (info.tparams > 0 if n_args == 0 else info.tparams == n_args):
                            return True
                    return False

                self._add("generic", f"`{short}`: a generic type of {n_args or 'some'} type parameter(s)",
                          node.children[0], check_generic)
            elif t == "assignment_expression" and self._plain_assignment(node):
                left, value = node.child_by_field_name("left"), node.child_by_field_name("right")

                def check_assign_to(dom, left=left, value=value):
                    target = self.type_of(left, dom)
                    got = self.type_of(value, dom)
                    if target is None or got is None:
                        return True
                    return any(self.accepts(t2, got) for t2 in target)

                self._add("assign", f"`{short}`: the value's type is assignable to `{self.s.text(left)}`'s type",
                          node, check_assign_to)
            elif t in ("local_variable_declaration", "field_declaration"):
                type_node = node.child_by_field_name("type")
                if type_node is None or self.s.text(type_node) == "var":
                    continue
                for child in node.children:
                    value = child.child_by_field_name("value") if child.type == "variable_declarator" else None
                    if value is None or child.child_by_field_name("dimensions") is not None:
                        continue

                    def check_assign(dom, type_node=type_node, value=value):
                        target = self.type_of_type_node(type_node, dom)
                        got = self.type_of(value, dom)
                        if target is None or got is None:
                            return True
                        return any(self.accepts(t2, got) for t2 in target)

                    self._add("assign", f"`{short}`: the value's type is assignable to "
                                        f"`{self.s.text(type_node)}`", child, check_assign)

    def _plain_assignment(self, node: ts.Node) -> bool:
        """`v = e` to a declared variable (not `+=`, not `a[i] = e` or `o.f = e`)."""
        left, operator = node.child_by_field_name("left"), node.child_by_field_name("operator")
        return (left is not None and left.type == "identifier" and operator is not None
                and self.s.text(operator) == "=" and node.child_by_field_name("right") is not None)

    def _annotation_fits(self, fqn: str, elements: list[tuple[str, list[ts.Node]]],
                         dom: dict[str, frozenset[str]]) -> bool:
        """`fqn` is an annotation type with an element (a method without parameters) for each name, whose
        type (or component type, for an array element) accepts each value."""
        info = self.kb.get(fqn)
        if info is None:
            return True
        if info.kind != "annotation_type":
            return False
        declared = {m.name: m.ret for m in info.methods if not m.params}
        for key, values in elements:
            ret = declared.get(key)
            if ret is None:
                return False
            for value in values:
                got = self.type_of(value, dom)
                if not (self.accepts(ret, got) or ret.endswith("[]") and self.accepts(ret[:-2], got)):
                    return False
        return True

    def _arg_nodes(self, node: ts.Node) -> list[ts.Node]:
        args = node.child_by_field_name("arguments")
        return [a for a in args.children if a.is_named and "comment" not in a.type] if args is not None else []

    # -- solving --------------------------------------------------------------------------------
    def analyse(self) -> Analysis:
        self.collect_names()
        self.collect_constraints()
        return Analysis(code=self.s.code, names={k: list(v) for k, v in self.names.items()}, spans=dict(self.spans),
                        unresolved=list(self.unresolved), constraints=list(self.constraints))

    def solve(self, library: str | None = None) -> Solution:
        analysis = self.analyse()
        domains = {name: frozenset(c) for name, c in self.names.items()}
        steps: list[Step] = [Step(None, "candidates from the knowledge base", {k: sorted(v) for k, v in domains.items()},
                                  [], 0)]
        contradictions: list[str] = []
        for round_no in range(1, MAX_ROUNDS + 1):
            changed_any = False
            for constraint in self.constraints:
                changed = []
                for name in constraint.names:
                    current = domains[name]
                    if len(current) == 0:
                        continue
                    kept = frozenset(c for c in sorted(current) if constraint.check({**domains, name: frozenset({c})}))
                    if not kept:
                        # Nothing satisfies it (a snippet error, or a gap in the knowledge base): keep
                        # the domain rather than answer nothing, and say so.
                        note = f"{name}: no candidate satisfies {constraint.text}"
                        if note not in contradictions:
                            contradictions.append(note)
                        continue
                    if kept != current:
                        domains[name] = kept
                        changed.append(name)
                if changed or round_no == 1:
                    steps.append(Step(constraint, constraint.text, {k: sorted(v) for k, v in domains.items()},
                                      changed, round_no))
                changed_any = changed_any or bool(changed)
            if not changed_any:
                break
        chosen = self.choose(domains, library)
        return Solution(analysis=analysis, steps=steps, domains={k: sorted(v) for k, v in domains.items()},
                        chosen=chosen, contradictions=contradictions)

    def choose(self, domains: dict[str, frozenset[str]], library: str | None) -> dict[str, str]:
        """One candidate per name: the instance's library first, then a package another resolved name
        uses, then top-level types, then the JDK, then (between `java.` types) the one the knowledge
        base's signatures name more often, then alphabetical order."""
        chosen: dict[str, str] = {}
        packages: set[str] = set()
        for name, d in sorted(domains.items()):
            if len(d) == 1:
                chosen[name] = next(iter(d))
                packages.add(chosen[name].rsplit(".", 1)[0])
        for name, d in sorted(domains.items()):
            if name in chosen or not d:
                continue

            def rank(fqn: str) -> tuple[int, int, int, int, int, str]:
                info = self.kb.get(fqn)
                nested = 1 if info is not None and info.outer is not None else 0
                jdk = fqn.startswith("java.")
                return (self._library_rank(fqn, library), 0 if fqn.rsplit(".", 1)[0] in packages else 1, nested,
                        0 if jdk else 1, -self.kb.mentions.get(fqn, 0) if jdk else 0, fqn)

            chosen[name] = min(d, key=rank)
            packages.add(chosen[name].rsplit(".", 1)[0])
        return chosen

    def _library_rank(self, fqn: str, library: str | None) -> int:
        """0 for the instance's library: its packages, and the `javax.` APIs shipped in its own jars (JPA
        and JTA come with Hibernate: `javax.persistence.Entity` is as much Hibernate's as
        `org.hibernate.annotations.Entity`); 1 otherwise."""
        from core.families.imports.paths import LIBRARIES, library_of

        if not library:
            return 1
        if library_of(fqn) == library:
            return 0
        info = self.kb.get(fqn)
        jars = LIBRARIES.get(library, ("", ()))[1]
        shipped = info is not None and info.origin.removeprefix("jar:") in jars
        return 0 if shipped and fqn.startswith("javax.") else 1


def solve(code: str, kb: KnowledgeBase, library: str | None = None) -> Solution:
    return Solver(code, kb).solve(library)


def solve_instance(instance: Any) -> Solution:
    from core.families.imports.kb import load
    from core.families.imports.prompt import prompt_code

    return solve(prompt_code(instance), load(), getattr(instance, "library", None))


def baseline_response(instance: Any, budget_s: float = 0.0) -> str:
    from core.families.imports.prompt import format_response

    return format_response(solve_instance(instance).imports)


def oracle_response(instance: Any) -> str:
    from core.families.imports.prompt import format_response

    return format_response(instance.expected())
