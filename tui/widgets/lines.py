"""`Lines`: a renderable drawn into lines once per width; the screen then copies only the visible ones.

A Static holding a rich renderable (a problem view, a prompt, a verdict: syntax-highlighted code, tables)
is drawn whole by Textual at least twice for every layout: once to count its lines, once to paint it,
each pass a stream of every segment through rich and Textual's line splitter, and again when its tab is
shown or its screen pushed. On the instance view that was most of the time of `]`, Enter and the tab keys.
`Lines` draws its content once per width into strips, answers its height from them and hands the
compositor the lines it asks for.
"""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

WIDTHS_KEPT = 4  # a resize adds a width; a few are plenty


def draw(console: Any, options: Any, renderable: RenderableType, width: int) -> list[Strip]:
    """`renderable` drawn into lines `width` cells wide (pure: the instance view draws ahead in a thread)."""
    if isinstance(renderable, str):
        renderable = Text(renderable)
    lines = console.render_lines(renderable, options.update(width=width, height=None, highlight=False),
                                 pad=False, new_lines=False)
    return [Strip(line) for line in lines]


class DrawnOnce(Widget):
    """A widget whose `render()` is drawn into strips once per width and kept until its content changes,
    which its code says with `refresh(layout=True)` (Textual's own repaints, e.g. when a tab is shown
    again, keep them)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._drawn: dict[int, list[Strip]] = {}
        # the lines as painted (cut to the width, the widget's style under them), for one width and style
        self._painted_for: tuple[int, Any] | None = None
        self._painted: dict[int, Strip] = {}

    def drawn(self) -> dict[int, list[Strip]]:
        """The content's lines by width, as drawn so far."""
        return dict(self._drawn)

    def strips(self, width: int) -> list[Strip]:
        """The content's lines at `width`, drawn once."""
        strips = self._drawn.get(width)
        if strips is None:
            if len(self._drawn) >= WIDTHS_KEPT:
                self._drawn.pop(next(iter(self._drawn)))
            strips = self._drawn[width] = draw(self.app.console, self.app.console_options, self.render(), width)
        return strips

    def refresh(self, *regions: Any, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Any:
        if layout or recompose:
            self._drawn = {}
            self._painted_for = None
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.strips(width))

    def render_line(self, y: int) -> Strip:
        # Called for every visible line each time the widget is painted (a tab shown again paints all):
        # the style (cached by Textual until the styles change) and each line are worked out once.
        width = self.content_size.width
        style = self.visual_style.rich_style
        if self._painted_for != (width, style):
            self._painted_for, self._painted = (width, style), {}
        line = self._painted.get(y)
        if line is None:
            strips = self.strips(width)
            line = strips[y].crop_extend(0, width, None).apply_style(style) if y < len(strips) \
                else Strip.blank(width, style)
            self._painted[y] = line
        return line


class Lines(DrawnOnce):
    """A renderable shown as it is (a problem view, a prompt, a verdict)."""

    DEFAULT_CSS = """
    Lines {
        height: auto;
    }
    """

    def __init__(self, renderable: RenderableType = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._renderable: RenderableType = renderable

    @property
    def renderable(self) -> RenderableType:
        return self._renderable

    def render(self) -> RenderableType:
        return self._renderable

    def update(self, renderable: RenderableType = "", strips: dict[int, list[Strip]] | None = None) -> None:
        """Show `renderable` instead: drawn when first laid out at a width, unless `strips` (by width)
        brings it drawn."""
        self._renderable = renderable
        self.refresh(layout=True)
        self._drawn = dict(strips or {})

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width
