"""Helpers for driving the workbench with Pilot (shared by tests/tui and the TUI kit): the screen as text,
and waiting for workers instead of sleeping."""

from __future__ import annotations

import io


def render_text(app: object) -> str:
    """The current screen as plain text: what a person would read."""
    from rich.console import Console

    width, height = app.size  # type: ignore[attr-defined]
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True,
                      color_system="truecolor", legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True))  # type: ignore[attr-defined]
    return console.export_text()


async def settle(pilot: object, rounds: int = 200) -> None:
    """Wait until no worker is pending or running and the messages they posted are handled.

    (`wait_for_complete` refuses a worker that is created but not started yet, so those get a turn of
    the event loop first.)"""
    from textual.worker import WorkerState

    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(rounds):
        await pilot.pause()  # type: ignore[attr-defined]
        busy = [w for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        if not busy:
            await pilot.pause()  # type: ignore[attr-defined]
            return
        running = [w for w in busy if w.state is WorkerState.RUNNING]
        if running:
            await app.workers.wait_for_complete(running)
    raise AssertionError(f"workers still busy: {list(app.workers)}")


async def until(pilot: object, shown: object, rounds: int = 200) -> None:
    """Settle, then give the app turns until `shown()` holds (a message a worker posted can be handled a
    turn after the worker is seen done, on a loaded machine); fails if it never does, with the screen and
    the focus in the message (a rare failure then says what was on screen)."""
    await settle(pilot)
    for _ in range(rounds):
        if shown():  # type: ignore[operator]
            return
        await pilot.pause(0.02)  # type: ignore[attr-defined]
    app = pilot.app  # type: ignore[attr-defined]
    raise AssertionError(f"never shown; screen {app.screen!r}, focus {app.focused!r}:\n{render_text(app)}")
