"""tui.driver: a lone escape is told when the parser's ESCDELAY runs out, not at the input thread's next
100 ms wake-up; `sembench` sets ESCDELAY to 25 ms unless the user set it."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from textual import constants, events

import tui.driver
from tui.driver import IDLE_WAIT_S, QuickEscapeDriver, wait_s

ROOT = Path(__file__).resolve().parents[2]


def test_the_wait_ends_at_the_parsers_deadline() -> None:
    assert wait_s(None, 5.0) == IDLE_WAIT_S
    assert wait_s(5.02, 5.0) == pytest.approx(0.02)
    assert wait_s(4.9, 5.0) == 0.0  # overdue: tick at once
    assert wait_s(9.0, 5.0) == IDLE_WAIT_S


class _Recording(selectors.SelectSelector):
    """The real select, with the timeouts it was asked for kept."""

    waits: list[float] = []

    def select(self, timeout=None):  # type: ignore[no-untyped-def]
        type(self).waits.append(timeout)
        return super().select(timeout)


def test_a_lone_escape_is_not_kept_waiting_for_the_idle_wake_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.02)  # the parser reads it per escape
    monkeypatch.setattr(tui.driver.selectors, "SelectSelector", _Recording)
    _Recording.waits = []
    read_end, write_end = os.pipe()
    driver = QuickEscapeDriver.__new__(QuickEscapeDriver)  # the input loop only, no terminal set up
    driver.fileno = read_end
    driver.exit_event = threading.Event()
    driver._debug = False
    keys: list[str] = []
    told = threading.Event()

    def process_message(message: object) -> None:
        if isinstance(message, events.Key):
            keys.append(message.key)
            told.set()

    driver.process_message = process_message  # type: ignore[method-assign]
    thread = threading.Thread(target=driver.run_input_thread, daemon=True)
    thread.start()
    try:
        os.write(write_end, b"\x1b")
        assert told.wait(10), "the escape key was never told"
    finally:
        driver.exit_event.set()
        thread.join(5)
        os.close(write_end)
        os.close(read_end)
    assert keys == ["escape"]
    # After the escape byte the thread waits no longer than the parser's deadline (then it tells the key);
    # Textual's own driver asks select for 0.1 s every time.
    assert min(_Recording.waits) <= 0.02, _Recording.waits


@pytest.mark.parametrize(("given", "expected"), [(None, "0.025"), ("300", "0.3")])
def test_sembench_sets_escdelay_unless_the_user_did(given: str | None, expected: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ESCDELAY"}
    if given is not None:
        env["ESCDELAY"] = given
    # the workbench itself is replaced by a module that prints the delay Textual read: the entry point
    # must set the environment before anything imports Textual
    script = ("import sys, types, tui.entry\n"
              "stub = types.ModuleType('tui.app')\n"
              "def run_app(*a, **k):\n"
              "    from textual import constants; print(constants.ESCAPE_DELAY)\n"
              "stub.run_app = run_app\n"
              "sys.modules['tui.app'] = stub\n"
              "tui.entry.main([])\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120, check=True).stdout.strip()
    assert out == expected
