"""Small modals for the researcher's own data: the note-and-tags editor (`N`, opened by `edit_note` from the
browser and the instance view alike), a one-line prompt (a tag, an export path, a model), and the menu of
actions on the browser's marked rows."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from core.errors import UserError
from core.store import notes
from core.store.notes import Note

MODAL_CSS = """
NoteEditor, PromptScreen, MarkedMenu { align: center middle; }
.modal-box { width: 70; max-width: 95%; height: auto; border: thick $accent; background: $surface; padding: 1 2; }
.modal-box Static { height: auto; }
#note-text { height: 8; }
"""


class NoteEditor(ModalScreen[tuple[str, list[str]] | None]):
    """An instance's note (free text) and tags (words); ctrl+s saves, escape cancels."""

    DEFAULT_CSS = MODAL_CSS
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, note: Note) -> None:
        super().__init__()
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Static(Text(f"Note on {self.note.instance_id}", style="bold"))
            yield TextArea(self.note.note, id="note-text")
            yield Static("tags (words, space-separated)")
            yield Input(" ".join(self.note.tags), id="note-tags")
            yield Static(Text("ctrl+s save · escape cancel", style="dim"))

    def on_mount(self) -> None:
        self.query_one("#note-text", TextArea).focus()

    def action_save(self) -> None:
        self.dismiss((self.query_one("#note-text", TextArea).text, self.query_one("#note-tags", Input).value.split()))

    def action_cancel(self) -> None:
        self.dismiss(None)


class PromptScreen(ModalScreen[str | None]):
    """One line of text: enter gives it, escape gives None."""

    DEFAULT_CSS = MODAL_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Static(Text(self.question))
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input")

    def on_mount(self) -> None:
        self.query_one("#prompt-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


MARKED_ACTIONS = (("tag", "Tag the marked rows"), ("export", "Export the marked instances (JSONL)"),
                  ("run", "Send the marked instances to a solver as a run"), ("clear", "Unmark all"))


class MarkedMenu(ModalScreen[str | None]):
    """What to do with the marked rows: one of MARKED_ACTIONS' keys, or None."""

    DEFAULT_CSS = MODAL_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Static(Text(f"{self.count} marked row(s)", style="bold"))
            yield OptionList(*(Option(label, id=key) for key, label in MARKED_ACTIONS), id="marked-actions")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


def edit_note(screen: Screen, snapshot: str, instance_id: str, then: Callable[[], object]) -> None:
    """Open the note editor (`N`) on one instance; saved to the log database, then `then()`."""
    conn = screen.app.workspace.log.db.conn
    note = notes.get(conn, snapshot, instance_id)

    def saved(result: tuple[str, list[str]] | None) -> None:
        if result is None:
            return
        text, tags = result
        try:
            notes.put(conn, note.model_copy(update={"note": text, "tags": tags}))
        except UserError as exc:
            screen.notify(str(exc), severity="error", markup=False)
            return
        screen.notify(f"note on {instance_id} saved", markup=False)
        then()

    screen.app.push_screen(NoteEditor(note), saved)
