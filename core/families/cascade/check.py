"""Extraction and verification of one response, without the family's generic method dispatch (the
runner checks every attempt of a run through here)."""

from __future__ import annotations

from core.extraction import too_long
from core.families.cascade.extract import extract
from core.families.cascade.model import CascadeInstance
from core.families.cascade.verify import verify
from core.verdict import Answer, Verdict


def check(instance: CascadeInstance, response: str) -> tuple[Answer, Verdict]:
    answer = too_long(response) or extract(response, instance)  # bounded, as Family.check
    return answer, verify(instance, answer)
