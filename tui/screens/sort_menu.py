"""The browser's sort menu (`O`): every column at once, instead of cycling through them with `s`."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

CSS = """
SortMenu { align: center middle; }
SortMenu .modal-box { width: 50; max-width: 95%; height: auto; border: thick $accent; background: $surface;
                      padding: 1 2; }
SortMenu OptionList { height: auto; max-height: 20; }
"""


class SortMenu(ModalScreen[tuple[str, bool] | None]):
    """Pick a column to sort by: enter sorts ascending, `r` descending; escape leaves the order."""

    DEFAULT_CSS = CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("r", "reverse", "Descending")]

    def __init__(self, columns: list[str], current: str | None, reverse: bool) -> None:
        super().__init__()
        self.columns = columns
        self.current = current
        self.reverse = reverse

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Static(Text("Sort by (enter: ascending, r: descending)", style="bold"))
            options = []
            for column in self.columns:
                label = Text(column)
                if column == self.current:
                    label.append(f"  {'▼' if self.reverse else '▲'} now", style="dim")
                options.append(Option(label, id=column))
            yield OptionList(*options, id="sort-columns")

    def on_mount(self) -> None:
        menu = self.query_one(OptionList)
        if self.current in self.columns:
            menu.highlighted = self.columns.index(self.current)
        menu.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss((str(event.option.id), False))

    def action_reverse(self) -> None:
        menu = self.query_one(OptionList)
        if menu.highlighted is not None:
            self.dismiss((self.columns[menu.highlighted], True))

    def action_cancel(self) -> None:
        self.dismiss(None)
