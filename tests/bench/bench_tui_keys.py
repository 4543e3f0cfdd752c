"""How long the workbench takes to answer a navigation key, the way a person feels it: the app runs in a
pseudo-terminal (as `bench_app_first_paint.py` runs it), a terminal emulator (pyte) keeps the screen it
draws, and each key's clock runs from the key's write to the first frame whose screen shows the key's
result. Not a pass/fail test; prints JSON.

    .venv/bin/python tests/bench/bench_tui_keys.py                      # this tree
    .venv/bin/python tests/bench/bench_tui_keys.py --before /tmp/before # and another tree, side by side

`--before DIR` is another checkout of the code (e.g. `git worktree add /tmp/before <commit>`), run with
the same interpreter and packages, alternating with this tree snapshot by snapshot; the JSON then has
each key's figures for both and their ratio (before / after). Both run on the bundled snapshots (default:
the two largest, pag-sweep-depth with 1,600 instances and pbebench with 1,216) in private XDG
directories and a fresh log database, 120x36.

Keys and what "shows the result" means (`--presses` each, default 20):
  - `j`, `k`, `down`, `up` in the browser's instance list: the highlighted row is the next (previous) one;
  - `enter` on an instance: the instance view's Problem tab is drawn; `escape` back: the browser is;
  - `]`, `[` in the instance view: its title counts the next (previous) position ("4 of 1600");
  - `1`-`5`: the tab's own text is on screen (the stepper's key line, the Solve tab's send hint, Verdict's
    empty state, History's count line; Problem: none of those, the title still there).
A key's time ends when the bytes of that frame arrived from the app, before the emulator parsed them (pyte
is slow on a whole-screen repaint; a real terminal is not). `--only lists,open,walk,tabs` measures a part.
Between presses the benchmark waits until the app has drawn nothing for `--settle` seconds, so that one
key's trailing work (a trace in a worker) is not charged to the next. The targets: median <= 50 ms and
p90 <= 100 ms for every key on a quiet 2-core machine.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parents[2]
COLUMNS, LINES = 120, 36
SNAPSHOTS = ("pag-sweep-depth", "pbebench")
TARGET_MEDIAN_MS, TARGET_P90_MS = 50.0, 100.0
KEYS = {"j": b"j", "k": b"k", "down": b"\x1b[B", "up": b"\x1b[A", "enter": b"\r", "escape": b"\x1b",
        "]": b"]", "[": b"[", "1": b"1", "2": b"2", "3": b"3", "4": b"4", "5": b"5"}
# The text at the top of each tab; the Problem tab (family-specific at its top) is the one with none.
TAB_TEXT = {"2": "n/p next/prev", "3": "with ctrl+s", "4": "No verdict yet", "5": "attempt(s) on this instance"}
POSITION = re.compile(r"(\d+) of (\d+)  ")
BROWSER_TEXT = "Snapshots"


class Terminal:
    """The app in a pseudo-terminal, and the screen it has drawn so far."""

    def __init__(self, tree: Path, env: dict[str, str]) -> None:
        self.screen = pyte.Screen(COLUMNS, LINES)
        self.stream = pyte.ByteStream(self.screen)
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        self.master = master
        self.arrived = 0.0  # when the last bytes came from the app (before the emulator parsed them)
        self.proc = subprocess.Popen([sys.executable, "-m", "tui"], cwd=tree, env={**env, "PYTHONPATH": str(tree)},
                                     stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                                     close_fds=True)
        os.close(slave)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def read(self, timeout: float) -> bool:
        """Feed what the app wrote within `timeout` seconds to the screen; whether anything came."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 1 << 16)
            self.arrived = time.perf_counter()
        except OSError:
            raise RuntimeError(f"the app ended (exit {self.proc.poll()}): {self.text()[-800:]}") from None
        self.stream.feed(chunk)
        return True

    def wait_for(self, shown: Callable[[], bool], timeout: float = 60.0) -> float:
        """Seconds until `shown()` holds for the screen (checked after each write of the app)."""
        start = time.perf_counter()
        while not shown():
            if time.perf_counter() - start > timeout:
                raise TimeoutError(f"not shown within {timeout} s; the screen:\n{self.text()}")
            self.read(0.05)
        return time.perf_counter() - start

    def settle(self, quiet: float, longest: float = 10.0) -> None:
        """Until the app has written nothing for `quiet` seconds (at most `longest`)."""
        start = time.perf_counter()
        while time.perf_counter() - start < longest and self.read(quiet):
            pass

    def press(self, key: str, shown: Callable[[], bool]) -> float:
        """Seconds from the key's write to the arrival of the bytes that made `shown()` hold: what a
        terminal shows as it reads them (pyte, pure Python, takes up to tens of ms to parse a whole-screen
        repaint, which a real terminal does not; that time is not the app's)."""
        start = time.perf_counter()
        os.write(self.master, KEYS[key])
        while not shown():
            if time.perf_counter() - start > 60:
                raise TimeoutError(f"{key!r}: no result within 60 s (highlighted row {self.cursor_line()}, "
                                   f"position {self.position()}); the screen:\n{self.text()}")
            self.read(0.05)
        return self.arrived - start

    def close(self) -> None:
        try:
            os.write(self.master, b"\x11")  # ctrl+q: quit
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)  # the group this benchmark started
            self.proc.wait()
        os.close(self.master)

    # -- what the screen shows ---------------------------------------------------------------------
    def cursor_line(self) -> int | None:
        """The row the instance list highlights: the one line of the list's area whose background at
        the pane's right edge no other line has (zebra stripes give the others two colours)."""
        display = self.screen.display
        at = next((y for y, line in enumerate(display) if " # " in line and " id " in line), None)
        if at is None:
            return None
        x = display[at].index(" id ") + 2  # in the id column, which every row fills
        rows = range(at + 1, LINES - 1)
        colours = [self.screen.buffer[y][x].bg for y in rows]
        lines = [y for y, colour in zip(rows, colours, strict=True) if colours.count(colour) == 1]
        return lines[0] if len(lines) == 1 else None

    def position(self) -> int | None:
        for line in self.screen.display[:4]:
            found = POSITION.search(line)
            if found:
                return int(found.group(1))
        return None

    def in_browser(self) -> bool:
        return BROWSER_TEXT in self.text() and self.position() is None

    def on_tab(self, key: str) -> bool:
        text = self.text()
        if key in TAB_TEXT:
            return TAB_TEXT[key] in text
        return self.position() is not None and not any(marker in text for marker in TAB_TEXT.values())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


