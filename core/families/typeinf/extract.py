"""Pulling a type signature out of a model's reply (TF-Bench Appendix C, and beyond).

Reasoning blocks (`<think>`, `<thinking>`, `<reasoning>`: core.extraction.split_reasoning) are dropped,
Markdown fences unwrapped (core.extraction.code_fences; the last fenced block that holds a signature
wins), the signature taken with or without the `name ::` hook, a signature split over several lines
joined, trailing prose and comments ignored, an explicit `forall` accepted.
`String`/`[Char]` need no rewriting here: the checker expands synonyms both ways. Never raises.

This is the lenient judgement; `details["released"]` holds the reply as TF-Bench's released
post-processing reads it (postprocess.py), which the default judgement checks.

Answer.value = {"name": the name before `::` (or None), "type": the type text, "signature": "name ::
type"}; failures carry `error`: empty (ResponseError), syntax (SyntaxError), instruction (a
reply that gives no signature for the function but something else, InstructionFollowing).
"""

from __future__ import annotations

import re

from core.extraction import MAX_REPLY_CHARS, code_fences, split_reasoning
from core.families.typeinf.hsparse import (
    MAX_TYPE_TOKENS,
    HsParseError,
    first_tokens_end,
    parse_type,
    split_signature,
    too_many_tokens,
)
from core.families.typeinf.postprocess import MAX_KEPT_CHARS, released_type
from core.verdict import Answer

# The whole reply is read (core.extraction refuses longer ones before a family sees them): reading is
# linear, and a window (the last 200,000 characters, before) missed a signature at the head of a long
# reply and made the cost per character jump at the window's edge.
MAX_CHARS = MAX_REPLY_CHARS
# Bounds on the type text that is parsed: the longest signature in the corpus and in
# TF-Bench's released tasks has under 60 tokens and nests brackets 4 deep; a type text above either
# bound is the answer's `too_long` failure, decided by one linear scan before any parsing (tree-sitter
# is quadratic on deep nesting, and the checker recurses along the arrow spine: 300 tokens keep it
# under 150 levels, far from Python's recursion limit).
MAX_TYPE_DEPTH = 64
# Prose after a type, cut to the end. Every whitespace run is entered only at its start ((?<!\s)) and read
# possessively: `\s+(?:where|...)` started inside a run of k spaces and backtracked over it, k² steps
# (30,000 spaces before a type's trailing comma: 188 s).
_PROSE_CUT = re.compile(r"(\s--.*$)|((?<!\s)\s++(?:where|which|because|since|here|that is|i\.e\.)\b.*$)|"
                        r"(\.\s++[A-Z].*$)|(\.\s*+$)", re.I)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
# A line that defines something (`f x = ...`): a reply of code. Possessive, and never across a line break:
# `^\s*[a-z_][\w']*[^=\n]*=` backtracked over each line's word and over runs of blank lines (k² steps:
# 30,000 letters without `=`, 11 s).
_CODE_LINE = re.compile(r"^[^\S\n]*+[a-z_][\w']*+[^=\n]*+=", re.M)
# In a reply without a signature: the `code` spans looked at, and the candidates (spans, first lines) that
# look like a type and are parsed (up to 18 parses each, see _trim): a hostile reply may hold thousands.
MAX_INLINE_SEEN, MAX_CANDIDATES_PARSED = 64, 16
MAX_NAMES_SHOWN, MAX_NAMES_KEPT = 10, 100  # names of other functions' signatures in a failure's message / details


def _candidate_blocks(text: str) -> list[str]:
    blocks = [fence.code for fence in code_fences(text)] if "```" in text or "~~~" in text else []
    with_sig = [b for b in blocks if "::" in b or "->" in b]
    if with_sig:
        return [with_sig[-1], *reversed(with_sig[:-1])]
    if blocks:
        return [*reversed(blocks), text]
    return [text]


def _signature_lines(block: str) -> list[tuple[str | None, str]]:
    """(name, type text) for every `name :: ...` in a block, continuation lines joined. Only lines holding
    `::` can start one: the others (most of a long reply) are passed over by one `in` test each."""
    if "::" not in block:
        return []
    lines = block.splitlines()
    out: list[tuple[str | None, str]] = []
    after = 0  # lines before this were joined to a signature already
    for i in [k for k, line in enumerate(lines) if "::" in line]:
        if i < after:
            continue
        line = lines[i].strip().strip("`").strip()
        name, rest = split_signature(line)
        if name is not None:
            parts = [rest]
            j = i + 1
            while j < len(lines):
                nxt = lines[j]
                stripped = nxt.strip()
                if not stripped:
                    break
                if nxt[:1].isspace() or stripped.startswith(("->", "=>", ",", ")")) or parts[-1].rstrip().endswith(
                        ("->", "=>", ",", "(")):
                    if split_signature(stripped)[0] is not None:
                        break
                    parts.append(stripped)
                    j += 1
                else:
                    break
            out.append((name, " ".join(p.strip() for p in parts)))
            after = j
    return out


