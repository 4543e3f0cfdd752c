"""Human baselines that measure what they claim, in every family: a 5-instance session driven with Pilot
on a fake clock. A person's time runs from the moment the problem is shown to the moment the answer is
sent (pauses left out) and the first keystroke is recorded apart; everything the model's prompt holds can
be brought on screen in the Solve tab at 120x36 and 80x24 while the clock runs; no hint feature (what
gives the answer's shape away) is on screen until the person asks (`h`, recorded); an answer the family
cannot read asks "send anyway?" (enter sends, escape goes back to the editor)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import FakeClock, render_text, settle
from textual.containers import VerticalScroll
from textual.widgets import TextArea

from core.extraction import extract
from core.family import Family, get_family
from core.instance import Instance, Snapshot
from core.store import LogStore
from tests.kit.test_tui_kit import quiet_env, require_tools  # noqa: F401 (quiet_env: a fixture)
from tui.data import parse_json
from tui.screens.browser import BrowserScreen
from tui.screens.session import SendAnywayScreen, SessionScreen, SessionSummaryScreen
from tui.screens.session_dialog import SessionDialog

pytestmark = pytest.mark.usefixtures("quiet_env")  # no user config or endpoint of the machine
N = 5
FAMILIES = [
    pytest.param("cascade", id="cascade"),
    pytest.param("membership", id="membership"),
    pytest.param("typeinf", id="typeinf", marks=pytest.mark.ghc),
    pytest.param("imports", id="imports", marks=pytest.mark.javac),
    pytest.param("specs", id="specs", marks=pytest.mark.framac),
]
BOX = re.compile(r"[\u2500-\u259f]")  # box drawing and block elements: borders, scroll bars
UNREADABLE = ("maybe", "I don't know")


def flat(text: str) -> str:
    return " ".join(BOX.sub(" ", text).split())


def instances(family: Family) -> list[Instance]:
    preset = next(iter(family.presets().values()))
    params = family.resolve_params(preset.name)
    return [family.generate_one(params, preset.seed, i) for i in range(N)]


def baseline_log(tmp_path: Path, family: Family) -> tuple[Path, str, dict[str, Instance]]:
    made = instances(family)
    name = f"baseline-{family.id}"
    log = tmp_path / "log.db"
    store = LogStore(log)
    try:
        store.write_snapshot(Snapshot(name=name, family=family.id, preset="p", seed=0, count=N,
                                      description="a human baseline"), made, features=family.feature_values)
    finally:
        store.close()
    return log, name, {i.id: i for i in made}


def unreadable(family: Family, instance: Instance) -> str:
    return next(text for text in UNREADABLE if not extract(family, text, instance).ok)


def prompt_tail(family: Family, instance: Instance) -> str:
    """The end of the prompt's last message: its last lines, at least 10 characters of them."""
    lines = family.prompt(instance, family.prompt_styles[0]).messages[-1]["content"].rstrip().splitlines()
    tail: list[str] = []
    while lines and len(flat(" ".join(tail))) < 10:
        tail.insert(0, lines.pop())
    return flat(" ".join(tail))


def assert_no_hint(app, family: Family, instance: Instance) -> None:
    """No hint feature is on screen: neither `name=value` (a header) nor its name (a column), unless the
    name is a word of the prompt itself."""
    shown = render_text(app)
    prompt = str(family.prompt(instance, family.prompt_styles[0]).model_dump())
    for name in family.hint_features:
        assert f"{name}=" not in shown, f"{name} on screen:\n{shown}"
        if name not in prompt:
            assert name not in shown, f"{name} on screen:\n{shown}"


async def assert_prompt_reachable(app, pilot, family: Family, instance: Instance) -> None:
    """The prompt's end can be brought on screen on the Solve tab (ctrl+down, from the editor), with the
    clock running all the while."""
    screen = app.screen
    scroll = screen.query_one("#human-problem", VerticalScroll)
    tail = prompt_tail(family, instance)
    for _ in range(200):
        if scroll.scroll_y >= scroll.max_scroll_y:
            break
        await pilot.press("ctrl+down")
    await pilot.pause()
    region = scroll.region
    rows = render_text(app).splitlines()[region.y:region.y + region.height]
    assert scroll.scroll_y >= scroll.max_scroll_y and tail in flat("\n".join(rows)), \
        f"the prompt's end {tail!r} is not on screen:\n" + "\n".join(rows)
    assert screen.active_tab == "solve" and screen.panel.human.running
    assert isinstance(app.focused, TextArea)  # scrolled from the editor: typing goes on
    await pilot.press("ctrl+up")
    assert scroll.scroll_y < scroll.max_scroll_y  # and back up
    scroll.scroll_home(animate=False)


async def start_session(app, pilot, snapshot: str) -> None:
    await settle(pilot)
    browser = app.screen
    assert isinstance(browser, BrowserScreen)
    browser.load_snapshot(snapshot)
    await settle(pilot)
    await pilot.press("H")
    await settle(pilot)
    assert isinstance(app.screen, SessionDialog)
    await pilot.press(*"Ada", "ctrl+s")  # the current filter (nothing marked), shuffled by default
    await settle(pilot)
    assert isinstance(app.screen, SessionScreen)


async def answer(pilot, editor: TextArea, text: str) -> None:
    editor.text = text  # the whole answer at once (a paste), after the first keystroke
    await pilot.pause()
    editor.move_cursor(editor.document.end)


