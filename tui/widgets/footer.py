"""The workbench's footer: Textual's, with its keys updated in place instead of rebuilt.

Textual's `Footer` removes and mounts all its keys again (a widget each, styled from the stylesheet)
every time the screen's bindings are refreshed: on every focus change, tab switch and modal. Profiling the
instance view's tab switches showed the footer's rebuild (some fifteen widgets made, mounted, styled and
laid out) as the largest single share of a key's CPU. This footer plans what Textual would show, does
nothing when the plan is what it shows, and otherwise changes the keys it has in place (text, action,
dimmed or not), mounting or removing only the difference in their number; a change in the grouped keys
(rare: another screen's groups) is a full rebuild.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import groupby
from typing import Any, NamedTuple

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey, KeyGroup


class KeySpec(NamedTuple):
    key: str
    display: str
    description: str
    action: str
    disabled: bool
    tooltip: str


class Footer(TextualFooter):
    _plan: tuple[Any, ...] | None = None

    def _planned(self) -> tuple[Any, ...]:
        """What `Footer.compose` would show, as data: ("group", compact, label, keys), ("key", key) and
        ("palette", key) entries in its order."""
        if not self._bindings_ready:
            return ()
        app = self.app
        active = self.screen.active_bindings
        by_action: defaultdict[str, list[tuple[Any, bool, str]]] = defaultdict(list)
        for _, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
        plan: list[Any] = []
        for group, runs in groupby(by_action.values(), lambda items: items[0][0].group):
            firsts = [items[0] for items in runs]
            if group is not None and len(firsts) > 1:
                keys = tuple(KeySpec(b.key, app.get_key_display(b), "", b.action, not enabled,
                                     tooltip or b.description) for b, enabled, tooltip in firsts)
                plan.append(("group", group.compact, group.description, keys))
            else:
                plan += [("key", KeySpec(b.key, app.get_key_display(b), b.description, b.action, not enabled, tooltip))
                         for b, enabled, tooltip in firsts]
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            found = active.get(app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, b, enabled, _ = found
                plan.append(("palette", KeySpec(b.key, app.get_key_display(b), b.description, b.action,
                                                not enabled, b.tooltip or b.description)))
        return tuple(plan)

    def compose(self) -> ComposeResult:
        self._plan = self._planned()
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # A key starts compact (its reactive's default) and is then bound to the footer's value:
                # two restyles of every new key when the footer is not compact. It starts at that value.
                # (The command palette's key is not bound: Textual leaves it as it is, and so does this.)
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    async def recompose(self) -> None:
        if not self.is_attached or self._plan is None:
            await super().recompose()
            return
        plan = self._planned()
        if plan == self._plan:
            return
        if not self._update_in_place(plan):
            await super().recompose()

    def _update_in_place(self, plan: tuple[Any, ...]) -> bool:
        """Show `plan` with the key widgets there are; False when its groups differ (then rebuild). The
        plain keys run between the groups: each run's keys are updated in order, and only the difference
        in a run's length is mounted (at its end) or removed."""
        old = self._plan or ()
        groups = [e[:3] + (len(e[3]),) for e in plan if e[0] == "group"]
        if groups != [e[:3] + (len(e[3]),) for e in old if e[0] == "group"]:
            return False
        wanted: list[list[KeySpec]] = [[]]
        for entry in plan:
            if entry[0] == "group":
                wanted.append([])
            elif entry[0] == "key":
                wanted[-1].append(entry[1])
        runs: list[list[FooterKey]] = [[]]
        anchors: list[Any] = [None]  # where a run that is empty now would start: after the group's label
        group_widgets: list[KeyGroup] = []
        palette: FooterKey | None = None
        for child in self.children:
            if isinstance(child, KeyGroup):
                group_widgets.append(child)
                runs.append([])
                anchors.append(child)
            elif isinstance(child, FooterKey):
                if child.has_class("-command-palette"):
                    palette = child
                else:
                    runs[-1].append(child)
            elif len(anchors) > 1:
                anchors[-1] = child  # the group's label
        if len(runs) != len(wanted) or len(group_widgets) != len(groups):
            return False
        for group_widget, entry in zip(group_widgets, (e for e in plan if e[0] == "group"), strict=True):
            for widget, spec in zip(group_widget.query_children(FooterKey), entry[3], strict=False):
                update_key(widget, spec)
        palette_spec = next((e[1] for e in plan if e[0] == "palette"), None)
        if (palette is None) != (palette_spec is None):
            return False
        if palette is not None and palette_spec is not None:
            update_key(palette, palette_spec)
        for index, (widgets, specs) in enumerate(zip(runs, wanted, strict=True)):
            for widget, spec in zip(widgets, specs, strict=False):
                update_key(widget, spec)
            for widget in widgets[len(specs):]:
                widget.remove()
            if len(specs) > len(widgets):
                new = [self._new_key(spec) for spec in specs[len(widgets):]]
                if widgets:
                    self.mount_all(new, after=widgets[-1])
                elif anchors[index] is not None:
                    self.mount_all(new, after=anchors[index])
                elif group_widgets:
                    self.mount_all(new, before=group_widgets[0])
                elif palette is not None:
                    self.mount_all(new, before=palette)
                else:
                    self.mount_all(new)
        self._plan = plan
        return True

    def _new_key(self, spec: KeySpec) -> FooterKey:
        widget = FooterKey(spec.key, spec.display, spec.description, spec.action, disabled=spec.disabled,
                           tooltip=spec.tooltip).data_bind(compact=TextualFooter.compact)
        widget.set_reactive(FooterKey.compact, self.compact)
        widget.set_class(self.compact, "-compact", update=False)
        return widget


def update_key(widget: FooterKey, spec: KeySpec) -> None:
    """Make one key show `spec`: a repaint, a layout when its width changes, a restyle when it is dimmed
    or lit again."""
    if (widget.key, widget.key_display, widget.description, widget.action, widget._disabled) == spec[:5]:
        return
    resized = (cell_len(widget.key_display), cell_len(widget.description)) != (cell_len(spec.display),
                                                                                cell_len(spec.description))
    widget.key, widget.key_display, widget.description, widget.action = spec[:4]
    if widget._disabled != spec.disabled:
        widget._disabled = spec.disabled
        widget.set_class(spec.disabled, "-disabled")
    widget.tooltip = spec.tooltip or None
    widget.refresh(layout=resized)
