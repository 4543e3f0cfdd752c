"""The instance view's containers, painted as what they are: their background.

A tab key makes Textual repaint every container around the new pane (`TabbedContent.active`, its
switcher's `current` and the screen's `focused` are reactives that repaint their widget), and a pane is
repainted whenever it is shown. A container's paint is only its background, but Textual builds it line by
line through its styles (colours, padding, borders, filters): on pbebench about a hundred lines per tab
key, a large part of the key's paint. Textual's `BLANK` says "this widget is its background": its lines are
one blank strip. That holds for these containers, which have no border, outline, title or tint in the
stylesheet: the snapshot tests' views are the same, cell for cell, as when they were drawn line by line.

`Tabbed` keeps the tab the code chose. Textual also switches to a pane when a widget in it gets the
focus, through a chain of messages (Focus, DescendantFocus up to the pane, the pane's Focused up to the
tabs) that can arrive after the code chose another tab: the Solve panel's picker is focused when an
answer is sent (in a session, Textual's blur of the hidden editor hands the focus to its neighbour in
Solve), the Verdict tab is chosen when the answer is checked, and the late message switched back to Solve
(on a loaded machine, now and then). A pane's Focused message now shows the pane only while the
focus is still in it and no tab chosen since is waiting for its own focus; focusing a widget of a hidden
pane still shows that pane.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import ContentSwitcher, TabbedContent, TabPane


class Pane(TabPane):
    BLANK = True


class Scroll(VerticalScroll):
    BLANK = True


class Tabbed(TabbedContent):
    BLANK = True
    _chosen: str | None = None  # the tab chosen last, until its focus is set (`release`)

    def on_mount(self) -> None:
        # Textual composes the switcher itself; it is a container like the others
        self.get_child_by_type(ContentSwitcher).BLANK = True

    def choose(self, tab: str) -> None:
        """Show `tab`; a focus elsewhere that is still on its way does not undo it."""
        self._chosen = tab
        self.active = tab

    def release(self) -> None:
        """The chosen tab's focus is set (the caller queues this behind its `focus()`, which Textual
        defers the same way): from now on a focus outside the tab's pane shows its own pane again."""
        self._chosen = None

    def _on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        pane = event.tab_pane
        focused = self.screen.focused
        if (self._chosen is not None or focused is None or pane not in focused.ancestors
                or pane.id == self.active):
            # stale (see the module's docstring) or nothing to do; Textual calls each class's handler in
            # turn, so its own is skipped with prevent_default
            event.stop()
            event.prevent_default()
