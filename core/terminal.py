"""Text from a file, a reply or a tool, made safe to print on a terminal.

A name or a message taken from outside may hold control characters: ESC starts CSI sequences (colours,
cursor moves, erasing lines) and OSC ones (OSC 52 sets the clipboard in terminals that allow it), a
carriage return or a newline forges lines, bidirectional overrides reorder what is shown. `shown` writes
each of them as a visible escape (`\\x1b`, `\\n`, `\\u202e`), so the CLI prints such text exactly and
never lets it act on the terminal. The workbench shows text as text already (never markup)."""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, and the Unicode format characters that reorder or hide text (bidirectional
# embeddings, overrides and isolates; line and paragraph separators).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    if char == "\r":
        return "\\r"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: object) -> str:
    """`text` with every control character escaped (one line, nothing a terminal acts on)."""
    value = text if isinstance(text, str) else str(text)
    if value.isascii() and value.isprintable():
        return value
    return _CONTROL.sub(_escape, value)


def shown_lines(text: object) -> str:
    """Like `shown`, but newlines kept (a multi-line text printed as lines: a trace, a diff)."""
    value = text if isinstance(text, str) else str(text)
    return "\n".join(shown(line) for line in value.split("\n"))
