"""What every family's extractor needs from a raw reply: a bound on the work (replies too long to be an
answer are not read), the answer apart from the reasoning, and the fenced code blocks in it (with a
language filter). One implementation, so every family reads replies alike.

Length bound: a reply of 50 MB (a runaway generation, a server streaming garbage, a file from elsewhere)
would keep a family's extractor busy for seconds, on the event loop that also carries every request in
flight. No answer to any family is anywhere near this long (a model's whole output budget of 100k+ tokens
is about 400k characters), so such a reply is a typed extraction failure, "too_long", decided from its
length alone. Shorter replies reach the family's `extract` exactly as they are.

Reasoning: the rule matches core.models.think (which splits replies as they stream): `<think>` blocks are
reasoning; an unclosed block is reasoning to the end (a reply cut off while thinking); a stray `</think>`
with no opening tag means everything before it was reasoning (the opening tag was in the chat template).
Tags are matched case-insensitively. Both helpers are linear in the reply's length.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from core.verdict import Answer

if TYPE_CHECKING:
    from core.family import Family
    from core.instance import Instance

MAX_REPLY_CHARS = 1_000_000
OPEN_THINK = "<think>"
CLOSE_THINK = "</think>"


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


class Reply(BaseModel):
    """A reply split in two. `status`: "none" (no tags), "stripped", or "unclosed" (cut off while thinking)."""

    answer: str
    reasoning: str
    status: str


def split_reasoning(text: str) -> Reply:
    """The answer text without `<think>` reasoning, and the reasoning (blocks joined by blank lines)."""
    lower = text.lower()
    if OPEN_THINK not in lower and CLOSE_THINK not in lower:
        return Reply(answer=text, reasoning="", status="none")
    kept: list[str] = []
    thought: list[str] = []
    i, status = 0, "stripped"
    # next tag positions are cached so that many tags cost linear time, not quadratic
    j_open, j_close = lower.find(OPEN_THINK), lower.find(CLOSE_THINK)
    while True:
        if 0 <= j_open < i:
            j_open = lower.find(OPEN_THINK, i)
        if 0 <= j_close < i:
            j_close = lower.find(CLOSE_THINK, i)
        if j_close >= 0 and (j_open < 0 or j_close < j_open):
            thought.extend(kept)  # a stray close tag: what came before it was reasoning
            thought.append(text[i:j_close])
            kept.clear()
            i = j_close + len(CLOSE_THINK)
            continue
        if j_open < 0:
            kept.append(text[i:])
            break
        kept.append(text[i:j_open])
        if j_close < 0:
            thought.append(text[j_open + len(OPEN_THINK):])
            status = "unclosed"
            break
        thought.append(text[j_open + len(OPEN_THINK):j_close])
        i = j_close + len(CLOSE_THINK)  # j_close > j_open here: it ends this block
    reasoning = "\n\n".join(part.strip() for part in thought if part.strip())
    return Reply(answer="".join(kept), reasoning=reasoning, status=status)


class Fence(BaseModel):
    """A fenced code block. `line` is its first code line (1-based) in the text searched; `closed` is False
    for a final block that runs to the end (a cut-off reply)."""

    index: int
    lang: str
    line: int
    closed: bool
    code: str


def _fence(line: str) -> tuple[str, str] | None:
    """(fence run, info string) when `line` opens or closes a fence (``` or ~~~, 3 or more)."""
    stripped = line.strip()
    if not stripped.startswith(("```", "~~~")):
        return None
    ch = stripped[0]
    run = len(stripped) - len(stripped.lstrip(ch))
    info = stripped[run:].strip()
    if ch == "`" and "`" in info:  # CommonMark: a backtick fence's info string has no backtick
        return None
    return stripped[:run], info


def code_fences(text: str, languages: tuple[str, ...] | None = None) -> list[Fence]:
    """Fenced code blocks in order; with `languages`, only blocks whose info string names one of them
    (lower case; "" admits blocks with no language). A closing fence glued to the last code line
    (`...)```) also closes the block: models do that."""
    blocks: list[Fence] = []
    fence: str | None = None
    code: list[str] = []
    start, lang = 0, ""

    def close(closed: bool) -> None:
        if languages is None or lang in languages:
            blocks.append(Fence(index=len(blocks), lang=lang, line=start, closed=closed, code="\n".join(code)))

    for n, line in enumerate(text.splitlines(), start=1):
        if fence is None:
            opened = _fence(line)
            if opened is not None:
                fence, info = opened
                lang = info.split()[0].lower() if info else ""
                code, start = [], n + 1
            continue
        stripped = line.strip()
        closing = _fence(line)
        if closing is not None and closing[0][0] == fence[0] and len(closing[0]) >= len(fence) and not closing[1]:
            close(True)
            fence = None
        elif stripped.endswith(fence) and not stripped.endswith(fence[0] + fence) and stripped != fence:
            code.append(line.rstrip()[: -len(fence)])
            close(True)
            fence = None
        else:
            code.append(line)
    if fence is not None:
        close(False)
    return blocks
