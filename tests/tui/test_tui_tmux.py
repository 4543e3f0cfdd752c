"""Smoke test in a real terminal: start the workbench in tmux as a user would (the `sembench` console
script, the README's command), press keys, read the pane, quit. Checks what a person would see."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from conftest import write_snapshot

from core.store import BUNDLED_SNAPSHOTS, LogStore

WAIT_S = 30.0
# The user's snapshots are listed with the bundled ones, sorted by name: these sort first whatever is bundled
# (the first row is the one Enter opens).
CASCADE_SNAPSHOT = "0-cascade-demo"
MEMBERSHIP_SNAPSHOT = "0-membership-demo"


class Tmux:
    def __init__(self, socket: str, env: dict[str, str]) -> None:
        self.socket = socket
        self.env = env

    def run(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], env=self.env, capture_output=True, text=True,
                             timeout=20)
        return out.stdout

    def pane(self) -> str:
        return self.run("capture-pane", "-p", "-t", "app")

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.run("send-keys", "-t", "app", key)

    def wait_for(self, *texts: str, timeout: float = WAIT_S) -> str:
        """Poll the pane until every text is on it (a real terminal has no message to wait on)."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.pane()
            if all(t in screen for t in texts):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{texts} not on screen after {timeout}s:\n{screen}")

    def alive(self) -> bool:
        return subprocess.run(["tmux", "-L", self.socket, "has-session", "-t", "app"], env=self.env,
                              capture_output=True, timeout=20).returncode == 0


def command(log: Path) -> list[str]:
    script = Path(sys.executable).parent / "sembench"
    if script.exists():
        return [str(script), "--db", str(log)]
    return [sys.executable, "-m", "tui", "--db", str(log)]


@pytest.mark.tmux
def test_workbench_in_a_real_terminal(tmp_path: Path, cascade_instances, membership_instances) -> None:
    assert shutil.which("tmux")
    log = tmp_path / "log.db"
    LogStore(log).close()  # a log database (a snapshots-only file would be refused as --db)
    # The user's own snapshots live in the log database; the bundled ones (if built) show beside them.
    write_snapshot(log, CASCADE_SNAPSHOT, "cascade", "cascade-demo", cascade_instances)
    write_snapshot(log, MEMBERSHIP_SNAPSHOT, "membership", "pag-demo", membership_instances)
    bundled_before = BUNDLED_SNAPSHOTS.read_bytes() if BUNDLED_SNAPSHOTS.exists() else None
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "OLLAMA_", "TMUX"))}
    env.update(TERM="xterm-256color", XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "cfg"),
               HOME=str(tmp_path), LANG="C.UTF-8", LC_ALL="C.UTF-8")
    for var in ("SEMBENCH_DB", "COLUMNS", "LINES"):  # COLUMNS/LINES would override the terminal size
        env.pop(var, None)
    tmux = Tmux(f"sembench-{uuid.uuid4().hex[:8]}", env)
    shell_cmd = " ".join(f"'{part}'" for part in command(log))
    tmux.run("new-session", "-d", "-s", "app", "-x", "140", "-y", "45", f"cd '{tmp_path}' && {shell_cmd}")
    try:
        # The browser: both snapshots, the first one's instances, the footer with its keys.
        tmux.wait_for("Sembench", CASCADE_SNAPSHOT, MEMBERSHIP_SNAPSHOT, f"of {len(cascade_instances)} instances",
                      cascade_instances[0].id, "Quit", "Help", "Search")
        tmux.keys("Enter")  # open the highlighted snapshot: its instance table takes the focus
        tmux.wait_for("⏎ Open")
        tmux.keys("Enter")  # open its first instance
        tmux.wait_for("Problem", "Step", "Solve", "Verdict", "History", "examples")
        tmux.keys("2")
        tmux.wait_for("step 1/", "cascade")
        tmux.keys("n")
        tmux.wait_for("step 2/", "▶")
        tmux.keys("3")
        tmux.wait_for("Send")
        tmux.keys("C-s")  # solve with the baseline
        tmux.wait_for("CORRECT", "diff")
        tmux.keys("5")
        tmux.wait_for("baseline", "1 attempt(s) on this instance")
        tmux.keys("?")
        tmux.wait_for("Sembench workbench")
        tmux.keys("Escape", "Escape")  # close help, back to the browser
        # The marks count models and people by default; the palette narrows them to the baseline.
        tmux.wait_for("models & people", "solved 0, attempted 0")
        # The palette offers "Solved by baseline" once the browser's summary of the log (refreshed in a
        # worker after the attempt) names the baseline: until then it answers "No matches found", so the
        # test opens it again rather than racing that refresh.
        deadline = time.monotonic() + WAIT_S
        while True:
            tmux.keys("C-p")
            tmux.wait_for("Search for commands")  # open, its input focused: type only then
            tmux.run("send-keys", "-t", "app", "-l", "Solved by baseline")
            found = ""
            while time.monotonic() < deadline and not found:
                screen = tmux.pane()
                found = next((t for t in ("the solved/attempted filter", "No matches found") if t in screen), "")
                time.sleep(0.1)
            if found != "No matches found" or time.monotonic() >= deadline:
                break
            tmux.keys("Escape")
            time.sleep(0.5)
        tmux.wait_for("the solved/attempted filter")
        tmux.keys("Enter")
        tmux.wait_for("✓ solved", "by baseline")
        tmux.keys("q")
        deadline = time.monotonic() + WAIT_S
        while tmux.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not tmux.alive(), "q quits"
    finally:
        tmux.run("kill-server")
    if bundled_before is not None:
        assert BUNDLED_SNAPSHOTS.read_bytes() == bundled_before  # never written
