"""A non-LLM contract generator (a floor, not a solver): what can be read off the syntax.

- preconditions: pointer validity over the guessed length, lengths in 0..1000, other integers and array
  elements in -1000..1000 (bounds that make the run-time-error goals provable for small arithmetic);
- `assigns`: `\\nothing`, or the arrays the function writes;
- straight-line functions: `ensures \\result == e`, with e the returned expression after substituting
  the local assignments (symbolic execution of the sequence);
- loops `for (i = A; i < B; i++)` / `while (i < B) { ... i++; }`: `A <= i <= B`, `loop assigns` (the
  variables and arrays written in the loop), `loop variant B - i`.
Nothing about what the function computes beyond that, so its contracts verify often on simple code and
are rarely complete (low CR).
"""

from __future__ import annotations

import re

import tree_sitter as ts

from core.families.specs.csyntax import LOOPS, function_node, node_text, parse, signature, walk
from core.families.specs.inputs import HarnessSpec, is_char, length_exprs
from core.families.specs.model import SpecsInstance

BOUND = 1000


def _written(node: ts.Node, data: bytes) -> tuple[set[str], set[str]]:
    """(scalars assigned, arrays/pointers written) inside node."""
    scalars: set[str] = set()
    arrays: set[str] = set()
    for n in walk(node):
        target = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
        if target is None:
            continue
        if target.type == "identifier":
            scalars.add(node_text(target, data))
        elif target.type == "subscript_expression":
            base = target.child_by_field_name("argument")
            if base is not None and base.type == "identifier":
                arrays.add(node_text(base, data))
        elif target.type == "pointer_expression":
            base = target.child_by_field_name("argument")
            if base is not None and base.type == "identifier":
                arrays.add(node_text(base, data))
    return scalars, arrays


def _substitute(expr: ts.Node, data: bytes, env: dict[str, str]) -> str:
    out = []
    pos = expr.start_byte
    for n in walk(expr):
        if n.type == "identifier" and node_text(n, data) in env and n.start_byte >= pos:
            out.append(data[pos:n.start_byte].decode())
            out.append(f"({env[node_text(n, data)]})")
            pos = n.end_byte
    out.append(data[pos:expr.end_byte].decode())
    return "".join(out)


def _straight_line_result(body: ts.Node, data: bytes) -> str | None:
    env: dict[str, str] = {}
    for stmt in body.named_children:
        if stmt.type == "comment":
            continue
        if stmt.type == "declaration":
            for decl in stmt.named_children:
                if decl.type == "init_declarator":
                    name = decl.child_by_field_name("declarator")
                    value = decl.child_by_field_name("value")
                    if name is None or value is None or name.type != "identifier":
                        return None
                    env[node_text(name, data)] = _substitute(value, data, env)
            continue
        if stmt.type == "expression_statement" and stmt.named_children:
            e = stmt.named_children[0]
            if e.type != "assignment_expression":
                return None
            left, right, op = e.child_by_field_name("left"), e.child_by_field_name("right"), e.child_by_field_name("operator")
            if left is None or right is None or op is None or left.type != "identifier":
                return None
            name = node_text(left, data)
            value = _substitute(right, data, env)
            sym = node_text(op, data)
            if sym == "=":
                env[name] = value
            elif sym in ("+=", "-=", "*="):
                env[name] = f"({env.get(name, name)}) {sym[0]} ({value})"
            else:
                return None
            continue
        if stmt.type == "return_statement":
            value = stmt.named_children[0] if stmt.named_children else None
            return None if value is None else _substitute(value, data, env)
        return None
    return None


def _declared_inside(loop: ts.Node, data: bytes) -> set[str]:
    body = loop.child_by_field_name("body")
    names = set()
    for n in walk(body) if body is not None else []:
        if n.type == "init_declarator" or (n.type == "declaration"):
            target = n.child_by_field_name("declarator")
            if target is not None and target.type == "identifier":
                names.add(node_text(target, data))
    return names