_COMMENT = re.compile(r"(\{-.*?-\})|((?:^|\s)--(?![!#$%&*+./<=>?@\\^|~:]).*$)", re.S)
_PROSE_WORDS = frozenset("the is it its this that type signature answer function think returns takes of and "
                         "for with should would be so therefore thus final here".split())


def _looks_like_prose(text: str) -> bool:
    words = re.findall(r"[A-Za-z_][\w']*", text[:500])  # how a line starts decides; bounded work
    return sum(w.lower() in _PROSE_WORDS for w in words) >= 2 or (bool(words) and words[0] in ("I", "The", "So"))


def _clean_type(text: str) -> str:
    if "--" in text or "{-" in text:  # a comment needs one; most types have none (one C scan instead of a regex's)
        text = _COMMENT.sub(" ", text)
    text = text.strip().strip("`").strip()
    if text.endswith("```"):
        text = text[:-3].strip()
    return text


def _may_be_type(candidate: str) -> bool:
    """Whether a candidate could be taken as an unhooked type: the test applied to what _trim keeps (a
    prefix of the cleaned text), made before any parse, so text that cannot qualify is not parsed."""
    cleaned = _clean_type(candidate)
    return "->" in cleaned or cleaned[:1].isupper() or cleaned.startswith(("(", "["))


def _parses(text: str) -> bool:
    try:
        parse_type(text)
    except HsParseError:
        return False
    return True


class TooLong(Exception):
    """A type text above MAX_TYPE_TOKENS or MAX_TYPE_DEPTH (the message says which)."""


_BRACKET = re.compile(r"[()\[\]]")


def bound_type_text(text: str) -> None:
    """Raise TooLong when `text` has more than MAX_TYPE_TOKENS tokens or nests brackets deeper than
    MAX_TYPE_DEPTH within them (the depth is judged first, as a scan token by token would). Reads at most
    the first MAX_TYPE_TOKENS tokens and one character after them."""
    head = first_tokens_end(text)
    # Brackets are tokens of their own, so the depth over the tokens is the depth over these characters;
    # fewer opening ones than the bound cannot exceed it (two C scans decide most texts).
    if text.count("(", 0, head) + text.count("[", 0, head) > MAX_TYPE_DEPTH:
        depth = 0
        for m in _BRACKET.finditer(text, 0, head):
            if m.group() in "([":
                depth += 1
                if depth > MAX_TYPE_DEPTH:
                    raise TooLong(f"the type nests brackets more than {MAX_TYPE_DEPTH} deep")
            else:
                depth -= 1
    if too_many_tokens(text, head):
        raise TooLong(f"the type has more than {MAX_TYPE_TOKENS:,} tokens")


_MAX_CUTS = 16  # prefixes tried when prose follows the type: a fixed number, so _trim stays linear


def _error_offset(text: str) -> int:
    """The character offset in `text` where tree-sitter first fails to read it as a type (one parse)."""
    from core.families.typeinf.hsparse import _first_error, parse_tree

    head = "x__ :: "
    raw = (head + text).encode("utf-8")
    bad = _first_error(parse_tree(head + text))
    at = bad.start_byte if bad is not None else len(raw)
    return max(0, len(raw[:at].decode("utf-8", "replace")) - len(head))


def _trim(text: str) -> tuple[str | None, bool]:
    """The type text, prose after it cut when the whole does not parse; (None, _) if nothing parses.
    Raises TooLong above the bounds (before any parsing)."""
    bound_type_text(text)
    # Spacing means nothing in a type: runs of whitespace become one space, so that what is parsed (up to
    # 18 times below) is as long as its tokens, not as the padding a reply put between them.
    text = " ".join(_clean_type(text).split())
    if _parses(text):
        return text, False
    cut = _PROSE_CUT.sub("", text).strip()
    if cut != text and cut and _parses(cut):
        return cut, True
    # prose starts at or before where the parse first fails: try cut points from there backwards
    words = list(re.finditer(r"\S+", text))
    err = _error_offset(text)
    last = max((k for k, w in enumerate(words) if w.start() <= err), default=0)
    for k in range(min(last + 1, len(words) - 1), max(0, last - _MAX_CUTS), -1):
        if k <= 0:
            break
        prefix = text[:words[k - 1].end()].rstrip(".,;:")
        tail = words[k].group()
        if tail[:1].isalpha() and tail[:1].islower() and len(tail) > 2 and ("->" in prefix or "=>" in prefix) \
                and _parses(prefix):
            return prefix, True
    return None, False


