"""What every family's extractor needs from a raw reply: a bound on the work (replies too long to be an
answer are not read), the answer apart from the reasoning, and the fenced code blocks in it (with a
language filter). One implementation, so every family reads replies alike.

Length bound: a reply of 50 MB (a runaway generation, a server streaming garbage, a file from elsewhere)
would keep a family's extractor busy for seconds, on the event loop that also carries every request in
flight. No answer to any family is anywhere near this long (a model's whole output budget of 100k+ tokens
is about 400k characters), so such a reply is a typed extraction failure, "too_long", decided from its
length alone. Shorter replies reach the family's `extract` exactly as they are.

Reasoning: the rule is the one core.models.think applies to replies as they stream. A block in any of
REASONING_TAGS (`<think>`, `<thinking>`, `<reasoning>`: models emit all three), tag names matched
case-insensitively, is reasoning, and ends only at its own closing tag; an unclosed block is reasoning to
the end (a reply cut off while thinking); a stray closing tag with no opening tag means everything before
it was reasoning (the opening tag was in the chat template; the streaming splitter cannot know a closing
tag is stray in time, so it leaves it for this one). Answer pieces around a block are joined as they are,
as the streaming splitter joins them.

Code fences: ``` or ~~~ runs of 3 or more, CommonMark-style, read line by line. Which block is the answer
stays each family's rule; only the parsing is shared. Both helpers are linear in the reply's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.verdict import Answer

if TYPE_CHECKING:
    from core.family import Family
    from core.instance import Instance

MAX_REPLY_CHARS = 1_000_000
REASONING_TAGS = ("think", "thinking", "reasoning")
# An opening or closing tag: group 1 is "/" for a closing one, group 2 the name in any case. ASCII case
# only: without re.ASCII, IGNORECASE would also read the Kelvin sign as "k" and a dotless "ı" as "i".
REASONING_TAG = re.compile(rf"<(/?)({'|'.join(REASONING_TAGS)})>", re.IGNORECASE | re.ASCII)


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


# Plain dataclasses, not pydantic models: they are made for every reply read and never stored.
@dataclass(slots=True)
class Reply:
    """A reply split in two. `status`: "none" (no tags), "stripped", or "unclosed" (cut off while thinking);
    `unclosed` is the text of that last, unclosed block (also part of `reasoning`)."""

    answer: str
    reasoning: str
    status: str
    unclosed: str = ""


def split_reasoning(text: str) -> Reply:
    """The answer text without reasoning blocks, and the reasoning (blocks joined by blank lines)."""
    # One split over the tags: [text, "/" or "", name, text, ...]. Linear in the text, however many tags.
    parts = REASONING_TAG.split(text)
    if len(parts) == 1:
        return Reply(answer=text, reasoning="", status="none")
    kept: list[str] = []
    thought: list[str] = []
    run = [parts[0]]  # the text since the last tag that changed sides
    inside: str | None = None  # the name of the open block, lower case
    for k in range(1, len(parts), 3):
        slash, name, after = parts[k], parts[k + 1], parts[k + 2]
        if inside is None:
            if slash:  # a stray closing tag: what came before it was reasoning
                thought.extend(kept)
                thought.append("".join(run))
                kept.clear()
            else:
                kept.append("".join(run))
                inside = name.lower()
            run = [after]
        elif slash and name.lower() == inside:
            thought.append("".join(run))
            inside, run = None, [after]
        else:  # another tag inside a block is part of the reasoning
            run += (f"<{slash}{name}>", after)
    unclosed, status = "", "stripped"
    if inside is None:
        kept.append("".join(run))
    else:
        unclosed, status = "".join(run), "unclosed"
        thought.append(unclosed)
    reasoning = "\n\n".join(stripped for part in thought if (stripped := part.strip()))
    return Reply(answer="".join(kept), reasoning=reasoning, status=status, unclosed=unclosed)


@dataclass(slots=True)
class Fence:
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
            # most lines of a reply are prose: a fence needs ``` or ~~~ at its start, checked cheaply first
            if ("```" in line or "~~~" in line) and (opened := _fence(line)) is not None:
                fence, info = opened
                lang = info.split()[0].lower() if info else ""
                code, start = [], n + 1
            continue
        if fence not in line:  # neither a closing fence nor one glued to the code: a plain code line
            code.append(line)
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
