"""Separate reasoning from the answer, incrementally.

Streaming and non-streaming replies go through the same `ReplyAssembler`, fed chunk by chunk or all
at once, so the final ChatResponse is identical either way and the streamed deltas concatenate to
exactly the final `text` and `reasoning`. Its output does not depend on where chunks are cut.

Rules, the same as core.extraction.split_reasoning's (which family extractors use): blocks in the
answer text tagged with one of REASONING_TAGS (`<think>`, `<thinking>`, `<reasoning>`, in any case; a
block ends only at its own closing tag) move to the reasoning (an unclosed block, a reply cut off by
max_tokens, is reasoning to the end); outer whitespace of the answer and of each reasoning segment is
dropped; reasoning segments (an API reasoning field, each tagged block, each thinking block) are joined
by a blank line. A stray closing tag with no opening tag is left in the text for the family's extractor
to deal with, because here we cannot know it is stray until it is too late.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.extraction import REASONING_TAGS

SEPARATOR = "\n\n"
_FLAGS = re.IGNORECASE | re.ASCII  # as core.extraction.REASONING_TAG
OPEN = re.compile(rf"<({'|'.join(REASONING_TAGS)})>", _FLAGS)
CLOSE = {name: re.compile(rf"</{name}>", _FLAGS) for name in REASONING_TAGS}
OPEN_TAGS = tuple(f"<{name}>" for name in REASONING_TAGS)

Emit = Callable[[str, str], None]


class _Stripper:
    """Emits one kind of text with outer whitespace removed, holding trailing whitespace back."""

    def __init__(self, kind: str, emit: Emit, separator: str = "") -> None:
        self.kind = kind
        self.emit = emit
        self.separator = separator
        self.leading = True  # still skipping whitespace at the start of a segment
        self.pending = ""  # whitespace seen but not yet known to be inside the text
        self.emitted = False

    def feed(self, s: str) -> None:
        if self.leading:
            s = s.lstrip()
            if not s:
                return
            self.leading = False
            if self.emitted and self.separator:
                self.pending = self.separator
        out = self.pending + s
        body = out.rstrip()
        self.pending = out[len(body) :]
        if body:
            self.emitted = True
            self.emit(self.kind, body)

    def end_segment(self) -> None:
        self.pending = ""
        self.leading = True


class ReplyAssembler:
    """Collects a reply's text and reasoning, calling `on_delta(kind, chunk)` as pieces become final."""

    def __init__(self, on_delta: Emit | None = None) -> None:
        self._on_delta = on_delta
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._answer = _Stripper("text", self._emit)
        self._thought = _Stripper("reasoning", self._emit, SEPARATOR)
        self._in_think: str | None = None  # the name of the open tagged block
        self._in_field_reasoning = False
        self._buf = ""  # unscanned answer text that may end in a partial tag

    def _emit(self, kind: str, chunk: str) -> None:
        (self._text if kind == "text" else self._reasoning).append(chunk)
        if self._on_delta is not None:
            self._on_delta(kind, chunk)

    # -- inputs --------------------------------------------------------------------------------
    def reasoning(self, chunk: str) -> None:
        """Reasoning from a dedicated API field (reasoning_content, a thinking block, message.thinking)."""
        if not chunk:
            return
        self._in_field_reasoning = True
        self._thought.feed(chunk)

    def end_reasoning_block(self) -> None:
        """A thinking block ended (anthropic content_block_stop); the next reasoning is a new segment."""
        if self._in_field_reasoning:
            self._in_field_reasoning = False
            self._thought.end_segment()

    def content(self, chunk: str) -> None:
        """Answer text, possibly containing tagged reasoning blocks."""
        if not chunk:
            return
        self.end_reasoning_block()
        self._buf += chunk
        while True:
            name = self._in_think
            found = (OPEN if name is None else CLOSE[name]).search(self._buf)
            if found is not None:
                self._route(self._buf[: found.start()])
                self._buf = self._buf[found.end() :]
                if name is None:
                    self._in_think = found.group(1).lower()
                else:
                    self._thought.end_segment()
                    self._in_think = None
                continue
            keep = _partial_tag_suffix(self._buf, OPEN_TAGS if name is None else (f"</{name}>",))
            self._route(self._buf[: len(self._buf) - keep])
            self._buf = self._buf[len(self._buf) - keep :]
            return

    def _route(self, s: str) -> None:
        if s:
            (self._thought if self._in_think else self._answer).feed(s)

    # -- result --------------------------------------------------------------------------------
    def finish(self) -> tuple[str, str | None]:
        """Flush a held partial tag (it was not a tag after all) and return (text, reasoning)."""
        if self._buf:
            self._route(self._buf)
            self._buf = ""
        return "".join(self._text), ("".join(self._reasoning) or None)


def _partial_tag_suffix(s: str, tags: tuple[str, ...]) -> int:
    """Length of the longest suffix of s that is, in any case, a proper prefix of one of the tags (a tag
    cut by a chunk boundary). Holding back a little more than that is harmless: it is scanned again."""
    longest = max(map(len, tags)) - 1
    if "<" not in s[-longest:]:  # the common case, a chunk of prose: every tag starts with "<"
        return 0
    for n in range(min(len(s), longest), 0, -1):
        tail = s[-n:].lower()
        if any(len(tag) > n and tag.startswith(tail) for tag in tags):
            return n
    return 0


def split_think(content: str, reasoning: str | None = None) -> tuple[str, str | None]:
    """Non-streaming helper: (text, reasoning) for a whole reply."""
    asm = ReplyAssembler()
    if reasoning:
        asm.reasoning(reasoning)
    asm.content(content)
    return asm.finish()
