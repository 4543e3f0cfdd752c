"""Text that wraps where a reader expects it to: at spaces, and inside a long dotted name after a `.`
(`java.util.concurrent.` / `ConcurrentHashMap`), keeping every part of the name whole.

Rich wraps only at whitespace; a word wider than the line is folded at any character (`Concurren` /
`tHashMap`) or cut with an ellipsis, depending on the overflow in force. A fully qualified name is one
word to Rich, so in a narrow column its class name was split or lost. Here a line is broken before a
piece that does not fit, a piece being a run of non-space characters up to and including its dots; only
a piece wider than the whole line is folded by characters. Styles (a diff's marked spans) are kept."""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

_PIECE = re.compile(r"[^\s.]*\.+|[^\s.]+|\s+")


def break_offsets(line: str, width: int) -> list[int]:
    """Where to break one line (no newline in it) so that no part is wider than `width` cells."""
    width = max(1, width)
    offsets: list[int] = []
    used = 0
    for match in _PIECE.finditer(line):
        piece = match.group()
        if piece.isspace():
            used += cell_len(piece)  # spaces may run past the edge: they are stripped at the break
            continue
        size = cell_len(piece)
        if used and used + size > width:
            offsets.append(match.start())
            used = 0
        start = match.start()
        while size > width:  # wider than a whole line: by characters, as Rich would
            cut, taken = start, 0
            while cut < match.end() and taken + cell_len(line[cut]) <= width:
                taken += cell_len(line[cut])
                cut += 1
            cut = max(cut, start + 1)
            offsets.append(cut)
            size -= cell_len(line[start:cut])
            start = cut
        used += size
    return [o for o in offsets if 0 < o < len(line)]


def pieces(line: str) -> list[str]:
    return [m.group() for m in _PIECE.finditer(line) if not m.group().isspace()]


class Folded:
    """`text` wrapped at spaces and after dots (see the module's docstring)."""

    def __init__(self, text: Text | str, style: str = "") -> None:
        self.text = text if isinstance(text, Text) else Text(text, style=style)

    def lines(self, width: int) -> list[Text]:
        out: list[Text] = []
        for line in self.text.split("\n", allow_blank=True):
            for part in line.divide(break_offsets(line.plain, width)):
                part.rstrip()
                out.append(part)
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = self.lines(options.max_width)
        joined = Text("\n", end=self.text.end).join(lines)
        joined.no_wrap = True
        joined.overflow = "crop"  # never needed: no line is wider than max_width
        yield joined

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        plain = self.text.plain
        longest_piece = max((cell_len(p) for line in plain.split("\n") for p in pieces(line)), default=1)
        longest_line = max((cell_len(line.rstrip()) for line in plain.split("\n")), default=1)
        return Measurement(min(longest_piece, longest_line), longest_line).clamp(max_width=options.max_width)
