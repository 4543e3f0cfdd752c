"""Extraction: the cascade in a model response, read from its structure and never executed.

Steps: drop the reasoning (`<think>` blocks and the like: core.extraction.split_reasoning); find the
fenced Markdown code blocks (core.extraction.code_fences); keep those that mention `replace`
(a block of examples or a test printout is not an answer), or all blocks if none does; read the FIRST and
the LAST of them into programs (paper §3.2 evaluates both). No code block at all is the typed failure
"no_code_block" (or "no_answer_within_budget" for the baseline's reply when its work budget ran out).

Where we differ from the paper: §3.2 takes the literal first and last code blocks of the response; here
"first/last block" means the first/last block that mentions `replace` (falling back to the literal ones
when no block does). A reply that ends with an example printout or opens with the examples restated
would otherwise be scored on a block that is not an answer. So that a researcher can see when this rule
made a difference, Answer.details records the choice in raw block indices (0-based, counting every
fenced block of the reply after the reasoning is removed):
    {"n_blocks": int, "first_block": i, "last_block": j,
     "literal_first_last": [0, n_blocks - 1], "filter_changed_choice": (i, j) != (0, n_blocks - 1)}
(The released scorer reads only ```python blocks, the literal first and last; a reply whose only block
is untagged is read here and has no answer there.)

Both answer formats are read, in one block or mixed:
- ours: statements with `.replace` calls, `s = s.replace("a", "b")` one per line, chains
  `s.replace(..).replace(..)` (one program per call, innermost first), `str.replace(s, "a", "b")`;
- the released PBEBench format: a Python list of program strings, `["replace('a', 'b')", ...]` (also
  after `programs =` or `"programs":`); a list element that is a bare call `replace('a', 'b')` counts
  too (the released scorer quotes such calls before reading the list), and so does a lone program
  string.
A program is, in the order Python would evaluate it:
- every method call `<expr>.replace(...)`, valid when it has exactly two positional string-literal
  arguments (implicit concatenation allowed) and a non-empty `old`;
- every bare call `replace(...)`: valid with two string literals, else invalid ("not_replace");
- every element of a released-format list: a string holding `replace(<quoted>, <quoted>)` is that
  program; any other element is an invalid program, as in the released scorer;
- every assignment `v = <expr>` / `v op= <expr>` without a replace call whose value uses `v` itself
  (e.g. `s = re.sub(...)`, `s = s.upper()`): a rewrite of the cascade variable that is not a replace
  (invalid).
Validity here is syntax only; the verifier also applies the instance's limits (side length, alphabet).

Reading is by tokens, not by compiling (pytokens.py): a block whose lines are exactly the canonical
`s = s.replace("a", "b")` takes a single regular expression; any other block is tokenized as a whole
(mode "block"); when that fails (an unterminated string, an unbalanced bracket) it is read line by line
(mode "lines") and every line that mentions `replace` but does not tokenize is one invalid program
("unparsable"). Invalid programs are kept in order (the verifier turns them into the identity).
Everything else (def, return, print, comments, blank lines) is ignored. Lone surrogates (text or string
escapes) become U+FFFD so the Answer stores as JSON.

The Answer value is `answer.CascadeAnswer` as a JSON object (so stored attempts verify again later):
    {"first": Block, "last": Block, "n_blocks": int, "n_candidates": int}
    Block = {"index": i, "lang": str, "line": first code line (1-based, in the stripped text),
             "closed": bool, "mode": "block" | "lines", "format": "statements" | "list" | "mixed" | "none",
             "capped": bool, "programs": [Program]}
    Program = {"lhs": str | None, "rhs": str | None, "valid": bool, "error": kind | None,
               "source": short rendering, "line": line within the block}
"""

from __future__ import annotations

import re
from typing import Any

from core.extraction import Fence, code_fences, split_reasoning
from core.families.cascade.answer import ERROR_WORDS
from core.families.cascade.model import CascadeInstance
from core.families.cascade.prompt import py_literal
from core.families.cascade.pytokens import (
    NAME,
    OP,
    STRING,
    Statement,
    Token,
    TokenError,
    source_text,
    tokenize,
)
from core.families.cascade.released import parse_program_string
from core.verdict import Answer