GROUPS = ("lists", "open", "walk", "tabs")  # j/k and arrows; enter/escape; ]/[; 1-5


def measure_snapshot(tree: Path, env: dict[str, str], snapshot: str, presses: int, quiet: float,
                     times: dict[str, list[float]], groups: tuple[str, ...] = GROUPS) -> None:
    state = Path(env["XDG_STATE_HOME"]) / "sembench" / "workbench.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(json.dumps({"snapshot": snapshot}), encoding="utf-8")
    term = Terminal(tree, env)
    try:
        term.wait_for(lambda: snapshot in term.text() and BROWSER_TEXT in term.text(), timeout=120)
        term.settle(quiet)
        os.write(term.master, KEYS["escape"])  # the browser's escape: the instance list takes the focus
        term.wait_for(lambda: term.cursor_line() is not None)
        term.settle(quiet)

        def moved(by: int, start: int) -> Callable[[], bool]:
            return lambda: term.cursor_line() == start + by

        pairs = [("down", "up")]
        table_code = (tree / "tui" / "widgets" / "table.py").read_text(encoding="utf-8")
        if 'Binding("j"' in table_code:  # j/k are recent: an older tree is measured on the arrows only
            pairs.insert(0, ("j", "k"))
        for down, up in pairs if "lists" in groups else []:
            for key, step in ((down, 1), (up, -1)):
                for _ in range(presses):
                    start = term.cursor_line()
                    assert start is not None
                    times[key].append(term.press(key, moved(step, start)))
                    term.settle(quiet)
        for _ in range(presses if "open" in groups else 0):
            times["enter"].append(term.press("enter", lambda: term.on_tab("1")))
            term.settle(quiet)
            times["escape"].append(term.press("escape", term.in_browser))
            term.settle(quiet)
        term.press("enter", lambda: term.position() is not None)
        term.settle(quiet)
        for key, step in (("]", 1), ("[", -1)):
            for _ in range(presses if "walk" in groups else 0):
                at = term.position()
                assert at is not None
                times[key].append(term.press(key, lambda at=at, step=step: term.position() == at + step))
                term.settle(quiet)
        for _ in range(presses if "tabs" in groups else 0):
            for key in ("2", "3", "4", "5", "1"):
                times[key].append(term.press(key, lambda key=key: term.on_tab(key)))
                term.settle(quiet)
    finally:
        term.close()


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ms = [v * 1000 for v in values]
    return {"median_ms": round(statistics.median(ms), 1), "p90_ms": round(percentile(ms, 0.9), 1),
            "max_ms": round(max(ms), 1), "n": len(ms)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="another checkout, measured alongside")
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--settle", type=float, default=0.25, help="seconds without output between presses")
    parser.add_argument("--snapshot", action="append", help="bundled snapshot(s); default: the two largest")
    parser.add_argument("--only", default=",".join(GROUPS), help=f"comma-separated, of {', '.join(GROUPS)}")
    args = parser.parse_args()
    groups = tuple(g for g in args.only.split(",") if g in GROUPS)
    snapshots = args.snapshot or list(SNAPSHOTS)
    trees = {"after": ROOT, **({"before": args.before.resolve()} if args.before else {})}
    results: dict[str, dict[str, dict[str, list[float]]]] = {name: {s: {k: [] for k in KEYS} for s in snapshots}
                                                              for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k not in ("TEXTUAL", "SEMBENCH_DB", "SEMBENCH_CACHE_DIR")}
        env["TERM"] = "xterm-256color"
        env["COLORTERM"] = "truecolor"
        for snapshot in snapshots:
            for name, tree in trees.items():  # alternating: both trees see the same moment of the machine
                private = Path(tmp) / name
                for var in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
                    env[var] = str(private / var.lower())
                env["SEMBENCH_DB"] = str(private / "log.db")
                measure_snapshot(tree, env, snapshot, args.presses, args.settle, results[name][snapshot], groups)
    out: dict[str, object] = {"benchmark": "tui_keys", "terminal": f"{COLUMNS}x{LINES}", "presses": args.presses,
                              "targets_ms": {"median": TARGET_MEDIAN_MS, "p90": TARGET_P90_MS}}
    for snapshot in snapshots:
        per_key: dict[str, object] = {}
        for key in KEYS:
            after = summary(results["after"][snapshot][key])
            entry: dict[str, object] = {"after": after, "met": bool(after) and after["median_ms"] <= TARGET_MEDIAN_MS
                                        and after["p90_ms"] <= TARGET_P90_MS}
            if "before" in results:
                before = summary(results["before"][snapshot][key])
                entry["before"] = before or "not bound there"
                if before and after:
                    entry["ratio_median"] = round(before["median_ms"] / max(after["median_ms"], 0.1), 2)
            per_key[key] = entry
        out[snapshot] = per_key
    try:
        out["load_average_1min"] = round(os.getloadavg()[0], 2)
    except OSError:
        pass
    out["trees"] = {name: str(tree) for name, tree in trees.items()}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
