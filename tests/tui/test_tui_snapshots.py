"""Screenshots of key states (pytest-textual-snapshot). Baselines live in __snapshots__/; refresh them with
`pytest tests/tui/test_tui_snapshots.py --snapshot-update` after a deliberate change, and look at them.

Deterministic: fixed terminal size and data (generated with a fixed seed), a fake clock for the human
timer, no notifications, no timers on screen."""

from __future__ import annotations

from conftest import CASCADE_SNAPSHOT, MEMBERSHIP_SNAPSHOT, FakeClock, settle
from textual.widgets import Input, Select, TextArea

from core.family import get_family
from tui.screens.instance import InstanceScreen

TERMINAL = (130, 40)




def test_browser(snap_compare, make_app) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=TERMINAL, run_before=run_before)


def test_browser_80x24(snap_compare, make_app) -> None:
    """On a small terminal the search box has a row of its own (the query typed here is
    seen whole) and the snapshot list keeps its family column."""
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("slash", *"cascade", "underscore", *"length", "greater_than_sign", "equals_sign", "3")
        await settle(pilot)
        # The search box's cursor blinks every 0.5 s from the last key: on a loaded machine the screenshot
        # came in either phase (the baseline has it shown). Not blinking, it stays shown.
        pilot.app.screen.query_one("#search", Input).cursor_blink = False
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=run_before)


def test_cascade_mid_step(snap_compare, make_app, workbench) -> None:
    async def run_before(pilot) -> None:
        pilot.app.open_instance(CASCADE_SNAPSHOT, workbench.cascade[0].id, tab="step")
        await settle(pilot)
        await pilot.press("n", "n")

    assert snap_compare(make_app(), terminal_size=TERMINAL, run_before=run_before)


def test_membership_call_tree(snap_compare, make_app, workbench) -> None:
    family = get_family("membership")
    # A negative instance: its trace ends in a failing comparison that short-circuits the `and`.
    n, trace = next((n, family.trace(i)) for n, i in enumerate(workbench.membership)
                    if any(s.data.get("short_circuit") for s in family.trace(i).steps))
    at = next(s.index for s in trace.steps if s.data.get("short_circuit"))

    async def run_before(pilot) -> None:
        pilot.app.open_instance(MEMBERSHIP_SNAPSHOT, workbench.membership[n].id, tab="step")
        await settle(pilot)
        pilot.app.screen.stepper.go(at)
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=TERMINAL, run_before=run_before)


def test_verdict_with_diff(snap_compare, make_app, workbench) -> None:
    from core.families.cascade.prompt import format_response

    instance = workbench.cascade[0]
    wrong = format_response([tuple(rule) for rule in instance.ground_truth["cascade"][:-1]])
    clock = FakeClock(1000.0)

    async def run_before(pilot) -> None:
        app = pilot.app
        app.open_instance(CASCADE_SNAPSHOT, instance.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen)
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        screen.query_one("#human-answer", TextArea).text = wrong  # the first edit starts the clock
        await pilot.pause()
        clock.now += 61.0
        await pilot.press("ctrl+s")
        await settle(pilot)
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(make_app(clock=clock), terminal_size=TERMINAL, run_before=run_before)
