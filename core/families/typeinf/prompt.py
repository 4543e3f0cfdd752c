"""Prompts in TF-Bench's wording (assets/prompts/typeinf.txt)."""

from __future__ import annotations

import functools
import re
from string import Template

from core.errors import UserError
from core.families.typeinf.corpus import binder
from core.families.typeinf.model import TypeinfInstance
from core.trace import Prompt

STYLES = ("chat", "completion")
_SECTION = re.compile(r"^\[([a-z]+)\]\s*$")


@functools.cache
def sections() -> dict[str, str]:
    from core.families.typeinf.env import ASSETS

    path = ASSETS.parent / "prompts" / "typeinf.txt"
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _SECTION.match(line)
        if m:
            current = out.setdefault(m.group(1), [])
        elif current is not None:
            current.append(line)
    return {k: "\n".join(v).strip("\n") for k, v in out.items()}


def system_text(variant: str) -> str:
    s = sections()
    return "\n".join([s["system"], s["instruction"], s["pure" if variant == "pure" else "base"]])


def task_text(instance: TypeinfInstance) -> str:
    deps = "\n".join(d.strip() for d in instance.dependencies)
    return Template(sections()["task"]).safe_substitute(
        dependencies=deps, code=instance.code.rstrip("\n"), name=binder(instance.name))


def render_prompt(instance: TypeinfInstance, style: str = "chat") -> Prompt:
    if style not in STYLES:
        raise UserError(f"unknown prompt style '{style}' for family 'typeinf' (known: {', '.join(STYLES)})")
    system = system_text(instance.variant)
    task = task_text(instance)
    if style == "completion":
        text = system + "\n" + task
        return Prompt(style=style, messages=[{"role": "user", "content": text}], completion=text)
    return Prompt(style=style, messages=[{"role": "system", "content": system}, {"role": "user", "content": task}])
