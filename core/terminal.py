"""Text from a file, a reply or a tool, made safe to print on a terminal.

A name or a message taken from outside may hold control characters: ESC starts CSI sequences (colours,
cursor moves, erasing lines) and OSC ones (OSC 52 sets the clipboard in terminals that allow it), a
carriage return or a newline forges lines, bidirectional overrides reorder what is shown. `shown` writes
each of them as a visible escape (`\\u001b`, `\\n`, `\\u202e`: JSON's own escapes, so a JSON text passed
through it still reads back the same), so the CLI prints such text exactly and never lets it act on the
terminal. Every line the CLI prints goes through `echo` (or `SafeConsole` for Rich's tables and bars,
whose own styling is kept); a name that could forge a line where lines are listed goes through `shown`
itself. The workbench shows text as text already (never markup)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# C0 and C1 controls, DEL, and the Unicode format characters that reorder or hide text (bidirectional
# embeddings, overrides and isolates; line and paragraph separators).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTROL_BUT_NEWLINE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or f"\\u{ord(char):04x}"


def shown(text: object) -> str:
    """`text` with every control character escaped: one line, nothing a terminal acts on."""
    value = text if isinstance(text, str) else str(text)
    if value.isascii() and value.isprintable():
        return value
    return _CONTROL.sub(_escape, value)


def shown_lines(text: object) -> str:
    """Like `shown`, newlines kept: a text printed as lines (a summary, a trace, a diff)."""
    value = text if isinstance(text, str) else str(text)
    if value.isascii() and value.replace("\n", "").isprintable():
        return value
    return _CONTROL_BUT_NEWLINE.sub(_escape, value)


def echo(message: object = "", err: bool = False, nl: bool = True) -> None:
    """click.echo of `message` with its control characters escaped (newlines kept)."""
    import click

    click.echo(shown_lines(message), err=err, nl=nl)


def safe_console(**kwargs: Any) -> Any:
    """A Rich Console whose text is escaped as `shown_lines` does, its own styling and cursor control kept:
    Rich passes ESC in a table cell or a progress label to the terminal as it is."""
    from rich.console import Console
    from rich.segment import Segment

    class SafeConsole(Console):
        def _render_buffer(self, buffer: Iterable[Segment]) -> str:
            return super()._render_buffer(
                segment if segment.control else Segment(shown_lines(segment.text), segment.style, segment.control)
                for segment in buffer)

    return SafeConsole(**kwargs)