__all__ = ["ERROR_WORDS", "MAX_PROGRAMS_KEPT", "NO_ANSWER_MARK", "extract"]

MAX_PROGRAMS_KEPT = 1000  # K is at most a few dozen; more only costs memory
MAX_BLOCK_CHARS = 200_000  # larger blocks are read line by line (linear, bounded per line)
MAX_SOURCE_CHARS = 120
# The baseline's reply when its work budget ran out (see baseline.py): recorded as its own status.
NO_ANSWER_MARK = "<!-- sembench: no answer within budget -->"

_DEF = re.compile(r"\s*(?:async\s+)?def\s+(\w+)")
# The canonical answer line, `s = s.replace("a", "b")` (or single quotes), with plain printable strings.
_CANONICAL = re.compile(
    r"""[ \t]*(\w+)[ \t]*=[ \t]*\1\.replace\([ \t]*(?:"([^"\\\n\r`]*)"|'([^'\\\n\r`]*)')[ \t]*,"""
    r"""[ \t]*(?:"([^"\\\n\r`]*)"|'([^'\\\n\r`]*)')[ \t]*\)[ \t]*(?:\#[^\n]*)?"""
)

ProgramDict = dict[str, Any]
BlockDict = dict[str, Any]


def extract(text: str, instance: CascadeInstance | None = None) -> Answer:
    """The first and last code blocks' programs, or a typed failure. Never raises."""
    try:
        return _extract(text, instance)
    except Exception as exc:  # the contract is "never throws"; a bug here must not crash a batch run
        return Answer.failure("internal", f"extraction failed unexpectedly ({type(exc).__name__})")


def _extract(text: Any, instance: CascadeInstance | None) -> Answer:
    if not isinstance(text, str):
        return Answer.failure("not_text", "the response is not text")
    reply = split_reasoning(clean_unicode(text))
    body, think = reply.answer, reply.status
    details: dict[str, Any] = {"think": think}
    if instance is not None:
        details["max_programs"] = instance.max_programs()
    blocks = code_fences(body)
    if not blocks:
        if NO_ANSWER_MARK in body:
            return Answer.failure("no_answer_within_budget", "the baseline found no cascade within its work budget",
                                  **details, n_blocks=0)
        hint = " (there are replace calls outside any code block)" if ".replace(" in body else ""
        reason = " after removing the reasoning" if think != "none" else ""
        return Answer.failure("no_code_block", f"no Markdown code block in the response{reason}{hint}",
                              **details, n_blocks=0)
    candidates = [b for b in blocks if "replace" in b.code] or blocks
    first = parse_block(candidates[0])
    last = first if len(candidates) == 1 else parse_block(candidates[-1])
    details.update(block_choice(len(blocks), first["index"], last["index"]))
    value = {"first": first, "last": last, "n_blocks": len(blocks), "n_candidates": len(candidates)}
    n_prog = len(last["programs"])
    n_bad = sum(not p["valid"] for p in last["programs"])
    message = f"{len(blocks)} code block(s); the last holds {n_prog} program(s), {n_bad} invalid"
    return Answer(ok=True, value=value, message=message, details=details)


def block_choice(n_blocks: int, first: int, last: int) -> dict[str, Any]:
    """Which raw blocks were read, beside the paper's literal first and last (module docstring)."""
    literal = [0, n_blocks - 1]
    return {"n_blocks": n_blocks, "first_block": first, "last_block": last,
            "literal_first_last": literal, "filter_changed_choice": [first, last] != literal}


# ---- programs ------------------------------------------------------------------------------------
def parse_block(block: Fence) -> BlockDict:
    """The block's programs (see the module docstring); the code itself is not kept."""
    code = block.code
    meta = {"index": block.index, "lang": block.lang, "line": block.line, "closed": block.closed}
    programs = _canonical_programs(code)
    mode = "block"
    if programs is not None:  # the canonical answer: statements only, nothing to sort out
        capped = len(programs) > MAX_PROGRAMS_KEPT
        return {**meta, "mode": mode, "format": "statements" if programs else "none", "capped": capped,
                "programs": programs[:MAX_PROGRAMS_KEPT] if capped else programs}
    if programs is None:
        try:
            if len(code) > MAX_BLOCK_CHARS:
                raise TokenError("block too large to read as a whole")
            programs = _Reader(tokenize(code)).programs()
        except TokenError:
            programs, mode = _programs_by_line(code), "lines"
    capped = len(programs) > MAX_PROGRAMS_KEPT
    programs = programs[:MAX_PROGRAMS_KEPT]
    kinds = {p.get("kind") for p in programs}
    fmt = "none" if not programs else "mixed" if len(kinds) > 1 else "list" if kinds == {"list"} else "statements"
    for p in programs:
        p.pop("kind", None)
    return {**meta, "mode": mode, "format": fmt, "capped": capped, "programs": programs}