def extract(text: str, instance: object | None = None) -> Answer:
    """The lenient reading (this module's rules) in value/error, and the released post-processing's
    reading in details["released"] (the type text, or None when it is too long to be one)."""
    body = _body(text) if isinstance(text, str) else None  # read once, for both readings
    try:
        answer = _extract(body, instance)
    except TooLong as exc:
        answer = Answer.failure("too_long", f"{exc}; a type that long is not an answer (bounds: "
                                            f"{MAX_TYPE_TOKENS:,} tokens, {MAX_TYPE_DEPTH} nested brackets)")
    except Exception as exc:  # noqa: BLE001 - extraction never raises, whatever the input
        answer = Answer.failure("syntax", f"the reply could not be read as a signature ({type(exc).__name__})")
    if body is not None:
        answer.details["released"] = _released(body)
    return answer


def _body(text: str) -> str:
    """The reply without reasoning, with Unix line ends, stripped: what both readings read."""
    if len(text) > MAX_CHARS:
        text = text[-MAX_CHARS:]
    return split_reasoning(text).answer.replace("\r\n", "\n").strip()


def _released(body: str) -> str | None:
    kept = released_type(body)
    if len(kept) > MAX_KEPT_CHARS:
        return None
    try:
        bound_type_text(kept)
    except TooLong:
        return None
    return kept


def _extract(body: str | None, instance: object | None) -> Answer:
    if body is None:
        return Answer.failure("empty", "no reply")
    if not body:
        return Answer.failure("empty", "the reply is empty (after removing reasoning)")
    wanted = getattr(instance, "name", None)
    details: dict[str, object] = {}
    blocks = _candidate_blocks(body)  # the fences are read once, for both passes below
    for block in blocks:
        sigs = _signature_lines(block)
        if not sigs:
            continue
        chosen = [s for s in sigs if s[0] == wanted] if wanted else sigs[-1:]
        if not chosen:
            if len(sigs) == 1:
                details["name_mismatch"] = sigs[0][0]
                chosen = sigs
            else:
                # a bounded message and list: a hostile reply may hold a signature on every line
                given = list(dict.fromkeys(str(s[0]) for s in sigs))
                names = ", ".join(given[:MAX_NAMES_SHOWN]) + (
                    f" and {len(given) - MAX_NAMES_SHOWN:,} more" if len(given) > MAX_NAMES_SHOWN else "")
                return Answer.failure("instruction", f"the reply gives signatures for {names}, none for "
                                                     f"'{wanted}'", names=given[:MAX_NAMES_KEPT])
        name, type_text = chosen[-1]
        trimmed, cut = _trim(type_text)
        if trimmed is None:
            return Answer.failure("syntax", f"'{_clean_type(type_text)[:80]}' is not a Haskell type",
                                  text=_clean_type(type_text)[:500])
        if cut:
            details["prose_removed"] = True
        return Answer.success({"name": name, "type": trimmed, "signature": f"{name or wanted} :: {trimmed}"},
                              **details)
    # no `name ::` anywhere: the reply continued from the hook, or wrote the type inline
    parsed = 0
    for block in blocks:
        # a type written inline sits near a line's start: reading 4,000 characters of a line keeps this linear
        lines = [ln.strip()[:4_000] for ln in block.splitlines() if ln.strip()]
        inline = [m.group(1) for ln in lines if "`" in ln for m in _INLINE_CODE.finditer(ln)][:MAX_INLINE_SEEN]
        tails = [re.split(r"\b(?:is|be|as)\b:?|:\s", ln)[-1] for ln in lines[:3] if _looks_like_prose(ln)]
        for candidate in [*inline, *lines[:3], *tails]:
            candidate = candidate.strip().strip("`")
            if "::" in candidate or _looks_like_prose(candidate) or not _may_be_type(candidate):
                continue
            parsed += 1
            if parsed > MAX_CANDIDATES_PARSED:
                break
            trimmed, cut = _trim(candidate)
            if trimmed is not None and ("->" in trimmed or trimmed[:1].isupper() or trimmed.startswith(("(", "["))):
                if cut:
                    details["prose_removed"] = True
                return Answer.success({"name": None, "type": trimmed,
                                       "signature": f"{wanted or 'f'} :: {trimmed}"}, hook_continued=True, **details)
    if _CODE_LINE.search(body):
        return Answer.failure("instruction", "the reply holds code, not a type signature")
    first = body[:81].splitlines()[0][:80]  # the first line, without splitting the whole reply
    return Answer.failure("syntax", f"no type signature found (first line: {first!r})")
