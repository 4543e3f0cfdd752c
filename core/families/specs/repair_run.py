"""Self-repair over a snapshot, recorded: one run in the log database, every round one attempt.

Round k of an instance is its attempt with `sample = k`; `usage.repair` holds `{"round", "previous_attempt"
(the id of the attempt it repairs, null for round 0), "category"}`, so the rounds of an instance form a
chain the report, the workbench and SQL can follow. A run's samples are its rounds: pass@k of the run is
"solved within k rounds". The run is written as it goes (an interruption keeps every round recorded).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from core.attempts import record_from
from core.errors import UserError
from core.families.specs.prompt import render_prompt
from core.families.specs.repair import RepairRound, self_repair
from core.runner import RunConfig, create_run, load_snapshot
from core.solvers import SolveResult, is_model_spec, make_solver
from core.store import Workspace, now_iso
from core.verdict import Answer, Verdict


def repair_snapshot(ws: Workspace, snapshot: str, solver_spec: str, *, rounds: int, style: str,
                    limit: int | None = None, on_instance: Callable[[], None] | None = None) -> dict[str, Any]:
    """Run self-repair on a snapshot's instances (the first `limit`); returns the summary printed by the CLI."""
    snap, family, instances = load_snapshot(ws, snapshot, limit)
    if family.id != "specs":
        raise UserError(f"snapshot '{snapshot}' is a {family.id} snapshot: specs-repair needs a specs snapshot")
    if style not in family.prompt_styles:
        raise UserError(f"--style: unknown style '{style}' (use {', '.join(family.prompt_styles)})")
    store = ws.log
    options: dict[str, Any] = {"cache": store} if is_model_spec(solver_spec) else {}
    solver = make_solver(solver_spec, family, **options)
    config = RunConfig(snapshot=snap.name, solver=solver_spec, samples=rounds + 1, style=style,
                       limit=limit or None)
    run_id = create_run(store, config, family, len(instances) * (rounds + 1),
                        extra_options={"repair": {"rounds": rounds}, "recorded_by": "specs-repair"})
    solved_by_round = [0] * (rounds + 1)
    attempts = 0

    async def add(row: dict[str, Any]) -> int:
        return store.add_attempt(row)  # on the loop's thread, which owns the database connection

    async def repair_all() -> None:
        # One event loop for the whole run (a model client belongs to its loop); each instance's
        # repair loop, which blocks on Frama-C, runs in a thread and calls back into the loop.
        nonlocal attempts
        loop = asyncio.get_running_loop()
        try:
            for inst in instances:
                last: list[tuple[SolveResult, str]] = []  # each round's reply and when it was asked
                previous: list[int] = []

                def ask(prompt: Any, _inst: Any = inst, _last: list[tuple[SolveResult, str]] = last) -> str:
                    started = now_iso()
                    result = asyncio.run_coroutine_threadsafe(solver.solve(_inst, prompt), loop).result()
                    _last.append((result, started))
                    return result.response

                def record(rnd: RepairRound, answer: Answer, verdict: Verdict, _inst: Any = inst,
                           _last: list[tuple[SolveResult, str]] = last, _prev: list[int] = previous) -> bool:
                    result, started = _last[-1]
                    rec = record_from(family, _inst, solver_spec, result, prompt=rnd.prompt.model_dump(),
                                      run_id=run_id, snapshot=snap.name, sample=rnd.round, source="cli",
                                      started=started, checked=None if result.error else (answer, verdict))
                    rec.usage = {**rec.usage, "repair": {"round": rnd.round,
                                                         "previous_attempt": _prev[-1] if _prev else None,
                                                         "category": rnd.category or None}}
                    _prev.append(asyncio.run_coroutine_threadsafe(add(rec.row()), loop).result())
                    return result.error is None  # a solver error ends this instance's repairs

                out = await asyncio.to_thread(self_repair, inst, ask, render_prompt(inst, style), rounds,
                                              on_round=record)
                attempts += len(out)
                final = out[-1]
                if final.correct and not last[-1][0].error:
                    for k in range(final.round, rounds + 1):
                        solved_by_round[k] += 1
                if on_instance is not None:
                    on_instance()
        finally:
            aclose = getattr(solver, "aclose", None)
            if aclose is not None:
                await aclose()

    status = "interrupted"
    try:
        asyncio.run(repair_all())
        status = "finished"
    finally:
        store.set_status(run_id, status)
    n = len(instances) or 1
    return {"run": run_id, "snapshot": snap.name, "instances": len(instances), "solver": solver_spec,
            "attempts": attempts, "success_rate_by_round": [round(s / n, 4) for s in solved_by_round]}
