"""A bound on the work extraction does, whatever the family: replies longer than MAX_REPLY_CHARS are
not read.

A reply of 50 MB (a runaway generation, a server streaming garbage, a file from elsewhere) would keep a
family's extractor busy for seconds, on the event loop that also carries every request in flight. No
answer to any family is anywhere near this long (a model's whole output budget of 100k+ tokens is about
400k characters), so such a reply is a typed extraction failure, "too_long", decided from its length
alone. Shorter replies reach the family's `extract` exactly as they are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.verdict import Answer

if TYPE_CHECKING:
    from core.family import Family
    from core.instance import Instance

MAX_REPLY_CHARS = 1_000_000


def too_long(text: Any) -> Answer | None:
    """The failure for a reply longer than MAX_REPLY_CHARS, else None."""
    if isinstance(text, str) and len(text) > MAX_REPLY_CHARS:
        return Answer.failure(
            "too_long",
            f"the reply is {len(text):,} characters long; answers are extracted from replies of at most "
            f"{MAX_REPLY_CHARS:,} characters (a reply this long is a runaway generation, not an answer)",
            length=len(text),
        )
    return None


def extract(family: Family, text: Any, instance: Instance | None = None) -> Answer:
    """`family.extract(text, instance)`, bounded: what every check of a reply goes through."""
    return too_long(text) or family.extract(text, instance)
