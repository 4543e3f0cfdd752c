"""Mutants for the completeness rate: small syntactic faults injected on the tree-sitter-c syntax tree.

Operators (after Major's): AOR (arithmetic operator replacement), ROR (relational), COR (&& <-> ||),
CRP (integer constant +1 / -1 / 0), UOI (++ <-> --, compound assignment), SDL (deletion of an expression
statement). Mutants are found on the code outside the annotations, in source order, so the same list
(same ordinals) comes out of the task code and of any annotated version of it: a mutant is applied to a
model's annotated program by position, leaving its annotations in place.
"""

from __future__ import annotations

from pydantic import BaseModel

from core.families.specs.csyntax import function_node, node_text, parse, walk

AOR = {"+": ["-", "*"], "-": ["+"], "*": ["+", "/"], "/": ["*", "%"], "%": ["/"]}
ROR = {"<": ["<=", ">"], "<=": ["<", ">="], ">": [">=", "<"], ">=": [">", "<="], "==": ["!="], "!=": ["=="]}
COR = {"&&": ["||"], "||": ["&&"]}
UPDATE = {"++": "--", "--": "++"}
COMPOUND = {"+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}


class Mutant(BaseModel):
    ordinal: int
    operator: str  # AOR, ROR, COR, CRP, UOI, SDL
    start: int  # byte offsets in the text it was found in
    end: int
    original: str
    replacement: str
    line: int

    def key(self) -> tuple[str, str, str]:
        return (self.operator, self.original, self.replacement)

    def describe(self) -> str:
        return f"{self.operator} line {self.line}: `{self.original}` -> `{self.replacement or '(deleted)'}`"


def mutants(text: str, function: str) -> list[Mutant]:
    tree, data = parse(text)
    fn = function_node(tree, data, function)
    if fn is None:
        return []
    body = fn.child_by_field_name("body")
    if body is None:
        return []
    found: list[tuple[int, int, str, str, str, int]] = []
    for node in walk(body):
        if node.type == "comment":
            continue
        line = node.start_point[0] + 1
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            if op is None:
                continue
            sym = node_text(op, data)
            for table, name in ((AOR, "AOR"), (ROR, "ROR"), (COR, "COR")):
                for rep in table.get(sym, []):
                    found.append((op.start_byte, op.end_byte, name, sym, rep, line))
        elif node.type == "number_literal":
            raw = node_text(node, data)
            if raw.isdigit():
                value = int(raw)
                for rep in sorted({value + 1, value - 1, 0} - {value}):
                    if rep >= 0:
                        found.append((node.start_byte, node.end_byte, "CRP", raw, str(rep), line))
        elif node.type == "update_expression":
            for child in node.children:
                sym = node_text(child, data)
                if sym in UPDATE:
                    found.append((child.start_byte, child.end_byte, "UOI", sym, UPDATE[sym], line))
        elif node.type == "assignment_expression":
            op = node.child_by_field_name("operator")
            if op is not None and node_text(op, data) in COMPOUND:
                sym = node_text(op, data)
                found.append((op.start_byte, op.end_byte, "UOI", sym, COMPOUND[sym], line))
        elif node.type == "expression_statement" and node.parent is not None and node.parent.type in (
                "compound_statement",) and node.named_child_count:
            found.append((node.start_byte, node.end_byte, "SDL", node_text(node, data), ";", line))
    found.sort(key=lambda f: (f[0], f[1], f[2], f[4]))
    return [Mutant(ordinal=i, operator=op, start=s, end=e, original=orig, replacement=rep, line=line)
            for i, (s, e, op, orig, rep, line) in enumerate(found)]


def apply(text: str, mutant: Mutant) -> str:
    data = text.encode("utf-8", "surrogatepass")
    return (data[:mutant.start] + mutant.replacement.encode() + data[mutant.end:]).decode("utf-8", "surrogatepass")


def transfer(task_mutants: list[Mutant], annotated: str, function: str) -> list[Mutant] | None:
    """The same mutants located in an annotated version of the program (None if the lists disagree)."""
    here = mutants(annotated, function)
    if [m.key() for m in here] != [m.key() for m in task_mutants]:
        return None
    return here
