"""The footer rebuilds its keys only when what it shows changes (tui/widgets/footer.py): a refresh of the
bindings that changes nothing keeps the same key widgets; one that changes a key shows the change."""

from __future__ import annotations

from conftest import SIZE, settle
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey

from tui.screens.browser import BrowserScreen


def footer_keys(app) -> list[FooterKey]:
    return list(app.screen.query_one(TextualFooter).query(FooterKey))


def shown(keys: list[FooterKey]) -> list[tuple[str, str, bool]]:
    return [(key.key, key.description, key.has_class("-disabled")) for key in keys]


def expected(app) -> list[tuple[str, str, bool]]:
    """What Textual's footer would show now: the first shown binding of each action, dimmed when disabled."""
    first: dict[str, tuple[str, str, bool]] = {}
    for _, binding, enabled, _ in app.screen.active_bindings.values():
        if binding.show:
            first.setdefault(binding.action, (binding.key, binding.description, not enabled))
    return [*first.values(), ("ctrl+p", "palette", False)]  # the command palette's key, always last


async def test_a_refresh_that_changes_nothing_keeps_the_keys_and_a_change_shows(make_app, workbench) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        before = footer_keys(app)
        assert shown(before) == expected(app)
        for _ in range(3):
            app.screen.refresh_bindings()
            await pilot.pause()
        after = footer_keys(app)
        assert len(after) == len(before) and all(a is b for a, b in zip(after, before, strict=True))
        await pilot.press("slash")  # into the search field: the table's keys leave the footer
        await settle(pilot)
        changed = footer_keys(app)
        assert shown(changed) == expected(app) and shown(changed) != shown(before)


async def test_a_new_footer_key_is_styled_once(make_app, workbench) -> None:
    """Textual's keys start compact and are then bound to the footer's value: two more restyles of each
    key. Here a key is styled when it is mounted and not again, and shows the footer's compactness."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        restyled: list[object] = []
        update_styles = app.update_styles

        def counting(node=None, animate: bool = True) -> None:
            if isinstance(node, FooterKey):
                restyled.append(node)
            update_styles(node, animate=animate)

        app.update_styles = counting  # type: ignore[method-assign]
        await pilot.press("slash")  # the footer changes: new keys
        await settle(pilot)
        keys = footer_keys(app)
        assert keys and shown(keys) == expected(app)
        assert [key for key in restyled if not key.has_class("-command-palette")] == []
        footer = app.screen.query_one(TextualFooter)
        bound = [key for key in keys if not key.has_class("-command-palette")]
        assert bound and all(key.compact == footer.compact and key.has_class("-compact") == footer.compact
                             for key in bound)