def _canonical_programs(code: str) -> list[ProgramDict] | None:
    """The programs of a block made only of canonical lines (and blank or comment lines), or None."""
    programs: list[ProgramDict] = []
    for n, line in enumerate(code.split("\n"), start=1):
        match = _CANONICAL.fullmatch(line)
        if match is None:
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                return None
            continue
        _, lhs2, lhs1, rhs2, rhs1 = match.groups()
        lhs = lhs2 if lhs2 is not None else lhs1
        rhs = rhs2 if rhs2 is not None else rhs1
        # substrings of the reply, which is already free of lone surrogates: no cleaning needed
        source = (f'replace("{lhs}", "{rhs}")' if lhs.isprintable() and rhs.isprintable() and len(lhs) + len(rhs) < 40
                  else _source(lhs, rhs))
        programs.append({"lhs": lhs, "rhs": rhs, "valid": bool(lhs), "error": None if lhs else "empty_lhs",
                         "source": source, "line": n})
        if len(programs) > MAX_PROGRAMS_KEPT:
            break
    return programs


def _program(lhs: str, rhs: str, line: int, kind: str) -> ProgramDict:
    """A program with string arguments: valid unless lhs is empty."""
    lhs, rhs = clean_unicode(lhs), clean_unicode(rhs)  # a "\ud800" escape must not reach the JSON store
    source = _source(lhs, rhs)
    if lhs == "":
        return {"lhs": lhs, "rhs": rhs, "valid": False, "error": "empty_lhs", "source": source, "line": line,
                "kind": kind}
    return {"lhs": lhs, "rhs": rhs, "valid": True, "error": None, "source": source, "line": line, "kind": kind}


def _source(lhs: str, rhs: str) -> str:
    if len(lhs) + len(rhs) < 40 and lhs.isprintable() and rhs.isprintable() and not _QUOTING.search(lhs + rhs):
        return f'replace("{lhs}", "{rhs}")'  # what py_literal would give, without its per-character loop
    return _short(f"replace({py_literal(lhs)}, {py_literal(rhs)})")


_QUOTING = re.compile(r'["\\`]')


def _invalid(error: str, source: str, line: int = 0, kind: str = "statements") -> ProgramDict:
    return {"lhs": None, "rhs": None, "valid": False, "error": error, "source": _short(source), "line": line,
            "kind": kind}


class _Group:
    """A bracketed part of a statement: its opening token and what is inside, tokens and groups."""

    __slots__ = ("open", "items")

    def __init__(self, open_token: Token) -> None:
        self.open = open_token
        self.items: list[Token | _Group] = []


Item = Token | _Group


def _tree(statement: Statement) -> list[Item]:
    """The statement as a sequence of tokens and bracketed groups (nesting is bounded by tokenize)."""
    root: list[Item] = []
    stack: list[_Group] = []
    for tok in statement:
        target = stack[-1].items if stack else root
        if tok.kind == OP and tok.text in ("(", "[", "{"):
            group = _Group(tok)
            target.append(group)
            stack.append(group)
        elif tok.kind == OP and tok.text in (")", "]", "}"):
            stack.pop()
        else:
            target.append(tok)
    return root


def _is(item: Item | None, kind: str, text: str | None = None) -> bool:
    return isinstance(item, Token) and item.kind == kind and (text is None or item.text == text)


def _split_commas(items: list[Item]) -> list[list[Item]]:
    parts: list[list[Item]] = [[]]
    for item in items:
        if _is(item, OP, ","):
            parts.append([])
        else:
            parts[-1].append(item)
    if not parts[-1]:  # a trailing comma (or nothing at all)
        parts.pop()
    return parts


