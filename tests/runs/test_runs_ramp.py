"""A model run's ramp-up: the family's checking code is imported and run once while the first
requests are in flight, not when their answers arrive (core.runner.verifying.Verifier.warm), and the
answers are checked as before. A fresh interpreter runs a real cascade run against a fake server whose
replies wait (up to a bound, not a timing assertion) for the check module to appear in that process.

Start-up: workers start a batch at a time, so the first requests leave before the whole first wave is
prepared; a model run builds no model and imports no module it never uses: the trace models (core.trace)
are built on first use, multiprocessing is imported when a local run starts a pool of processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from runs_support import REPO, write_snapshot

from core.family import get_family

SCRIPT = """
import json, os, sys, time
sys.path[:0] = [{repo!r}, {runs!r}]
from core.runner import RunConfig, run_sync
from core.store import Workspace
from tests.models.fakeserver import FakeServer, Reply

answers = json.load(open({answers!r}))
seen = []

def reply(request):
    deadline = time.monotonic() + 15
    while "core.families.cascade.check" not in sys.modules and time.monotonic() < deadline:
        time.sleep(0.005)
    seen.append("core.families.cascade.check" in sys.modules)
    return Reply(text=answers[request.messages[-1]["content"]])

with FakeServer(reply, latency_s=0.05) as server:
    os.environ["OPENAI_BASE_URL"] = server.base_url("openai")
    outcome = run_sync(Workspace({db!r}), RunConfig(snapshot="s", solver="openai:m", samples=2, concurrency=4))
import core.trace as trace
built = [m.__name__ for m in (trace.Document, trace.Focus, trace.StateRow, trace.TraceStep, trace.Trace)
         if m.__pydantic_complete__]
print(json.dumps({{"loaded_before_first_answer": seen[0], "trace_models_built": built,
                  "process_pools": "multiprocessing" in sys.modules, "done": outcome.stats.done,
                  "correct": outcome.stats.correct, "status": outcome.status}}))
"""


def test_the_checking_code_is_warmed_while_the_first_requests_are_in_flight(tmp_path: Path) -> None:
    family = get_family("cascade")
    db = tmp_path / "log.db"
    instances = write_snapshot(db, family, "s", 6)
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({family.prompt(i).messages[-1]["content"]: family.oracle_response(i)
                                   for i in instances}))
    config = tmp_path / "sembench.toml"
    config.write_text("[openai]\nmax_retries = 0\n")
    code = SCRIPT.format(repo=str(REPO), runs=str(Path(__file__).parent), answers=str(answers), db=str(db))
    env = {**os.environ, "SEMBENCH_CONFIG": str(config), "OPENAI_API_KEY": "test-key",
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"loaded_before_first_answer": True, "trace_models_built": [], "process_pools": False,
                   "done": 12, "correct": 12, "status": "finished"}


def test_the_first_requests_leave_before_the_last_worker_prepares_its_own(tmp_path: Path, toy, server,
                                                                          model_env) -> None:
    """Workers start a batch at a time, with a turn of the loop between batches, so the first requests are
    written while later ones are still being prepared: the last first-wave prompt is rendered once the
    server has a request (it waits for one, up to a bound; before, every prompt of the wave was rendered
    before any request left, and it waited in vain)."""
    import threading
    import time

    from runs_support import oracle_replies

    from core.runner import RunConfig, run_sync
    from core.store import Workspace

    count = 160
    instances = write_snapshot(tmp_path / "log.db", toy, "s", count)
    server.reply = oracle_replies(toy, instances)
    last = instances[-1].id
    seen: list[bool] = []
    render = type(toy).prompt

    def prompt(self, instance, style="chat"):  # type: ignore[no-untyped-def]
        if instance.id == last and not seen and threading.current_thread() is threading.main_thread():
            deadline = time.monotonic() + 10
            while not server.requests and time.monotonic() < deadline:
                time.sleep(0.005)
            seen.append(bool(server.requests))
        return render(self, instance, style)

    toy.prompt = prompt.__get__(toy)  # type: ignore[method-assign]
    outcome = run_sync(Workspace(tmp_path / "log.db"), RunConfig(snapshot="s", solver="openai:m", concurrency=count))
    assert outcome.status == "finished" and outcome.stats.done == count and outcome.stats.correct == count
    assert seen == [True]
