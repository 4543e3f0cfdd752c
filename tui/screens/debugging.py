"""Small questions the instance view asks while debugging a rejection: what to copy (`y`) and where to
export the instance (`E`)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

COPY_CHOICES = (("prompt", "the prompt"), ("reply", "the raw reply"), ("answer", "the extracted answer"),
                ("verdict", "the verdict"))


class CopyMenu(ModalScreen[str | None]):
    """Which text of the open attempt to copy; dismissed with the choice's id (None: nothing)."""

    DEFAULT_CSS = """
    CopyMenu { align: center middle; }
    #copy-box { width: 50; height: auto; border: round $accent; background: $surface; padding: 0 1; }
    #copy-menu { height: auto; }
    """
    BINDINGS = [Binding("escape,q", "cancel", "Close")]

    def __init__(self, available: set[str]) -> None:
        super().__init__()
        self.available = available

    def compose(self) -> ComposeResult:
        with Vertical(id="copy-box"):
            yield Static(Text("Copy to the clipboard", style="bold"))
            options = [Option(f"{n} {label}" if key in self.available else f"{n} {label} (no attempt open)",
                              id=key, disabled=key not in self.available)
                       for n, (key, label) in enumerate(COPY_CHOICES, start=1)]
            yield OptionList(*options, id="copy-menu")

    def on_mount(self) -> None:
        menu = self.query_one("#copy-menu", OptionList)
        menu.focus()
        first = next((i for i, (key, _) in enumerate(COPY_CHOICES) if key in self.available), None)
        if first is not None:
            menu.highlighted = first

    def on_key(self, event: object) -> None:
        # 1-4 pick at once (k9s and lazygit habits: the menu is keyboard-first)
        key = getattr(event, "key", "")
        if key in ("1", "2", "3", "4"):
            choice = COPY_CHOICES[int(key) - 1][0]
            if choice in self.available:
                getattr(event, "stop", lambda: None)()
                self.dismiss(choice)

    @on(OptionList.OptionSelected, "#copy-menu")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExportPrompt(ModalScreen[str | None]):
    """The path to export the instance to (JSONL); dismissed with the path (None: cancelled)."""

    DEFAULT_CSS = """
    ExportPrompt { align: center middle; }
    #export-box { width: 80; height: auto; border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, default: str) -> None:
        super().__init__()
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static(Text("Export this instance, its attempts and its notes as JSONL to:", style="bold"))
            yield Input(self.default, id="export-path")
            yield Static(Text("enter: write (an existing file is replaced) · escape: cancel", style="dim"))

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        if path:
            self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)