def _string_value(part: list[Item]) -> tuple[str | None, str]:
    """(value, "") for a part made only of plain string literals (implicit concatenation, optional
    parentheses), else (None, why): "bytes"/"fstring" for such literals, "other" for anything else."""
    while len(part) == 1 and isinstance(part[0], _Group) and part[0].open.text == "(" and part[0].items:
        part = part[0].items
    if not part or not all(_is(item, STRING) for item in part):
        return None, "other"
    tokens = [item for item in part if isinstance(item, Token)]
    kinds = {tok.str_kind for tok in tokens}
    if kinds != {"str"}:
        return None, "fstring" if "fstring" in kinds else "bytes"
    return "".join(tok.value for tok in tokens), ""


def _render(part: list[Item]) -> str:
    value, _ = _string_value(part)
    if value is not None:
        return _short(py_literal(value))
    return _short(source_text(_flatten(part)))


def _flatten(items: list[Item]) -> list[Token]:
    out: list[Token] = []
    closing = {"(": ")", "[": "]", "{": "}"}
    for item in items:
        if isinstance(item, _Group):
            out.append(item.open)
            out.extend(_flatten(item.items))
            out.append(Token(OP, closing[item.open.text], item.open.line))
        else:
            out.append(item)
    return out


class _Reader:
    """Programs of a tokenized block, statement by statement, in evaluation order."""

    def __init__(self, statements: list[Statement], local_funcs: set[str] | None = None) -> None:
        self.statements = statements
        self.out: list[ProgramDict] = []
        if local_funcs is None:
            local_funcs = {st[1].text for st in statements
                           if len(st) > 1 and st[0].text in ("def", "async") and st[0].kind == NAME
                           and st[1].kind == NAME}
            local_funcs |= {st[2].text for st in statements
                            if len(st) > 2 and st[0].text == "async" and st[1].text == "def" and st[2].kind == NAME}
        self.local_funcs = local_funcs

    def programs(self) -> list[ProgramDict]:
        for statement in self.statements:
            before = len(self.out)
            items = _tree(statement)
            if all(_is(item, STRING) for item in items):
                value, _ = _string_value(items)
                if value is not None and "replace(" in value:  # a lone program string (the released format)
                    self._list_element(items)
            else:
                self._walk(items)
            if len(self.out) == before:
                self._rewrite(statement, items)
            if len(self.out) > MAX_PROGRAMS_KEPT:
                break
        return self.out

    # -- calls and lists
    def _walk(self, items: list[Item]) -> None:
        for j, item in enumerate(items):
            if not isinstance(item, _Group):
                continue
            prev = items[j - 1] if j else None
            if item.open.text == "(" and _is(prev, NAME, "replace"):
                self._walk(item.items)  # arguments first: Python evaluates them before the call
                self._call(items, j, item)
            elif item.open.text == "[" and not (isinstance(prev, _Group) or _is(prev, NAME) or _is(prev, STRING)):
                self._list(item)
            else:
                self._walk(item.items)
            if len(self.out) > MAX_PROGRAMS_KEPT:
                return

    def _call(self, items: list[Item], j: int, group: _Group) -> None:
        name = items[j - 1]
        line = name.line if isinstance(name, Token) else 0
        method = j >= 2 and _is(items[j - 2], OP, ".")
        args = _split_commas(group.items)
        unbound = method and j >= 3 and _is(items[j - 3], NAME, "str") and not (j >= 4 and _is(items[j - 4], OP, "."))
        if unbound:
            args = args[1:]  # str.replace(s, old, new) is the unbound form of s.replace(old, new)
        rendered = "replace(" + ", ".join(_render(a) for a in args) + ")"
        keywords = any(len(a) >= 2 and _is(a[0], NAME) and _is(a[1], OP, "=") for a in args)
        starred = any(a and (_is(a[0], OP, "*") or _is(a[0], OP, "**")) for a in args)
        if not method and (len(args) != 2 or keywords or starred):
            self.out.append(_invalid("not_replace", rendered, line))
            return
        if keywords or starred or len(args) != 2:
            self.out.append(_invalid("arity", rendered, line))
            return
        (lhs, _), (rhs, _) = _string_value(args[0]), _string_value(args[1])
        if lhs is None or rhs is None:
            self.out.append(_invalid("non_string", rendered, line))
            return
        self.out.append(_program(lhs, rhs, line, "statements"))

    def _list(self, group: _Group) -> None:
        elements = _split_commas(group.items)
        if not any(self._is_program_element(e) for e in elements):
            self._walk(group.items)
            return
        for element in elements:  # the released format: every element is a program
            self._list_element(element)

    @staticmethod
    def _is_program_element(element: list[Item]) -> bool:
        value, _ = _string_value(element)
        if value is not None:
            return "replace(" in value
        return len(element) == 2 and _is(element[0], NAME, "replace") and isinstance(element[1], _Group)

    def _list_element(self, element: list[Item]) -> None:
        line = next((i.line if isinstance(i, Token) else i.open.line for i in element), 0)
        value, why = _string_value(element)
        if value is not None:
            parsed = parse_program_string(value)
            if parsed is None:
                self.out.append(_invalid("not_replace", value, line, "list"))
            else:
                program = _program(parsed[0], parsed[1], line, "list")
                self.out.append(program)
            return
        if len(element) == 2 and _is(element[0], NAME, "replace") and isinstance(element[1], _Group):
            before = len(self.out)
            self._walk(element)  # a bare replace('a', 'b') call, as the released scorer reads it
            for program in self.out[before:]:
                program["kind"] = "list"
            return
        before = len(self.out)
        self._walk(element)
        if len(self.out) == before:
            error = "non_string" if why in ("bytes", "fstring", "other") else "not_replace"
            self.out.append(_invalid(error, _render(element), line, "list"))

    # -- rewrites of the cascade variable
    def _rewrite(self, statement: Statement, items: list[Item]) -> None:
        """`v = f(..v..)` / `v op= ...` without any replace call: the variable rewritten by something else."""
        if len(items) < 3 or not _is(items[0], NAME) or not isinstance(items[1], Token) or items[1].kind != OP:
            return
        op = items[1].text
        name = items[0].text
        value = items[2:]
        if op == "=":
            if any(_is(item, OP, "=") for item in value):  # a = b = c: not a rewrite we can read
                return
            if len(value) == 1 and _is(value[0], NAME):  # `s = s` or `s = t`: no rewrite
                return
            uses_self = False
        elif op.endswith("=") and op not in ("==", "<=", ">=", "!=", ":="):
            uses_self = True
        else:
            return
        flat = _flatten(value)
        for k, tok in enumerate(flat):
            calls = k + 1 < len(flat) and flat[k + 1].kind == OP and flat[k + 1].text == "("
            if calls and tok.kind == NAME and (tok.text == "replace" or tok.text in self.local_funcs):
                return  # a replace call is already a program; a call to a function the block defines is a harness
            if tok.kind == NAME and tok.text == name:
                uses_self = True
        if uses_self:
            self.out.append(_invalid("not_replace", source_text(statement), statement[0].line))


def _programs_by_line(code: str) -> list[ProgramDict]:
    programs: list[ProgramDict] = []
    lines = code.split("\n")
    local_funcs = {m.group(1) for m in map(_DEF.match, lines) if m}
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        # only lines that can hold a program are read: keeps huge blocks of prose cheap
        if not line or line.startswith("#") or ("replace" not in line and "=" not in line):
            continue
        try:
            statements = tokenize(line)
        except TokenError:
            if "replace" in line:
                programs.append(_invalid("unparsable", line, n))
            continue
        for statement in statements:
            for tok in statement:
                tok.line = n
        programs.extend(_Reader(statements, local_funcs).programs())
        if len(programs) > MAX_PROGRAMS_KEPT:
            break
    return programs


def _short(text: str) -> str:
    text = clean_unicode(text)
    return text if len(text) <= MAX_SOURCE_CHARS else text[: MAX_SOURCE_CHARS - 1] + "…"


def clean_unicode(text: str) -> str:
    """Lone surrogates (a JSON "\\ud800" escape decodes to one) become U+FFFD: they cannot be stored as
    UTF-8. A surrogate pair split over two code points is joined back into its character."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