def _loop_annotation(loop: ts.Node, data: bytes, pointers: dict[str, str]) -> str:
    scalars, arrays = _written(loop, data)
    scalars -= _declared_inside(loop, data)
    lines = []
    var, lo, hi = None, None, None
    if loop.type == "for_statement":
        init = loop.child_by_field_name("initializer")
        cond = loop.child_by_field_name("condition")
        step = loop.child_by_field_name("update")
        if init is not None and cond is not None and step is not None:
            m_init = re.match(r"(?:int\s+)?(\w+)\s*=\s*(.+?);?$", node_text(init, data).strip())
            m_cond = re.match(r"(\w+)\s*(<=|<)\s*(.+)$", node_text(cond, data).strip())
            if m_init and m_cond and m_init.group(1) == m_cond.group(1) and node_text(step, data).strip() in (
                    f"{m_init.group(1)}++", f"++{m_init.group(1)}"):
                bound = m_cond.group(3) if m_cond.group(2) == "<" else f"{m_cond.group(3)} + 1"
                var, lo, hi = m_init.group(1), m_init.group(2), bound
                scalars.add(var)
    elif loop.type == "while_statement":
        cond = loop.child_by_field_name("condition")
        m_cond = re.match(r"\(?\s*(\w+)\s*<\s*([^=&|][^&|]*?)\s*\)?$", node_text(cond, data).strip()) \
            if cond is not None else None
        if m_cond and m_cond.group(1) in scalars:
            var, hi = m_cond.group(1), m_cond.group(2)
    if var is not None and lo is not None:
        lines.append(f"loop invariant {lo} <= {var} <= {hi};")
    written = sorted(scalars) + [f"{a}[0 .. {pointers[a]}-1]" for a in sorted(arrays) if a in pointers]
    if written:
        lines.append(f"loop assigns {', '.join(written)};")
    if var is not None:
        lines.append(f"loop variant {hi} - {var};")
    return "\n".join(lines)


def contract(instance: SpecsInstance) -> str:
    """The annotated program the baseline proposes."""
    code = instance.code
    sig = signature(code, instance.function)
    tree, data = parse(code)
    fn = function_node(tree, data, instance.function)
    if sig is None or fn is None:
        return code
    body = fn.child_by_field_name("body")
    lengths = length_exprs(sig, HarnessSpec(arrays=instance.arrays, ranges=instance.ranges))
    length_names = {v for v in lengths.values() if re.fullmatch(r"[A-Za-z_]\w*", v)}
    _, written = _written(body, data) if body is not None else (set(), set())
    pre: list[str] = []
    for p in sig.params:
        if p.pointer:
            n = lengths[p.name]
            valid = "\\valid_read" if p.const or p.name not in written else "\\valid"
            pre.append(f"requires {valid}({p.name} + (0 .. {n}-1));")
            if not is_char(p):
                pre.append(f"requires \\forall integer k; 0 <= k < {n} ==> -{BOUND} <= {p.name}[k] <= {BOUND};")
        elif p.name in length_names:
            pre.append(f"requires 0 <= {p.name} <= {BOUND};")
        elif not is_char(p):
            pre.append(f"requires -{BOUND} <= {p.name} <= {BOUND};")
    pointers = {p.name: lengths[p.name] for p in sig.params if p.pointer}
    targets = [f"{a}[0 .. {pointers[a]}-1]" for a in sorted(written) if a in pointers]
    pre.append(f"assigns {', '.join(targets)};" if targets else "assigns \\nothing;")
    if body is not None and not any(n.type in LOOPS for n in walk(body)) and sig.returns != "void":
        result = _straight_line_result(body, data)
        if result is not None:
            pre.append(f"ensures \\result == {result};")
    edits: list[tuple[int, str]] = [(fn.start_byte, "/*@ " + "\n    ".join(pre) + "\n*/\n")]
    for loop in walk(fn):
        if loop.type in LOOPS:
            annot = _loop_annotation(loop, data, pointers)
            if annot:
                pad = " " * loop.start_point[1]
                edits.append((loop.start_byte, "/*@ " + annot.replace("\n", "\n" + pad + "    ") + "\n" + pad + "*/\n" + pad))
    out = data
    for pos, text in sorted(edits, reverse=True):
        out = out[:pos] + text.encode() + out[pos:]
    return out.decode("utf-8", "replace")


def baseline_response(instance: SpecsInstance, budget_s: float = 0.0) -> str:
    return f"### SPECIFICATION\n```c\n{contract(instance).rstrip()}\n```\n"
