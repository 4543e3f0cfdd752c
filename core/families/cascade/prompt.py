"""The cascade prompt (paper §3.2, Appendix E.2) and the response format it asks for.

The answer format is one ```python block with one program per line, each exactly
`s = s.replace("old", "new")`. `format_response` writes that format (oracle and baseline solvers);
`extract` reads it and a range of reasonable variants.
"""

from __future__ import annotations

import functools
from pathlib import Path
from string import Template

from core.errors import UserError
from core.families.cascade.model import CascadeInstance, Rule
from core.trace import Prompt

STYLES = ("chat",)


def py_literal(text: str) -> str:
    """A double-quoted Python string literal for `text` that `ast` reads back exactly.

    Backticks are escaped so that no string can close the Markdown fence around the code.
    """
    out: list[str] = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "`":
            out.append("\\x60")
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1])  # repr escapes control characters and lone surrogates
    return '"' + "".join(out) + '"'


def program_line(rule: Rule) -> str:
    return f"s = s.replace({py_literal(rule[0])}, {py_literal(rule[1])})"


def format_response(cascade: list[Rule]) -> str:
    """A well-formed model response holding `cascade` in exactly the format the prompt asks for."""
    lines = [program_line(rule) for rule in cascade] or ["# no program is needed: the inputs are the outputs"]
    body = "\n".join(lines)
    return f"The cascade applies {len(cascade)} programs in order.\n\n```python\n{body}\n```\n"


def template_path() -> Path:
    # imported here: extraction imports this module and must not pull in the storage layer
    from core.paths import asset

    return asset("prompts", "cascade.txt")


@functools.lru_cache(maxsize=1)
def _sections() -> dict[str, Template]:
    """The template file split into its [system] and [user] sections (leading # comments dropped)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in template_path().read_text(encoding="utf-8").splitlines():
        header = line.strip()
        if header in ("[system]", "[user]"):
            current = sections.setdefault(header[1:-1], [])
        elif current is not None:
            current.append(line)
    if set(sections) != {"system", "user"}:
        raise RuntimeError(f"{template_path()} must have a [system] and a [user] section")
    return {name: Template("\n".join(lines).strip()) for name, lines in sections.items()}


def render_examples(instance: CascadeInstance) -> str:
    return "\n".join(
        f"{i}. {py_literal(src)} -> {py_literal(dst)}"
        for i, (src, dst) in enumerate(zip(instance.inputs, instance.outputs, strict=True), start=1)
    )


def render_prompt(instance: CascadeInstance, style: str = "chat") -> Prompt:
    if style not in STYLES:
        raise UserError(f"unknown prompt style '{style}' for family 'cascade' (known: {', '.join(STYLES)})")
    fields = {
        "examples": render_examples(instance),
        "n_examples": len(instance.inputs),
        "max_programs": instance.max_programs(),
    }
    sections = _sections()
    messages = [
        {"role": "system", "content": sections["system"].substitute(fields)},
        {"role": "user", "content": sections["user"].substitute(fields)},
    ]
    return Prompt(style=style, messages=messages, completion=None)
