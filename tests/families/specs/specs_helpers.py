"""Instances and answers used by several specs tests."""

from __future__ import annotations

from core.families.specs.generator import generate_one
from core.families.specs.model import SpecsInstance

BASE = {"variants": "base", "programs": ""}


def corpus_instance(program: str) -> SpecsInstance:
    return generate_one({"variants": "base", "programs": program}, 0, 0)


def fenced(text: str) -> str:
    return f"Here is the annotated program.\n```c\n{text.rstrip()}\n```\n"
