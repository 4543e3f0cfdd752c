"""Model solves from the Solve tab against a real HTTP server on 127.0.0.1 (tests/models/fakeserver.py):
the reply streams in, a failing endpoint is a notification and an attempt with its error, a request can
be cancelled, and none of it blocks or crashes the app."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import MEMBERSHIP_SNAPSHOT, SIZE, render_text, settle
from textual.widgets import Input, Select, TabbedContent

from core.family import get_family
from tests.models.fakeserver import FakeServer, Fault, Reply
from tui.messages import SolveDelta
from tui.screens.confirm import ConfirmScreen
from tui.screens.instance import InstanceScreen

MODEL = "fake-model"


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workbench):
    with FakeServer(chunk_size=3) as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        config = tmp_path / "sembench.toml"
        config.write_text("[openai]\nmax_retries = 0\ntimeout_s = 20\n", encoding="utf-8")
        monkeypatch.setenv("SEMBENCH_CONFIG", str(config))
        yield srv




async def open_solve(app, pilot, instance_id: str) -> InstanceScreen:
    app.open_instance(MEMBERSHIP_SNAPSHOT, instance_id, tab="solve")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, InstanceScreen)
    screen.query_one("#solver", Select).value = "model:openai"
    await pilot.pause()
    assert not screen.query_one("#model-options").has_class("hidden")
    screen.query_one("#model-name", Input).value = MODEL
    screen.query_one("#temperature", Input).value = "0"
    return screen


async def test_model_reply_streams_and_is_verified(make_app, workbench, server) -> None:
    instance = workbench.membership[0]
    answer = f"Evaluating the calls one by one, the result is:\n\n{get_family('membership').oracle_response(instance)}"
    server.reply = lambda req: Reply(answer, reasoning="Look at the examples first.")
    deltas: list[SolveDelta] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=lambda m: deltas.append(m) if isinstance(m, SolveDelta) else None) as pilot:
        screen = await open_solve(app, pilot, instance.id)
        await pilot.press("ctrl+s")
        await settle(pilot)
        # It streamed: many small text deltas (and the reasoning apart), reassembled in the panel.
        text_chunks = [d.text for d in deltas if d.kind == "text"]
        assert len(text_chunks) > 3 and "".join(text_chunks) == answer
        assert any(d.kind == "reasoning" for d in deltas)
        assert screen.panel.stream_text == answer
        request = server.last_request
        assert request.stream and request.json["model"] == MODEL and request.json["temperature"] == 0
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert len(rows) == 1
        row = rows[0]
        assert row["solver"] == f"openai:{MODEL}" and row["correct"] == 1 and row["error"] is None
        assert row["reasoning"] == "Look at the examples first."
        assert "sk-test" not in str(row)  # keys never reach the database
        assert screen.query_one("#tabs", TabbedContent).active == "verdict"
        text = render_text(app)
        assert "✓ CORRECT" in text and "model reasoning" in text and "Look at the examples first." in text


@pytest.mark.parametrize("fault", [Fault.http(401, body='{"error": {"message": "bad key"}}'), Fault.http500(),
                                   Fault.malformed()], ids=["bad-key", "server-error", "malformed"])
async def test_failing_endpoint_is_a_notification_and_a_recorded_error(make_app, workbench, server, fault) -> None:
    instance = workbench.membership[1]
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_solve(app, pilot, instance.id)
        await settle(pilot)  # the model picker's listing (a GET) is done: the fault is for the solve
        server.fail_next(1, fault)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, InstanceScreen)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors, "the failure is shown as a notification"
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert len(rows) == 1
        assert rows[0]["error"] and rows[0]["error_kind"] and rows[0]["correct"] == 0
        assert "failed" in render_text(app) or "ERROR" in render_text(app)
        assert not screen.panel.running


async def test_unreachable_endpoint_and_missing_model_name(make_app, workbench, monkeypatch) -> None:
    """Connection refused: an error attempt, no crash. An empty model name asks for one, sends nothing."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = workbench.log.parent / "noretry.toml"
    config.write_text("[openai]\nmax_retries = 0\nconnect_timeout_s = 2\n", encoding="utf-8")
    monkeypatch.setenv("SEMBENCH_CONFIG", str(config))
    instance = workbench.membership[2]
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_solve(app, pilot, instance.id)
        screen.query_one("#model-name", Input).value = ""
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.workspace.log.attempts(instance_id=instance.id) == []
        screen.query_one("#model-name", Input).value = MODEL
        await pilot.press("ctrl+s")
        await settle(pilot)
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert len(rows) == 1 and rows[0]["error_kind"] == "connection"
        assert any(n.severity == "error" for n in app._notifications)


def slow_stream(server):
    """A reply streamed slowly enough to act in the middle; the event is set at its first delta."""
    server.stream_delay_s = 0.2
    server.reply = lambda req: Reply("thinking about it " * 40)
    first_delta = asyncio.Event()

    def hook(message) -> None:
        if isinstance(message, SolveDelta):
            first_delta.set()

    return first_delta, hook


async def test_cancel_a_streaming_request(make_app, workbench, server) -> None:
    instance = workbench.membership[3]
    first_delta, hook = slow_stream(server)
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = await open_solve(app, pilot, instance.id)
        await pilot.press("ctrl+s")
        await asyncio.wait_for(first_delta.wait(), timeout=20)
        assert screen.panel.running
        await pilot.press("ctrl+x")
        await settle(pilot)
        assert not screen.panel.running
        assert "cancelled" in render_text(app)
        assert app.workspace.log.attempts(instance_id=instance.id) == []
        # Leaving the instance while a request streams asks first; saying yes cancels it
        # (no thread left behind, nothing recorded).
        first_delta.clear()
        await pilot.press("ctrl+s")
        await asyncio.wait_for(first_delta.wait(), timeout=20)
        app.screen.set_focus(None)
        await pilot.press("escape")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert app.screen is screen and screen.panel.running  # still streaming
        await pilot.press("escape", "y")
        await settle(pilot)
        assert not isinstance(app.screen, InstanceScreen)
        assert app.workspace.log.attempts(instance_id=instance.id) == []


async def test_quitting_with_a_request_in_flight_asks_first(make_app, workbench, server) -> None:
    instance = workbench.membership[4]
    first_delta, hook = slow_stream(server)
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = await open_solve(app, pilot, instance.id)
        await pilot.press("ctrl+s")
        await asyncio.wait_for(first_delta.wait(), timeout=20)
        screen.set_focus(None)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen) and app.return_code is None
        await pilot.press("n")
        assert app.screen is screen and screen.panel.running and app.return_code is None
        await pilot.press("q", "y")
        await pilot.pause()
        assert app.return_code == 0
