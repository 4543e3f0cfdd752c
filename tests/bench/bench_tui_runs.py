"""The Runs screen on a 200,000-attempt run: time to metrics and the longest UI freeze; prints JSON.

    .venv/bin/python tests/bench/bench_tui_runs.py [--instances 1600] [--samples 125] [--keep]

Drives the real workbench headless with Textual's Pilot (140x44) on a log database built by
tests/bench/bigrun.py (1,600 membership instances x 125 samples). A probe task on the app's event loop
wakes every 5 ms and records how late it woke: that lateness is how long the UI could not respond
(a freeze). Measured side by side in one run:
  - anchor: the browser on the same database, keys pressed one after another (ms per key);
  - first: `r` pressed, until the selected run's metrics are on screen, with the report cache empty
    (target: <= 2 s, no freeze > 100 ms);
  - again: the Runs screen left and opened anew (the report now comes from the cache).
Also the process's RSS before and after. Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "bench"))

PROBE_S = 0.005
FREEZE_S = 0.1


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class GcTimer:
    """Durations of the garbage collector's passes (a pass holds the GIL: every thread waits)."""

    def __init__(self) -> None:
        self.passes: list[tuple[int, float]] = []
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.passes.append((info["generation"], time.perf_counter() - self._start))
            if info["generation"] == 2 and os.environ.get("BENCH_GC_DEBUG"):
                import threading
                import traceback

                print(f"gen2 {1000 * (time.perf_counter() - self._start):.0f} ms in "
                      f"{threading.current_thread().name}", file=sys.stderr)
                traceback.print_stack(limit=12, file=sys.stderr)

    def summary(self) -> dict[str, Any]:
        longest = max((d for _, d in self.passes), default=0.0)
        return {"gc_passes": len(self.passes), "gc_longest_ms": round(longest * 1000, 1),
                "gc_gen2_passes": sum(g == 2 for g, _ in self.passes)}


class LagProbe:
    """Wakes every PROBE_S on the app's loop; records how late each wake-up was."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        # From one wake-up to the next, so that a pause anywhere (a garbage collection triggered by the
        # probe's own bookkeeping included) is counted.
        last = time.perf_counter()
        while True:
            await asyncio.sleep(PROBE_S)
            now = time.perf_counter()
            self.lags.append(now - last - PROBE_S)
            last = now

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    def reset(self) -> None:
        self.lags = []

    def summary(self) -> dict[str, Any]:
        lags = self.lags or [0.0]
        return {"longest_freeze_ms": round(max(lags) * 1000, 1),
                "freezes_over_100ms": sum(lag > FREEZE_S for lag in lags), "probes": len(lags)}


async def wait_for(pilot: Any, condition: Any, timeout_s: float = 300.0) -> float:
    start = time.perf_counter()
    while not condition():
        if time.perf_counter() - start > timeout_s:
            raise TimeoutError("the condition never held")
        await pilot.pause(0.01)
    return time.perf_counter() - start


async def drive(db: Path, run_id: str, keys: int) -> dict[str, Any]:
    from tui.app import SembenchApp
    from tui.screens.runs import RunsScreen

    app = SembenchApp(db=db, snapshots=db.parent / "no-bundled-snapshots.db")
    out: dict[str, Any] = {"rss_start_mb": round(rss_mb())}
    probe = LagProbe()
    gc_timer = GcTimer()
    gc.callbacks.append(gc_timer)
    async with app.run_test(size=(140, 44)) as pilot:
        probe.start()
        await wait_for(pilot, lambda: app.summary is not None)  # the browser read the attempt summary
        browser = app.screen
        browser.load_snapshot("big")  # type: ignore[attr-defined]
        await pilot.pause(0.2)
        probe.reset()
        start = time.perf_counter()
        for i in range(keys):
            await pilot.press("down" if i % 2 == 0 else "up")
        out["anchor_browser_ms_per_key"] = round((time.perf_counter() - start) / keys * 1000, 1)
        out["anchor_browser"] = probe.summary()

        for phase in ("first", "again"):
            if phase == "first":
                with sqlite3.connect(db) as conn:
                    conn.execute("delete from report_cache")
            probe.reset()
            gc_timer.passes = []
            start = time.perf_counter()
            await pilot.press("r")
            runs = app.screen
            assert isinstance(runs, RunsScreen)
            await wait_for(pilot, lambda runs=runs: run_id in runs._shown_done)
            seconds = time.perf_counter() - start
            shown = runs._reports[run_id]
            out[phase] = {"seconds_to_metrics": round(seconds, 3), **probe.summary(), **gc_timer.summary(),
                          "metrics_shown": shown.error is None and bool(shown.report.get("metrics", {}).get("by"))}
            await pilot.press("escape")
            await pilot.pause(0.1)
        probe.task.cancel()  # type: ignore[union-attr]
    out["rss_end_mb"] = round(rss_mb())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=1600)
    parser.add_argument("--samples", type=int, default=125)
    parser.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "sembench-bench-report" / "log.db")
    parser.add_argument("--keep", action="store_true", help="reuse the database a previous run built")
    parser.add_argument("--keys", type=int, default=20)
    args = parser.parse_args()

    from bigrun import make_big_run

    args.db.parent.mkdir(parents=True, exist_ok=True)
    run_id = make_big_run(args.db, "membership", args.instances, args.samples, keep=args.keep)
    from core.store import LogStore

    LogStore(args.db).close()  # migrate an older database before the clock starts
    result = asyncio.run(drive(args.db, run_id, args.keys))
    print(json.dumps({"attempts": args.instances * args.samples, **result,
                      "load_avg_1m": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}, indent=2))


if __name__ == "__main__":
    main()
