"""Render a condition to the paper's Python text (Listing 1 style) and know where every part landed.

The layout (1-based line numbers, column spans of each term) is computed while rendering, so the trace can
highlight the active line and term without parsing the text back.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from core.families.membership.model import CallTerm, Condition, Term, function_name

INDENT = "    "


@dataclass
class BranchLayout:
    if_line: int  # `if len(x) == N:` / `elif len(x) == N:`
    res_line: int  # `res = (...) and (...)`
    term_spans: list[tuple[int, int]] = field(default_factory=list)  # [start, end) columns in res_line


@dataclass
class FunctionLayout:
    def_line: int
    branches: list[BranchLayout]
    else_line: int
    return_false_line: int
    return_res_line: int


@dataclass
class Rendered:
    code: str
    functions: list[FunctionLayout]


def term_text(term: Term, arg: str = "x") -> str:
    """One term as in the listings, without the surrounding parentheses: `x[1] == 2`, `is_member_1(x[0])`."""
    if isinstance(term, CallTerm):
        return f"{function_name(term.target)}({arg}[{term.index}])"
    return f"{arg}[{term.index}] {term.op} {term.value}"


def render(condition: Condition) -> Rendered:
    lines: list[str] = []
    layouts: list[FunctionLayout] = []
    for i, fn in enumerate(condition.functions):
        if i:
            lines.append("")
        lines.append(f"def {function_name(i)}(x):")
        def_line = len(lines)
        branch_layouts: list[BranchLayout] = []
        for j, branch in enumerate(fn.branches):
            keyword = "if" if j == 0 else "elif"
            lines.append(f"{INDENT}{keyword} len(x) == {branch.length}:")
            if_line = len(lines)
            prefix = f"{INDENT * 2}res = "
            parts: list[str] = []
            spans: list[tuple[int, int]] = []
            column = len(prefix)
            for k, term in enumerate(branch.terms):
                if k:
                    parts.append(" and ")
                    column += len(" and ")
                text = f"({term_text(term)})"
                parts.append(text)
                spans.append((column, column + len(text)))
                column += len(text)
            lines.append(prefix + "".join(parts))
            branch_layouts.append(BranchLayout(if_line=if_line, res_line=len(lines), term_spans=spans))
        lines.append(f"{INDENT}else:")
        else_line = len(lines)
        lines.append(f"{INDENT * 2}return False")
        return_false_line = len(lines)
        lines.append(f"{INDENT}return res")
        layouts.append(FunctionLayout(def_line, branch_layouts, else_line, return_false_line, len(lines)))
    return Rendered(code="\n".join(lines) + "\n", functions=layouts)


def render_code(condition: Condition) -> str:
    return render(condition).code


def render_probe(probe: Any) -> str:
    """The probe as a Python literal. For nested lists of ints JSON's default spacing is exactly repr's."""
    return json.dumps(probe)


_TOKEN = re.compile(r"\w+|\S")


def _normalized(code: str) -> list[tuple[str, str]]:
    """(indentation, tokens) per non-blank line: spacing inside a line and blank lines do not matter to
    Python, indentation does, so it is kept."""
    out: list[tuple[str, str]] = []
    for line in code.expandtabs(8).splitlines():
        body = line.lstrip(" ")
        if body.strip():
            out.append((line[: len(line) - len(body)], " ".join(_TOKEN.findall(body))))
    return out


def code_matches(code: str, condition: Condition) -> bool:
    """Whether `code` is the rendering of `condition`, up to spacing within lines and blank lines.

    Files from elsewhere carry both; the condition is what gets evaluated and graded, so a `code` that
    says something else must not be shown to a model or a person as if it were the problem.
    """
    return _normalized(code) == _normalized(render_code(condition))


def rendered_for(instance: Any) -> Rendered:
    """The rendering of an instance's condition, computed once per instance object."""
    cache = instance.derived()
    rendered = cache.get("rendered")
    if rendered is None:
        rendered = cache["rendered"] = render(instance.condition)
    return rendered


def instance_code_matches(instance: Any) -> bool:
    """`code_matches(instance.code, instance.condition)`, computed once per instance object."""
    cache = instance.derived()
    matches = cache.get("code_matches")
    if matches is None:
        rendered = rendered_for(instance).code
        matches = cache["code_matches"] = instance.code == rendered or _normalized(instance.code) == _normalized(rendered)
    return matches
