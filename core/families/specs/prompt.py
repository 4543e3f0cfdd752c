"""Prompts in the paper's four styles (Appendix H), adapted from JML/OpenJML to ACSL/Frama-C WP:
zero-shot, few-shot (syntax guidelines and two demonstrations), chain-of-thought and least-to-most
(both on top of the few-shot prompt, as in the paper). Templates live in assets/prompts/specs.txt.

`paper` is the paper's zero-shot template adapted to ACSL and nothing more: the project's additions (the
task description in the user message; the guidelines' "do not change the C code" line, which the
few-shot styles carry) are left out. docs/specs.md lists the additions."""

from __future__ import annotations

import functools
import re

from core.families.specs.model import SpecsInstance
from core.paths import asset
from core.trace import Prompt

TEMPLATES = asset("prompts", "specs.txt")
STYLES = ("zero-shot", "few-shot", "chain-of-thought", "least-to-most", "paper")


@functools.cache
def sections() -> dict[str, str]:
    text = TEMPLATES.read_text(encoding="utf-8")
    parts = re.split(r"^=== (\w+) ===\n", text, flags=re.M)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def render_prompt(instance: SpecsInstance, style: str = "zero-shot") -> Prompt:
    s = sections()
    if style not in STYLES:
        style = "zero-shot"
    system = s["system"]
    if style not in ("zero-shot", "paper"):
        system += "\n" + s["guidelines"] + "\n" + s["examples"]
    template = s["user"]
    if style == "paper":  # the paper's user message names the code only
        template = template.replace("### DESCRIPTION\n{description}\n", "")
    user = template.replace("{description}", instance.description or "(none)").replace(
        "{code}", instance.code.rstrip())
    if style == "chain-of-thought":
        user += "\n\n" + s["cot"]
    elif style == "least-to-most":
        user += "\n\n" + s["ltm"]
    return Prompt(style=style, messages=[{"role": "system", "content": system}, {"role": "user", "content": user}])


def oracle_response(instance: SpecsInstance) -> str:
    reference = instance.reference() or instance.code
    return f"### SPECIFICATION\n```c\n{reference.rstrip()}\n```\n"
