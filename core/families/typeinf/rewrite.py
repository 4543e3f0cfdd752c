"""The pure variant (§3.2): alpha-rewrite operators on a task, each usable alone (Appendix D).

* `types`: every NL type name — type constructors, classes and data constructors — becomes T1, T2, ...
* `tyvars`: the type variables of each declaration become t1, t2, ... (per declaration, as in the paper)
* `bindings`: the function and every dependency binding (functions, operators, record fields, class
  methods) become f1, f2, ...; operators keep their infix position as `` `fN` `` with their fixity
  declared next to them.

Numbering follows order of appearance over the ground truth, then the code, then the dependencies,
consistently everywhere. Local variables are kept (the paper keeps them too). Rewriting works on
tree-sitter tokens, so layout and everything else is preserved. `renaming` records what became what
(the GHC check of a pure task maps the new names back to the Prelude's own types and classes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.families.typeinf.corpus import binder, is_operator
from core.families.typeinf.env import task_env
from core.families.typeinf.hsparse import HsParseError, parse_tree
from core.families.typeinf.model import REWRITE_OPS

Node = object


@dataclass
class Task:
    name: str
    code: str
    dependencies: list[str]
    signature: str  # "name :: type"


@dataclass
class Rewritten(Task):
    renaming: dict[str, dict[str, str]] = field(default_factory=dict)  # op -> {old: new}


@dataclass
class _Token:
    start: int
    end: int
    kind: str  # tycon, con, conop, tyvar, bind, bindop, bindop_prefix, bindop_tick
    name: str
    scope: int = 0  # type-variable scope (one per declaration)


def _text(node) -> str:  # noqa: ANN001
    return node.text.decode("utf-8", "replace")


TYPE_DECLS = {"data_type", "newtype", "type_synonym", "class", "instance"}


def _tokens(source: str, bindings: set[str]) -> list[_Token]:
    """Classify the renamable tokens of a piece of Haskell source."""
    root = parse_tree(source)
    data = source.encode("utf-8")
    out: list[_Token] = []
    scope_counter = [0]

    def byte_to_char(b: int) -> int:
        return len(data[:b].decode("utf-8", "replace"))

    def add(node, kind: str, name: str, scope: int = 0) -> None:  # noqa: ANN001
        out.append(_Token(byte_to_char(node.start_byte), byte_to_char(node.end_byte), kind, name, scope))

    def walk(node, in_type: bool, scope: int, in_class: bool = False) -> None:  # noqa: ANN001
        t = node.type
        if t in ("comment", "haddock", "pragma"):
            return
        if (t == "signature" and not in_type and not in_class) or t in TYPE_DECLS:
            # a class's method signatures share the class's variable (one scope for the declaration)
            scope_counter[0] += 1
            scope = scope_counter[0]
        if t == "variable":
            name = _text(node)
            if in_type:
                add(node, "tyvar", name, scope)
            elif name in bindings:
                add(node, "bind", name)
            return
        if t in ("name",):
            add(node, "tycon", _text(node))
            return
        if t == "constructor":
            add(node, "con", _text(node))
            return
        if t == "constructor_operator":
            name = _text(node)
            if name != ":":
                add(node, "conop", name)
            return
        if t == "prefix_id":
            inner = node.named_children[0] if node.named_children else None
            if inner is not None and inner.type == "operator" and _text(inner) in bindings:
                add(node, "bindop_prefix", _text(inner))
                return
            if inner is not None and inner.type == "constructor_operator" and _text(inner) != ":":
                add(node, "conop_prefix", _text(inner))
                return
        if t == "operator":
            name = _text(node)
            if name in bindings and not in_type:
                add(node, "bindop", name)
            return
        if t == "field_name":
            for c in node.named_children:
                if c.type == "variable" and _text(c) in bindings:
                    add(c, "bind", _text(c))
            return
        for i, child in enumerate(node.children):
            field_name = node.field_name_for_child(i)
            child_in_type = in_type
            if t == "signature" and field_name == "type":
                child_in_type = True
            elif t in TYPE_DECLS and field_name not in ("name", "declarations"):
                child_in_type = True
            elif t == "field" and field_name == "type":
                child_in_type = True
            elif t in ("function", "bind", "infix") and not in_type:
                child_in_type = False
            walk(child, child_in_type, scope, in_class or t == "class")

    walk(root, False, 0)
    return out


def _apply(source: str, tokens: list[_Token], replace) -> str:  # noqa: ANN001
    pieces = []
    last = 0
    for tok in sorted(tokens, key=lambda t: t.start):
        new = replace(tok)
        if new is None:
            continue
        pieces.append(source[last:tok.start])
        pieces.append(new)
        last = tok.end
    pieces.append(source[last:])
    return "".join(pieces)


def rewrite(task: Task, ops: list[str] | tuple[str, ...] = REWRITE_OPS) -> Rewritten:
    """Apply the chosen operators (any subset of types, tyvars, bindings). Raises HsParseError on code
    tree-sitter cannot read."""
    ops = [op for op in REWRITE_OPS if op in ops]
    env = task_env(task.dependencies)
    # the binding names to rename: the function, then everything the dependencies declare
    from core.families.typeinf import syntax as S
    from core.families.typeinf.env import dep_decls

    declared: list[str] = [task.name]
    for d in dep_decls(task.dependencies):
        if isinstance(d, S.SigDecl):
            declared.extend(d.names)
        elif isinstance(d, S.ClassDecl):
            for m in d.methods:
                declared.extend(m.names)
        elif isinstance(d, S.DataDecl):
            for c in d.constructors:
                declared.extend(n for n in c.field_names if n)
    binding_set = set(declared)
    pieces = [task.signature, task.code, *task.dependencies]
    for piece in pieces:
        root = parse_tree(piece)
        if root.has_error and piece is not task.signature:
            # constructor signatures (`T2 :: a -> T1 a`) are not Haskell; everything else must parse
            if not all(line[:1].isupper() or not line.strip() for line in piece.splitlines()):
                raise HsParseError("a piece of the task does not parse, so it cannot be rewritten")
    toks = [_tokens(p, binding_set) for p in pieces]
    type_map: dict[str, str] = {}
    bind_map: dict[str, str] = {}
    for group in toks:
        for tok in sorted(group, key=lambda t: t.start):
            if tok.kind in ("tycon", "con", "conop", "conop_prefix") and tok.name not in type_map:
                type_map[tok.name] = f"T{len(type_map) + 1}"
            elif tok.kind in ("bind", "bindop", "bindop_prefix") and tok.name not in bind_map:
                bind_map[tok.name] = f"f{len(bind_map) + 1}"
        if not bind_map.get(task.name) and group is toks[0]:
            bind_map.setdefault(task.name, "f1")
    for name in declared:  # declared but unused bindings still get names (after the used ones)
        bind_map.setdefault(name, f"f{len(bind_map) + 1}")
    do_types, do_vars, do_binds = "types" in ops, "tyvars" in ops, "bindings" in ops

    def rewrite_piece(source: str, tokens: list[_Token]) -> str:
        var_maps: dict[int, dict[str, str]] = {}
        for tok in sorted(tokens, key=lambda t: t.start):
            if tok.kind == "tyvar":
                m = var_maps.setdefault(tok.scope, {})
                m.setdefault(tok.name, f"t{len(m) + 1}")

        def replace(tok: _Token) -> str | None:
            if tok.kind in ("tycon", "con") and do_types:
                return type_map[tok.name]
            if tok.kind == "conop" and do_types:
                return f"`{type_map[tok.name]}`"
            if tok.kind == "conop_prefix" and do_types:
                return type_map[tok.name]
            if tok.kind == "tyvar" and do_vars:
                return var_maps[tok.scope][tok.name]
            if tok.kind == "bind" and do_binds:
                return bind_map[tok.name]
            if tok.kind == "bindop" and do_binds:
                return f"`{bind_map[tok.name]}`"
            if tok.kind == "bindop_prefix" and do_binds:
                return bind_map[tok.name]
            return None

        return _apply(source, tokens, replace)

    signature = rewrite_piece(task.signature, toks[0])
    code = rewrite_piece(task.code, toks[1])
    deps = [rewrite_piece(p, t) for p, t in zip(task.dependencies, toks[2:], strict=True)]
    renaming: dict[str, dict[str, str]] = {}
    if do_types:
        renaming["types"] = dict(type_map)
    if do_binds:
        renaming["bindings"] = dict(bind_map)
        # operators lose their fixity when they become names: declare it next to them
        deps = [_with_fixity(dep, orig, bind_map, env.fixities) for dep, orig in zip(deps, task.dependencies,
                                                                                       strict=True)]
        if is_operator(task.name) and task.name in env.fixities:
            assoc, prec = env.fixities[task.name]
            code = f"{assoc} {prec} `{bind_map[task.name]}`\n{code}"
    name = bind_map[task.name] if do_binds else task.name
    return Rewritten(name=name, code=code, dependencies=deps, signature=signature, renaming=renaming)


def _with_fixity(dep: str, original: str, bind_map: dict[str, str], fixities: dict[str, tuple[str, int]]) -> str:
    from core.families.typeinf.hsparse import split_signature

    name, _ = split_signature(original.strip())
    if name is None or not is_operator(name) or name not in fixities or name not in bind_map:
        return dep
    assoc, prec = fixities[name]
    if f"`{bind_map[name]}`" in dep.split("\n", 1)[0] and dep.startswith("infix"):
        return dep
    return f"{assoc} {prec} `{bind_map[name]}`\n{dep}"


__all__ = ["Task", "Rewritten", "rewrite", "binder"]