@pytest.mark.parametrize("family_id", FAMILIES)
async def test_a_five_instance_session_measures_what_it_claims(family_id: str, tmp_path,
                                                               session_tool_cache_everywhere) -> None:
    from tui.app import SembenchApp

    family = get_family(family_id)
    require_tools(family)
    log, snapshot, by_id = baseline_log(tmp_path, family)
    clock = FakeClock()
    app = SembenchApp(db=log, snapshots=tmp_path / "no-bundled.db", clock=clock)
    expected: list[tuple[float, float, int, float]] = []  # (shown to sent, first key, pauses, paused)
    async with app.run_test(size=(120, 36)) as pilot:
        await start_session(app, pilot, snapshot)
        plan, run_id = app.screen.state.plan, app.screen.state.run_id
        assert plan.shuffled and sorted(plan.instance_ids) == sorted(by_id)
        # Mid-session, the browser too shows no hint feature: leave the session and come back.
        assert_no_hint(app, family, by_id[plan.instance_ids[0]])
        await pilot.press("escape", "escape", "escape")  # out of the editor, then out of the session
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, BrowserScreen) and browser.table is not None
        assert not set(family.hint_features) & set(browser.table.columns)
        assert set(family.answering_features()) <= set(browser.table.columns)
        assert_no_hint(app, family, by_id[plan.instance_ids[0]])
        await pilot.press("H")
        await settle(pilot)
        app.screen.query_one("#session-unfinished").focus()
        await pilot.press("enter")
        await settle(pilot)
        for k, iid in enumerate(plan.instance_ids):
            screen = app.screen
            instance = by_id[iid]
            assert isinstance(screen, SessionScreen) and screen.instance.id == iid
            assert screen.active_tab == "solve" and screen.panel.human.running  # on the clock once shown
            assert_no_hint(app, family, instance)
            await assert_prompt_reachable(app, pilot, family, instance)
            editor = screen.query_one("#human-answer", TextArea)
            read = 10.0 + k
            clock.now += read  # reading and thinking: the person's time, before the first keystroke
            right = family.oracle_response(instance)
            if k == 3 and family.hint_features:
                await pilot.press("escape", "h")  # out of the editor, then show the hints (recorded)
                header = str(screen.query_one("#instance-title").render())
                assert all(f"{name}=" in header for name in family.visible_features())
                await pilot.press("e")
            if k in (1, 4):
                await answer(pilot, editor, unreadable(family, instance))  # typed: the first keystroke
            else:
                await pilot.press("space")
                await answer(pilot, editor, right)
            clock.now += 5.0
            paused = 0.0
            if k == 2:  # paused: covered, the clock stands still
                await pilot.press("ctrl+t")
                clock.now += 100.0
                paused = 100.0
                await pilot.press("ctrl+t")
            await pilot.press("ctrl+s")
            await settle(pilot)
            if k in (1, 4):
                assert isinstance(app.screen, SendAnywayScreen) and "does not parse" in render_text(app)
                if k == 1:
                    await pilot.press("escape")  # back to the editor: nothing recorded
                    await settle(pilot)
                    assert app.screen is screen and screen.state.done == k
                    assert app.focused is editor
                    await answer(pilot, editor, right)
                    await pilot.press("ctrl+s")
                else:
                    await pilot.press("enter")  # sent all the same: recorded, not read
                await settle(pilot)
            expected.append((read + 5.0, read, 1 if k == 2 else 0, paused))
        assert isinstance(app.screen, SessionSummaryScreen)
        shown = render_text(app)
        assert "time per instance (shown to sent, pauses left out): median 17.0s, 95% interval" in shown
        assert "first keystroke after a median 12.0s" in shown
        assert "accuracy 80.0% (4/5)" in shown
        assert app.session_run is None  # over: the hint features come back
    store = LogStore(log)
    try:
        rows = {r["instance_id"]: r for r in store.attempts(run_id=run_id)}
    finally:
        store.close()
    got = [(rows[i]["human_time_s"], rows[i]["first_key_s"], rows[i]["pauses"], rows[i]["paused_s"])
           for i in plan.instance_ids]
    assert got == expected
    assert [bool(rows[i]["correct"]) for i in plan.instance_ids] == [True, True, True, True, False]
    assert all(rows[i]["solver"] == "human:Ada" for i in plan.instance_ids)
    hints = [parse_json(rows[i]["usage"]).get("hints_revealed") for i in plan.instance_ids]
    assert hints == [None, None, None, list(family.hint_features) or None, None]


@pytest.mark.parametrize("family_id", FAMILIES)
async def test_the_whole_prompt_is_reachable_at_80x24(family_id: str, tmp_path,
                                                      session_tool_cache_everywhere) -> None:
    """At 80x24 too, the session's first three instances (three prompts of different lengths): the
    prompt's end can be brought on screen while the clock runs, and no hint feature shows; each is
    skipped (ctrl+g) once checked."""
    from tui.app import SembenchApp

    family = get_family(family_id)
    require_tools(family)
    log, snapshot, by_id = baseline_log(tmp_path, family)
    app = SembenchApp(db=log, snapshots=tmp_path / "no-bundled.db", clock=FakeClock())
    async with app.run_test(size=(80, 24)) as pilot:
        await start_session(app, pilot, snapshot)
        for iid in list(app.screen.state.plan.instance_ids)[:3]:
            screen = app.screen
            assert isinstance(screen, SessionScreen) and screen.instance.id == iid
            assert_no_hint(app, family, by_id[iid])
            await assert_prompt_reachable(app, pilot, family, by_id[iid])
            await pilot.press("ctrl+g")
            await settle(pilot)
        assert app.screen.state.done == 3
