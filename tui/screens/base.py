"""The workbench's screens share one rule for the footer: `? Help` and `q Quit` come first, so a narrow
terminal (80 columns) that cuts the footer's right end never hides them. They are opaque, full screens
(the dialogs are ModalScreens): their own paint is their background, one blank strip (Textual's `BLANK`;
see tui.widgets.containers), not a line-by-line render each time one is shown or its focus moves."""

from __future__ import annotations

from textual.binding import ActiveBinding
from textual.screen import Screen

FIRST = ("help", "quit")


class SembenchScreen(Screen):
    BLANK = True

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        bindings = super().active_bindings
        first = {key: b for key, b in bindings.items() if b.node is self.app and b.binding.action in FIRST}
        ordered = sorted(first.items(), key=lambda item: FIRST.index(item[1].binding.action))
        return {**dict(ordered), **{key: b for key, b in bindings.items() if key not in first}}
