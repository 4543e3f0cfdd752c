"""The paper's prompt (Figure 1a): a system message and the user instruction followed by the snippet.

The template lives in assets/prompts/imports_chat.txt. The snippet is shown without import lines: an
instance's `code` has none, and a file from elsewhere that still carries some has them removed here (they
are the answer).
"""

from __future__ import annotations

import functools
import re
from string import Template

from core.families.imports.model import ImportsInstance
from core.families.imports.snippet import entry_line, split_imports
from core.trace import Prompt

STYLES = ("chat",)
_SECTION = re.compile(r"^\[([a-z]+)\]\s*$")


@functools.cache
def load_template() -> dict[str, Template]:
    from core.store import REPO_ROOT

    path = REPO_ROOT / "assets" / "prompts" / "imports_chat.txt"
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _SECTION.match(line)
        if match:
            current = sections.setdefault(match.group(1), [])
        elif current is not None:
            current.append(line)
    return {name: Template("\n".join(lines).strip("\n")) for name, lines in sections.items()}


def prompt_code(instance: ImportsInstance) -> str:
    code = instance.code
    if "import" in code:
        code = split_imports(code).code
    return code.rstrip("\n")


def render_prompt(instance: ImportsInstance, style: str = "chat") -> Prompt:
    if style not in STYLES:
        from core.errors import UserError

        raise UserError(f"unknown prompt style '{style}' for family 'imports' (known: {', '.join(STYLES)})")
    template = load_template()
    fields = {"code": prompt_code(instance)}
    messages = [{"role": "system", "content": template["system"].safe_substitute(fields)},
                {"role": "user", "content": template["user"].safe_substitute(fields)}]
    return Prompt(style=style, messages=messages)


def format_response(imports: list[str]) -> str:
    """Imports as a well-formed reply (Figure 1b: a java code block of import lines)."""
    if not imports:
        return "No imports are needed."
    return "```java\n" + "\n".join(entry_line(e) for e in imports) + "\n```"
