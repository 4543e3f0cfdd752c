"""A renderable drawn once per width and then replayed.

Textual draws a Static's content at least twice (to measure its height, then to paint it), and again on
every layout: for syntax-highlighted code and prompts that was pygments run several times per key on the
instance view. `Rendered` keeps the lines of the last few widths it was drawn at.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.measure import Measurement
from rich.segment import Segment

WIDTHS_KEPT = 4  # a resize adds a width; a few are plenty


class Rendered:
    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._lines: dict[tuple[Any, ...], list[list[Segment]]] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        key = (options.max_width, options.min_width, options.no_wrap, options.justify, options.overflow,
               options.highlight, options.markup)
        lines = self._lines.get(key)
        if lines is None:
            if len(self._lines) >= WIDTHS_KEPT:
                self._lines.pop(next(iter(self._lines)))
            lines = self._lines[key] = console.render_lines(self.renderable, options.update(height=None), pad=False)
        newline = Segment.line()
        for line in lines:
            yield from line
            yield newline

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)
