"""Narrow terminals: a fully qualified name (an import's FQN) folds at its dots, never mid-word, in the
Verdict's diff and in the Step tab's state, at 80x24 as at 120x36."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from core.family import all_families
from tests.kit.pilot import render_text, settle
from tests.kit.test_tui_kit import kit_log, require_tools
from tests.tui.test_tui_display import open_on, quiet, send_human  # noqa: F401 (quiet: a fixture)
from tui.widgets.fold import Folded

TOKEN = re.compile(r"[^\s│┃┆╎|\"'`,;()\[\]]+")


def cut_mid_word(text: str, names: list[str]) -> list[str]:
    """The tokens of `text` that are a part of one of `names` (4+ characters) but not a run of its whole
    dot-separated parts: what Rich leaves of a name it folds at any character."""
    bad = []
    for token in set(TOKEN.findall(text)):
        hits = [(name, at.start()) for name in names for at in re.finditer(re.escape(token), name)]
        if len(token) < 4 or not hits:
            continue
        aligned = any((at == 0 or name[at - 1] == ".")
                      and (at + len(token) == len(name) or token.endswith(".") or name[at + len(token)] == ".")
                      for name, at in hits)
        if not aligned:
            bad.append(token)
    return sorted(bad)


def render(renderable: object, width: int) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"), color_system=None)  # noqa: SIM115
    console.print(renderable)
    return console.export_text()


def test_folded_breaks_after_dots_and_keeps_styles() -> None:
    name = "java.util.concurrent.ConcurrentHashMap"
    text = Text(f"{name} (expected org.apache.commons.lang3.StringUtils)")
    text.stylize("bold red", 0, 4)
    for width in (12, 18, 24, 30, 47):
        lines = render(Folded(text), width).rstrip("\n").split("\n")
        assert all(len(line.rstrip()) <= width for line in lines), (width, lines)
        if width < len("ConcurrentHashMap"):
            continue  # a part wider than the line is folded by characters, as Rich would
        # every break is after a dot or at a space
        assert "".join(line.rstrip() + ("" if line.rstrip().endswith(".") else " ") for line in lines).split() \
            == text.plain.split(), (width, lines)
        assert not cut_mid_word("\n".join(lines), [name, "org.apache.commons.lang3.StringUtils"]), lines
    assert render(Folded(Text("ab.cd")), 80).strip() == "ab.cd"  # no break when it fits
    wide = Text("x" * 30)
    assert [len(line) for line in render(Folded(wide), 12).split()] == [12, 12, 6]  # wider than a line
    styled = Folded(text).lines(12)
    assert styled[0].plain == "java.util." and styled[0].spans and styled[0].spans[0].style == "bold red"


@pytest.mark.usefixtures("quiet")
async def test_fqns_fold_at_dots_in_verdict_and_step_at_80_columns(tmp_path: Path) -> None:
    from tui.app import SembenchApp

    family = all_families()["imports"]
    require_tools(family)
    log, snapshot, instances = kit_log(tmp_path, family)
    instance = max(instances, key=lambda i: max(len(f) for f in i.ground_truth["imports"]))
    truth = list(instance.ground_truth["imports"])
    assert max(len(f) for f in truth) > 40  # wider than a column of a side-by-side diff at 80 columns
    wrong = "java.util.concurrent.ConcurrentSkipListMap"
    reply = "```java\n" + "".join(f"import {f};\n" for f in [*truth[1:], wrong]) + "```\n"
    names = [*truth, wrong]
    app = SembenchApp(db=log, snapshots=tmp_path / "none.db")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_on(app, snapshot, instance.id, pilot)
        await send_human(pilot, screen, reply)
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        verdict = ""
        scroll = screen.query_one("#verdict-scroll")
        for _ in range(12):  # the whole tab, a screen at a time
            verdict += render_text(app) + "\n"
            if scroll.scroll_y >= scroll.max_scroll_y:
                break
            scroll.scroll_page_down(animate=False)
            await pilot.pause()
        assert not cut_mid_word(verdict, names), cut_mid_word(verdict, names)
        tokens = set(TOKEN.findall(verdict))
        for fqn in names:  # each name is there whole, or folded at a dot before its class name
            assert fqn in tokens or fqn.rsplit(".", 1)[-1] in tokens, (fqn, verdict)

        await pilot.press("2")
        await settle(pilot)
        stepper = screen.stepper
        assert stepper.trace is not None
        width = stepper.content_size.width
        assert 0 < width <= 80
        seen = ""
        for index in range(stepper.count):
            stepper.go(index)
            await pilot.pause()
            seen += render(stepper.render(), width)
        assert "state" in seen and any(fqn in seen.replace("\n", "") for fqn in truth), seen
        assert not cut_mid_word(seen, names), cut_mid_word(seen, names)
