"""Prompts in the paper's wording: Listing 4 (chat) and Listing 5 (code completion).

Templates live in assets/prompts/membership_{chat,completion}.txt. Style "chat" gives the Listing 4 user
message; style "completion" gives the Listing 5 text in `Prompt.completion` and, for providers that only
speak chat, the Listing 4 message in `messages`.

The code shown is the instance's own `code` when it is the rendering of its `condition` (spacing aside);
otherwise the condition, which is what gets graded, is rendered afresh and the prompt says so
(`code_mismatch`).
"""

from __future__ import annotations

import functools
import re
from string import Template

from core.families.membership.model import MembershipInstance
from core.families.membership.render import instance_code_matches, render_probe, rendered_for
from core.trace import Prompt

STYLES = ("chat", "completion")


class MembershipPrompt(Prompt):
    """A prompt that says whether the instance's own `code` was replaced by the rendering of its condition
    (`code_mismatch`): the condition is what is graded, so that is what the model must see."""

    code_mismatch: bool = False

_SECTION = re.compile(r"^\[([a-z]+)\]\s*$")


@functools.cache
def load_template(style: str) -> dict[str, Template]:
    """Sections of a template file ([user], [completion], ...), comments before the first one dropped."""
    from core.paths import asset

    path = asset("prompts", f"membership_{style}.txt")
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _SECTION.match(line)
        if match:
            current = sections.setdefault(match.group(1), [])
        elif current is not None:
            current.append(line)
    return {name: Template("\n".join(lines).strip("\n")) for name, lines in sections.items()}


def prompt_code(instance: MembershipInstance) -> tuple[str, bool]:
    """(the code to show, whether it had to be rendered because the file's `code` disagrees)."""
    if instance_code_matches(instance):
        return instance.code, False
    return rendered_for(instance).code, True


def _fields(instance: MembershipInstance, code: str) -> dict[str, str]:
    return {"condition": code.rstrip("\n"), "probe": render_probe(instance.probe), "entry": instance.entry}


def chat_text(instance: MembershipInstance, code: str | None = None) -> str:
    fields = _fields(instance, prompt_code(instance)[0] if code is None else code)
    return load_template("chat")["user"].safe_substitute(fields)


def completion_text(instance: MembershipInstance, code: str | None = None) -> str:
    fields = _fields(instance, prompt_code(instance)[0] if code is None else code)
    return load_template("completion")["completion"].safe_substitute(fields)


def render_prompt(instance: MembershipInstance, style: str = "chat") -> MembershipPrompt:
    if style not in STYLES:
        from core.errors import UserError

        raise UserError(f"unknown prompt style '{style}' for family 'membership' (known: {', '.join(STYLES)})")
    code, mismatch = prompt_code(instance)
    messages = [{"role": "user", "content": chat_text(instance, code)}]
    completion = completion_text(instance, code) if style == "completion" else None
    return MembershipPrompt(style=style, messages=messages, completion=completion, code_mismatch=mismatch)


def format_response(value: bool) -> str:
    """An answer as a well-formed model reply (what Listing 4 asks for)."""
    return "True" if value else "False"
