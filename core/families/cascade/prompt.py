"""The cascade prompts (paper §3.2, Appendix E.2) and the response formats they ask for.

- style "chat" (the default, assets/prompts/cascade.txt): a system and a user message; the answer is one
  ```python block with one program per line, each exactly `s = s.replace("old", "new")`. It states the
  released scorer's constraints: K programs, sides of at most `max_side` characters, the alphabet.
- style "released" (assets/prompts/cascade_released.txt): the released PBEBench prompt, one user message;
  the answer is a Python list of "replace('A', 'B')" strings in one ```python block.

`format_response` writes our format (oracle and baseline solvers), `format_released_response` the
released one; `extract` reads both and a range of reasonable variants.
"""

from __future__ import annotations

import functools
from pathlib import Path
from string import Template

from core.errors import UserError
from core.families.cascade.model import CascadeInstance, Rule
from core.trace import Prompt

STYLES = ("chat", "released")
TEMPLATES = {"chat": "cascade.txt", "released": "cascade_released.txt"}


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


def format_released_response(cascade: list[Rule]) -> str:
    """The cascade as the released prompt asks for it: a list of "replace('A', 'B')" strings.

    The program strings use single quotes inside (the released example's quoting); a side holding a quote
    or a backslash cannot be written that way and falls back to our format for that answer.
    """
    if any("'" in x or "\\" in x or '"' in x for rule in cascade for x in rule):
        return format_response(cascade)
    items = ", ".join(f"\"replace('{lhs}', '{rhs}')\"" for lhs, rhs in cascade)
    return f"### Program Sequence\n```python\n[{items}]\n```\n"


def format_response(cascade: list[Rule]) -> str:
    """A well-formed model response holding `cascade` in exactly the format the prompt asks for."""
    lines = [program_line(rule) for rule in cascade] or ["# no program is needed: the inputs are the outputs"]
    body = "\n".join(lines)
    return f"The cascade applies {len(cascade)} programs in order.\n\n```python\n{body}\n```\n"


def template_path(style: str = "chat") -> Path:
    # imported here: extraction imports this module and must not pull in the storage layer
    from core.paths import asset

    return asset("prompts", TEMPLATES[style])


@functools.lru_cache(maxsize=4)
def _sections(style: str = "chat") -> dict[str, Template]:
    """The template file split into its [system] and [user] sections (leading # comments dropped)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    path = template_path(style)
    for line in path.read_text(encoding="utf-8").splitlines():
        header = line.strip()
        if header in ("[system]", "[user]"):
            current = sections.setdefault(header[1:-1], [])
        elif current is not None:
            current.append(line)
    if "user" not in sections:
        raise RuntimeError(f"{path} must have a [user] section")
    return {name: Template("\n".join(lines).strip()) for name, lines in sections.items()}


def render_examples(instance: CascadeInstance) -> str:
    return "\n".join(
        f"{i}. {py_literal(src)} -> {py_literal(dst)}"
        for i, (src, dst) in enumerate(zip(instance.inputs, instance.outputs, strict=True), start=1)
    )


def alphabet_text(instance: CascadeInstance) -> str:
    """The instance's alphabet as the prompt states it: its characters in order (as given in meta, else
    sorted)."""
    alphabet = instance.meta.get("alphabet") if isinstance(instance.meta, dict) else None
    if isinstance(alphabet, str) and alphabet:
        return alphabet
    return "".join(sorted(instance.allowed_chars()))


def render_prompt(instance: CascadeInstance, style: str = "chat") -> Prompt:
    if style not in STYLES:
        raise UserError(f"unknown prompt style '{style}' for family 'cascade' (known: {', '.join(STYLES)})")
    fields = {
        "examples": render_examples(instance),
        "n_examples": len(instance.inputs),
        "max_programs": instance.max_programs(),
        "max_side": instance.max_side(),
        "alphabet": alphabet_text(instance),
        # the released prompt shows the corpora as Python lists
        "inputs_list": repr(list(instance.inputs)),
        "outputs_list": repr(list(instance.outputs)),
    }
    sections = _sections(style)
    messages = [{"role": role, "content": sections[role].substitute(fields)}
                for role in ("system", "user") if role in sections]
    return Prompt(style=style, messages=messages, completion=None)
