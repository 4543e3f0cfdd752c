"""The workbench's footer: Textual's, recomposed only when what it shows changes.

Textual's `Footer` removes and mounts all its keys again (a widget each, styled from the stylesheet)
every time the screen's bindings are refreshed: on every focus change, tab switch and modal. Most of
those refreshes leave the footer exactly as it was; profiling the every-widget key test showed the
footer's recomposes and the styling of the new keys as the largest share of the app's CPU per key.
This footer keeps what it last composed and skips a recompose that would build the same keys, and
styles each new key once instead of three times."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey


class Footer(TextualFooter):
    _shown: tuple[Any, ...] | None = None

    def _what_it_shows(self) -> tuple[Any, ...]:
        """Everything `Footer.compose` reads, in its order: the same tuple builds the same keys."""
        if not self._bindings_ready:
            return (False,)
        app = self.app
        keys = tuple(
            (key, binding.key, app.get_key_display(binding), binding.description, binding.action, binding.show,
             binding.group, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
        )
        return (True, self.show_command_palette, app.ENABLE_COMMAND_PALETTE, app.COMMAND_PALETTE_BINDING, keys)

    def compose(self) -> ComposeResult:
        self._shown = self._what_it_shows()
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # A key starts compact (its reactive's default) and is then bound to the footer's value:
                # two restyles of every new key when the footer is not compact. It starts at that value.
                # (The command palette's key is not bound: Textual leaves it as it is, and so does this.)
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    async def recompose(self) -> None:
        if self._shown is not None and self.is_attached and self._what_it_shows() == self._shown:
            return
        await super().recompose()
