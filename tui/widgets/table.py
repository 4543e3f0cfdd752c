"""A virtual table (Line API): renders only the rows on screen, so 10,000 rows cost nothing.

Textual's DataTable measures every cell of every row it is given; this one takes the row tuples as
they are, computes column widths from string lengths, and draws lines on demand.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import DataTable

MAX_WIDTH = 40  # a column never grows wider than this; longer cells are cut with an ellipsis
WIDTH_SAMPLE = 2000  # rows measured for column widths (beyond that, widths hardly ever change)


class VirtualTable(ScrollView, can_focus=True):
    """Rows of strings with a fixed header line and a row cursor."""

    BINDINGS = [
        Binding("enter", "select", "Open", show=True),
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),  # as in lazygit, k9s and vi
        Binding("j", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
    ]

    COMPONENT_CLASSES = {"virtual-table--header", "virtual-table--cursor", "virtual-table--odd",
                         "virtual-table--sorted"}

    DEFAULT_CSS = """
    VirtualTable { height: 1fr; }
    VirtualTable > .virtual-table--header { text-style: bold; background: $panel; }
    VirtualTable > .virtual-table--sorted { text-style: bold underline; background: $panel; }
    VirtualTable > .virtual-table--cursor { background: $secondary 30%; }
    VirtualTable:focus > .virtual-table--cursor { background: $accent; color: $text; }
    VirtualTable > .virtual-table--odd { background: $surface; }
    """

    cursor_row: reactive[int] = reactive(0)

    class RowMessage(Message):
        """A row event; `control` lets handlers use `@on(..., "#id")` selectors."""

        def __init__(self, table: VirtualTable, row: int) -> None:
            self.table = table
            self.row = row
            super().__init__()

        @property
        def control(self) -> VirtualTable:
            return self.table

    class Highlighted(RowMessage):
        pass

    class Selected(RowMessage):
        pass

    class HeaderClicked(Message):
        def __init__(self, table: VirtualTable, column: int) -> None:
            self.table = table
            self.column = column
            super().__init__()

        @property
        def control(self) -> VirtualTable:
            return self.table

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns: list[str] = []
        self.rows: Sequence[Sequence[str]] = []
        self.widths: list[int] = []
        self.sorted_column: int | None = None
        self.sort_reverse = False

    # -- data --------------------------------------------------------------------------------
    def set_data(self, columns: Sequence[str], rows: Sequence[Sequence[str]], keep_cursor: bool = False) -> None:
        self.columns = list(columns)
        self.rows = rows
        widths = [len(c) + 2 for c in self.columns]  # room for the sort arrow
        for row in rows[:WIDTH_SAMPLE]:
            for i, cell in enumerate(row):
                if len(cell) > widths[i]:
                    widths[i] = len(cell)
        self.widths = [min(w, MAX_WIDTH) for w in widths]
        total = sum(self.widths) + 2 * len(self.widths)
        self.virtual_size = Size(total, len(rows) + 1)
        row = self.cursor_row if keep_cursor else 0
        self.set_reactive(VirtualTable.cursor_row, max(0, min(row, len(rows) - 1)))
        if not keep_cursor:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self._scroll_cursor_visible()
        self.refresh()
        if rows:
            self.post_message(self.Highlighted(self, self.cursor_row))

    @property
    def row_count(self) -> int:
        return len(self.rows)

    # -- rendering ---------------------------------------------------------------------------
    def _line(self, cells: Sequence[str], style: Style, header: bool = False) -> list[Segment]:
        segments: list[Segment] = []
        for i, (cell, width) in enumerate(zip(cells, self.widths, strict=False)):
            text = cell
            if header and i == self.sorted_column:
                text = f"{cell} {'▼' if self.sort_reverse else '▲'}"
            if len(text) > width:
                text = text[: width - 1] + "…"
            cell_style = style
            if header and i == self.sorted_column:
                cell_style = style + self.get_component_rich_style("virtual-table--sorted")
            segments.append(Segment(" " + text.ljust(width) + " ", cell_style))
        return segments

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        base = self.rich_style
        if y == 0:
            style = base + self.get_component_rich_style("virtual-table--header")
            segments = self._line(self.columns, style, header=True)
            return Strip(segments).crop_extend(scroll_x, scroll_x + width, style)
        index = scroll_y + y - 1
        if index >= len(self.rows):
            return Strip.blank(width, base)
        style = base
        if index % 2:
            style = style + self.get_component_rich_style("virtual-table--odd")
        if index == self.cursor_row:
            style = style + self.get_component_rich_style("virtual-table--cursor")
        segments = self._line(self.rows[index], style)
        return Strip(segments).crop_extend(scroll_x, scroll_x + width, style)

    # -- cursor ------------------------------------------------------------------------------
    @property
    def _page(self) -> int:
        return max(1, self.size.height - 1 - (1 if self.show_horizontal_scrollbar else 0))

    def _scroll_cursor_visible(self) -> None:
        if not self.rows:
            return
        top = round(self.scroll_y)
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, immediate=True)
        elif self.cursor_row >= top + self._page:
            self.scroll_to(y=self.cursor_row - self._page + 1, animate=False, immediate=True)

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._scroll_cursor_visible()
        self.refresh()
        if self.rows:
            self.post_message(self.Highlighted(self, new))

    def move_cursor(self, row: int) -> None:
        if self.rows:
            self.cursor_row = max(0, min(row, len(self.rows) - 1))

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor_row + 1)

    def action_page_up(self) -> None:
        self.move_cursor(self.cursor_row - self._page)

    def action_page_down(self) -> None:
        self.move_cursor(self.cursor_row + self._page)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(len(self.rows) - 1)

    def action_select(self) -> None:
        if self.rows:
            self.post_message(self.Selected(self, self.cursor_row))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            x = offset.x + round(self.scroll_x)
            edge = 0
            for i, width in enumerate(self.widths):
                edge += width + 2
                if x < edge:
                    self.post_message(self.HeaderClicked(self, i))
                    break
            return
        row = round(self.scroll_y) + offset.y - 1
        if 0 <= row < len(self.rows):
            if row == self.cursor_row or event.chain >= 2:
                self.cursor_row = row
                self.post_message(self.Selected(self, row))
            else:
                self.cursor_row = row


class RowTable(DataTable):
    """A DataTable of rows (snapshots, History, Runs) where Home/End go to the first/last row, as in the
    instance list (DataTable's own Home/End scroll sideways with a row cursor); a cell updated in place
    with `update_width=True` is drawn whole (see `_on_idle`)."""

    BINDINGS = [
        Binding("home", "scroll_top", "First", show=False),
        Binding("end", "scroll_bottom", "Last", show=False),
        Binding("k", "cursor_up", "Up", show=False),  # as in lazygit, k9s and vi
        Binding("j", "cursor_down", "Down", show=False),
    ]

    async def _on_idle(self, event: events.Idle) -> None:
        # DataTable widens a column for an updated cell when idle, but its rendered cells and lines stay
        # cached under keys that hold no width (only an update counter): a run's state going "running" ->
        # "finished" or its progress 9/12 -> 12/12 stayed cut ("finishe", "12/1") until the next update.
        # A new counter value makes those caches miss once the widths moved.
        before = [column.content_width for column in self.columns.values()]
        await super()._on_idle(event)
        if [column.content_width for column in self.columns.values()] != before:
            self._update_count += 1
            self.refresh()
