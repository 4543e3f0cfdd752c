"""While a run is live, the Runs screen prints each count once, and the runs table (the
header) and the selected run's metrics (the detail) are of one moment of the log.

A real `sembench run` in another process asks a real HTTP server on 127.0.0.1 (one request at a time, each
answered after LATENCY_S) while the workbench shows the Runs screen; the screen is read every 0.3 s.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from conftest import SEED, render_text, settle, write_snapshot

from core.family import get_family
from core.store import LogStore
from tests.models.fakeserver import FakeServer, Fault, RecordedRequest
from tui.app import SembenchApp
from tui.screens.runs import RunsScreen

SNAPSHOT = "membership-live"
N = 24
LATENCY_S = 0.3
ROW = re.compile(r"(running|finished|stale)\s+\S*\s+(\d+)/(\d+)\s+(\d+)\s+(\d+)\s")
COVERED = re.compile(r"metrics over (\d+) attempt\(s\)")
BODY_N = re.compile(r"metrics \(sample 0, n=(\d+)\)")
REPEATED = re.compile(r"\b\d+ (attempts|correct|errors)\b|\d+/\d+ attempts")


TURNS = itertools.count()


def answers(request: RecordedRequest) -> str:
    """Right, wrong and unreadable answers in turn: the counts move apart from each other."""
    return ("True", "False", "True", "no idea")[next(TURNS) % 4]


def read_screen(text: str, run_id: str) -> dict[str, object]:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith(run_id) and ROW.search(line))
    state, done, total, correct, errors = ROW.search(lines[at]).groups()  # type: ignore[union-attr]
    detail = "\n".join(lines[at + 1:])
    covered = COVERED.findall(text)
    return {"state": state, "done": int(done), "total": int(total), "correct": int(correct),
            "errors": int(errors), "covered": [int(c) for c in covered], "body_n": BODY_N.findall(detail),
            "updating": "updating" in text, "detail": detail, "progress_counts": len(re.findall(r"\d+/\d+", text)),
            "correct_labels": len(re.findall(r"\bcorrect\b", text))}


async def test_runs_screen_header_and_detail_agree_during_a_live_run(tmp_path: Path, monkeypatch) -> None:
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    family = get_family("membership")
    instances = list(family.generate(family.resolve_params("pag-demo"), SEED, N))
    log = tmp_path / "log.db"
    LogStore(log).close()
    write_snapshot(log, SNAPSHOT, "membership", "pag-demo", instances)

    with FakeServer(answers, latency_s=LATENCY_S) as server:
        env = {**os.environ, **server.env(), "PYTHONPATH": os.getcwd()}
        run = subprocess.Popen([sys.executable, "-m", "core", "--db", str(log), "run", "--snapshot", SNAPSHOT,
                                "--solver", "openai:fake-model", "--concurrency", "1", "--no-cache"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            app = SembenchApp(db=log, snapshots=tmp_path / "no-bundled.db", fresh=True)
            seen: list[dict[str, object]] = []
            async with app.run_test(size=(140, 44)) as pilot:
                await pilot.press("r")
                screen = app.screen
                assert isinstance(screen, RunsScreen)
                deadline, failed = time.monotonic() + 120, False
                while time.monotonic() < deadline:
                    await asyncio.sleep(0.3)
                    await pilot.pause()
                    if not failed and len(server.requests) >= 6:
                        server.fail_next(1, Fault.http(400))  # one attempt ends in an error
                        failed = True
                    if not screen.runs:
                        continue
                    seen.append(read_screen(render_text(app), screen.runs[0]["id"]))
                    if seen[-1]["state"] == "finished" and not seen[-1]["updating"] and seen[-1]["covered"]:
                        break
                await settle(pilot)
            _, stderr = run.communicate(timeout=60)
        finally:
            if run.poll() is None:
                run.kill()
    assert run.returncode == 0, stderr

    live = [s for s in seen if s["state"] == "running"]
    assert len(live) >= 5, f"too few looks at the live run: {len(live)}"
    for look in seen:
        # each count once: one progress figure (the row's), "correct" only as the table's column, "metrics
        # over" at most once, and nothing in the detail repeats the row's counts.
        assert look["progress_counts"] == 1 and look["correct_labels"] == 1, look
        assert len(look["covered"]) <= 1 and not REPEATED.search(str(look["detail"])), look
        assert not re.search(r"│ errors\s+│", str(look["detail"])), "the run's errors are the row's column"
        # the detail and the header agree: the metrics cover what the row counts, or say they are behind
        if look["covered"]:
            covered = look["covered"][0]  # type: ignore[index]
            assert covered <= look["done"], look  # type: ignore[operator]
            assert (covered == look["done"]) != look["updating"], look
            assert look["body_n"] == [str(covered)], look  # one sample per instance: n is the attempts
    together = [s for s in live if s["covered"] and not s["updating"]]
    assert len(together) >= 3, "the metrics kept up with the live run"
    assert len({s["done"] for s in together}) >= 2, "...at more than one moment"
    last = seen[-1]
    assert last["state"] == "finished" and last["done"] == last["total"] == N and last["covered"] == [N]
    assert last["errors"] == 1 and 0 < last["correct"] < N  # type: ignore[operator]
