"""A tokenizer for the Python a model writes in a cascade answer: enough to read programs, never run them.

`tokenize(code)` splits code into tokens (strings with their decoded value, names, numbers, operators)
grouped into logical lines (statements): a physical line ends a statement unless a bracket is open or
the line ends with a backslash; `;` separates statements too. Comments and indentation are dropped:
reading `replace` programs never depends on them. It is one regular expression pass plus a loop over
tokens, with no `compile` and no syntax tree.

String literals are decoded as Python decodes them (prefixes r/b/u/f in any case, single, double and
triple quotes, the escapes \\n \\t \\xhh \\uhhhh \\Uhhhhhhhh \\N{name} \\ooo and friends; an unknown
escape keeps its backslash, as Python does). A token the code cannot have (an unterminated string, a
stray closing bracket, a bad escape) makes `tokenize` raise `TokenError`; brackets still open at the end
do too. The caller then reads the code line by line.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

STRING, NAME, NUMBER, OP = "string", "name", "number", "op"

_STRING_BODY = r"""(?:'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
_TOKEN = re.compile(
    rf"""
    (?P<ws>[ \t\f\r]+|\\\r?\n)
  | (?P<newline>\n)
  | (?P<comment>\#[^\n]*)
  | (?P<string>(?P<prefix>[rRbBuUfF]{{0,2}})(?P<body>{_STRING_BODY}))
  | (?P<name>[^\W\d]\w*)
  | (?P<number>0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJ]?)
  | (?P<op>\*\*=?|//=?|>>=?|<<=?|->|:=|[-+*/%@&|^=<>!]=|[()\[\]{{}},:;.=+\-*/%@&|^~<>])
  | (?P<bad>['"]|\S)
    """,
    re.VERBOSE | re.DOTALL,
)
_ESCAPE = re.compile(r"\\(?:(\n)|([\\'\"abfnrtv])|([0-7]{1,3})|x(.{0,2})|u(.{0,4})|U(.{0,8})|N\{([^}\n]*)\}|(.))",
                     re.DOTALL)
_SIMPLE = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
           "v": "\v"}
_HEX = re.compile(r"[0-9a-fA-F]+")
_OPEN = {"(": ")", "[": "]", "{": "}"}
# Deeper bracket nesting than CPython's own parser accepts (about 200) is not code a reader needs.
MAX_NESTING = 200


class TokenError(ValueError):
    """The code cannot be tokenized as Python (the message says where)."""


@dataclass(slots=True)
class Token:
    kind: str  # STRING, NAME, NUMBER or OP
    text: str  # the source text of the token
    line: int  # 1-based physical line where it starts
    value: str = ""  # decoded value of a string literal
    str_kind: str = ""  # "str", "bytes" or "fstring" for string literals


Statement = list[Token]


def tokenize(code: str) -> list[Statement]:
    """The code's logical lines, each a list of tokens (empty statements dropped)."""
    statements: list[Statement] = []
    current: Statement = []
    stack: list[str] = []
    line = 1
    for match in _TOKEN.finditer(code):
        group = match.lastgroup
        text = match.group()
        if group == "ws":
            line += text.count("\n")
            continue
        if group == "newline":
            line += 1
            if not stack and current:
                statements.append(current)
                current = []
            continue
        if group == "comment":
            continue
        if group == "bad":
            raise TokenError(f"line {line}: unexpected {text!r}")
        if group == "string":
            prefix = match.group("prefix").lower()
            if len(prefix) == 2 and not ("r" in prefix and prefix.replace("r", "") in "bf"):
                raise TokenError(f"line {line}: bad string prefix {match.group('prefix')!r}")
            body = match.group("body")
            current.append(Token(STRING, text, line, _decode(prefix, body, line), _str_kind(prefix)))
            line += text.count("\n")
            continue
        if group == "op":
            if text in _OPEN:
                stack.append(_OPEN[text])
                if len(stack) > MAX_NESTING:
                    raise TokenError(f"line {line}: brackets nested deeper than {MAX_NESTING}")
            elif text in (")", "]", "}"):
                if not stack or stack.pop() != text:
                    raise TokenError(f"line {line}: unmatched {text!r}")
            elif text == ";" and not stack:
                if current:
                    statements.append(current)
                    current = []
                continue
        current.append(Token(NUMBER if group == "number" else OP if group == "op" else NAME, text, line))
    if stack:
        raise TokenError(f"line {line}: {len(stack)} bracket(s) never closed")
    if current:
        statements.append(current)
    return statements


def _str_kind(prefix: str) -> str:
    if "b" in prefix:
        return "bytes"
    if "f" in prefix:
        return "fstring"
    return "str"


def _decode(prefix: str, body: str, line: int) -> str:
    quote = 3 if body[:3] in ("'''", '"""') else 1
    inner = body[quote:-quote]
    if "r" in prefix or "\\" not in inner:
        return inner
    return _ESCAPE.sub(lambda m: _escape(m, line), inner)


def _escape(match: re.Match[str], line: int) -> str:
    newline, simple, octal, hex2, hex4, hex8, name, other = match.groups()
    if newline is not None:
        return ""  # a backslash-newline inside a string joins the lines
    if simple is not None:
        return _SIMPLE[simple]
    if octal is not None:
        return chr(int(octal, 8))
    for digits, width in ((hex2, 2), (hex4, 4), (hex8, 8)):
        if digits is not None:
            if len(digits) != width or not _HEX.fullmatch(digits):
                raise TokenError(f"line {line}: truncated \\x, \\u or \\U escape")
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise TokenError(f"line {line}: escape beyond Unicode")
            return chr(code)
    if name is not None:
        try:
            return unicodedata.lookup(name)
        except KeyError:
            raise TokenError(f"line {line}: unknown character name {name!r}") from None
    return "\\" + other  # an unknown escape keeps its backslash (Python warns, then does this)


def source_text(tokens: Statement) -> str:
    """The statement's tokens joined with Python's usual spacing (for showing a program to a person)."""
    out: list[str] = []
    prev: Token | None = None
    for tok in tokens:
        if prev is not None and _space_between(prev, tok):
            out.append(" ")
        out.append(tok.text)
        prev = tok
    return "".join(out)


def _space_between(prev: Token, tok: Token) -> bool:
    if tok.kind == OP and tok.text in (")", "]", "}", ",", ".", ":", ";"):
        return False
    if prev.kind == OP and prev.text in ("(", "[", "{", "."):
        return False
    calls = prev.kind in (NAME, STRING) or (prev.kind == OP and prev.text in (")", "]"))
    return not (tok.kind == OP and tok.text in ("(", "[") and calls)
