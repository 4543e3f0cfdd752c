"""Human-baseline sessions: a person answers a fixed list of instances one after another, and the whole
session is one run in the log database (solver `human:NAME`), so `sembench report` and `sembench compare`
treat it like any model run. The plan (the instances in order, how they were chosen, whether verdicts are
shown after each answer) is stored in the run's options; what has been answered is read back from the
attempts, so a session resumes after quitting.

The TUI drives a session; everything here is plain data and the store, usable from tests and scripts."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from core.attempts import HUMAN_PREFIX, AttemptRecord, HumanTiming, record_from
from core.canonical import derive_seed
from core.errors import UserError
from core.family import Family
from core.instance import Instance
from core.runner.config import new_run_id
from core.solver_base import SolveResult
from core.store.log import LogStore

MAX_SESSION = 10_000
SKIPPED = "skipped"


class SessionPlan(BaseModel):
    """What a session asks, in order, and how it was chosen (stored in the run's options)."""

    person: str
    instance_ids: list[str]
    chosen_by: str = "marked"  # marked | filter | sample
    seed: int | None = None  # the sample's and the order's
    shuffled: bool = False  # asked in a seeded random order (a sample always is), not the browser's
    stratify: str | None = None
    show_after_each: bool = False


class SessionState(BaseModel):
    """Where a session stands: answered (and skipped) instances, the next one, and the totals."""

    run_id: str
    snapshot: str
    plan: SessionPlan
    answered: dict[str, dict[str, Any]] = Field(default_factory=dict)  # id -> correct, human_time_s, skipped

    @property
    def total(self) -> int:
        return len(self.plan.instance_ids)

    @property
    def done(self) -> int:
        return len(self.answered)

    @property
    def next_id(self) -> str | None:
        return next((iid for iid in self.plan.instance_ids if iid not in self.answered), None)

    @property
    def finished(self) -> bool:
        return self.next_id is None


def clean_person(name: str) -> str:
    name = " ".join(name.split())
    if not name or len(name) > 64 or ":" in name:
        raise UserError("a person's name is 1 to 64 characters without ':'")
    return name


def sample_ids(rows: Sequence[tuple[str, dict[str, Any]]], k: int, seed: int,
               stratify: str | None = None) -> list[str]:
    """k instance ids drawn without replacement, the same for the same rows, k and seed on any machine.
    With `stratify`, each value of that feature gets a share proportional to its size (largest
    remainders), so a sample of a balanced snapshot stays balanced."""
    if k < 1:
        raise UserError("a session needs at least one instance")
    k = min(k, len(rows), MAX_SESSION)
    rng = random.Random(derive_seed("session-sample", seed, stratify or ""))
    if not stratify:
        return [iid for iid, _ in rng.sample(list(rows), k)]
    groups: dict[str, list[str]] = {}
    for iid, features in rows:
        groups.setdefault(str(features.get(stratify)), []).append(iid)
    exact = {value: k * len(ids) / len(rows) for value, ids in groups.items()}
    shares = {value: int(x) for value, x in exact.items()}
    for value in sorted(groups, key=lambda v: (-(exact[v] - shares[v]), v))[:k - sum(shares.values())]:
        shares[value] += 1
    picked = [iid for value in sorted(groups) for iid in rng.sample(groups[value], shares[value])]
    rng.shuffle(picked)  # not grouped by the feature: a person should not see the strata in order
    return picked


def shuffle_ids(ids: Sequence[str], seed: int) -> list[str]:
    """The ids in a seeded random order, the same on any machine: a session never asks instances in an
    order that could say something (a snapshot's order, a sort by a feature)."""
    order = list(ids)
    random.Random(derive_seed("session-order", seed)).shuffle(order)
    return order


def start_session(store: LogStore, snapshot: str, family: Family, plan: SessionPlan) -> str:
    """A new run for this session; returns its id."""
    plan = plan.model_copy(update={"person": clean_person(plan.person)})
    if not plan.instance_ids:
        raise UserError("a session needs at least one instance")
    if len(plan.instance_ids) > MAX_SESSION:
        raise UserError(f"a session holds at most {MAX_SESSION:,} instances")
    run_id = new_run_id()
    store.create_run(run_id, snapshot=snapshot, family=family.id, solver=HUMAN_PREFIX + plan.person, samples=1,
                     options={"session": plan.model_dump()},
                     total=len(plan.instance_ids))
    store.set_status(run_id, "interrupted")  # resumable until its last answer; no process holds it
    return run_id


def load_session(store: LogStore, run_id: str) -> SessionState:
    run = store.get_run(run_id)
    raw = (run.get("options") or {}).get("session")
    if not isinstance(raw, dict):
        raise UserError(f"run '{run_id}' is not a human session")
    state = SessionState(run_id=run_id, snapshot=run["snapshot"], plan=SessionPlan.model_validate(raw))
    for row in store.db.execute("select instance_id, correct, human_time_s, first_key_s, error_kind from attempts "
                                "where run_id = ? and sample = 0", [run_id]):
        iid, correct, time_s, first_key_s, kind = row
        state.answered[iid] = {"correct": bool(correct), "human_time_s": time_s, "first_key_s": first_key_s,
                               "skipped": kind == SKIPPED}
    return state


def sessions(store: LogStore) -> list[dict[str, Any]]:
    """Every human session in the log, newest first, with how far each got."""
    out = []
    for run in store.list_runs():
        options = run.get("options")
        if isinstance(options, str):
            options = json.loads(options or "{}")
        if isinstance(options, dict) and isinstance(options.get("session"), dict):
            out.append(run)
    return out


def person_usage(revealed: bool = False, hints: Sequence[str] = ()) -> dict[str, Any]:
    """What a person saw before sending, kept in the attempt's `usage`: the answer revealed (`v`), the
    hint features revealed (in the order they were)."""
    usage: dict[str, Any] = {}
    if revealed:
        usage["revealed"] = True
    if hints:
        usage["hints_revealed"] = list(hints)
    return usage


def person_fields(solver: str, row: dict[str, Any], usage: Any) -> dict[str, Any]:
    """What an export says of a person's attempt, beside its instance, answer and verdict: who answered
    (NAME of `human:NAME`; None for an anonymous `human`), the time from the problem shown to the answer
    sent (pauses left out), the time to the first keystroke, the pauses, and what was revealed before
    sending (the answer; the hint features, by name)."""
    usage = usage if isinstance(usage, dict) else {}
    hints = usage.get("hints_revealed")
    return {"person": solver[len(HUMAN_PREFIX):] if solver.startswith(HUMAN_PREFIX) else None,
            "time_shown_to_sent_s": row.get("human_time_s"), "time_to_first_key_s": row.get("first_key_s"),
            "pauses": row.get("pauses"), "paused_s": row.get("paused_s"),
            "revealed": bool(usage.get("revealed")),
            "hints_revealed": [str(h) for h in hints] if isinstance(hints, list) else []}


def _timing(human_time_s: float | HumanTiming) -> HumanTiming:
    return human_time_s if isinstance(human_time_s, HumanTiming) else HumanTiming(active_s=float(human_time_s))


def record_answer(store: LogStore, state: SessionState, family: Family, instance: Instance, response: str,
                  human_time_s: float | HumanTiming, *, prompt: dict[str, Any] | None = None,
                  revealed: bool = False, hints: Sequence[str] = ()) -> AttemptRecord:
    """Verify and record one answer of the session (sample 0 of that instance in the run). The person's
    time is a number of seconds or their whole clock (core.attempts.HumanTiming)."""
    if instance.id not in state.plan.instance_ids:
        raise UserError(f"instance '{instance.id}' is not part of session {state.run_id}")
    if instance.id in state.answered:
        raise UserError(f"instance '{instance.id}' was answered already in session {state.run_id}")
    timing = _timing(human_time_s)
    result = SolveResult(response=response, elapsed_s=timing.active_s, usage=person_usage(revealed, hints))
    if prompt is None:
        prompt = family.prompt(instance, family.prompt_styles[0]).model_dump()
    record = record_from(family, instance, HUMAN_PREFIX + state.plan.person, result, prompt=prompt,
                         run_id=state.run_id, snapshot=state.snapshot, source="session", timing=timing)
    return _write(store, state, record)


def record_skip(store: LogStore, state: SessionState, family: Family, instance: Instance,
                human_time_s: float | HumanTiming, *, revealed: bool = False,
                hints: Sequence[str] = ()) -> AttemptRecord:
    """A skipped instance counts as not solved (an error of kind `skipped`), so the session's accuracy
    is over everything it asked."""
    timing = _timing(human_time_s)
    result = SolveResult(response="", elapsed_s=timing.active_s, error="skipped by the person",
                         error_kind=SKIPPED, usage=person_usage(revealed, hints))
    record = record_from(family, instance, HUMAN_PREFIX + state.plan.person, result,
                         prompt=family.prompt(instance, family.prompt_styles[0]).model_dump(), run_id=state.run_id,
                         snapshot=state.snapshot, source="session", timing=timing)
    return _write(store, state, record)


def _write(store: LogStore, state: SessionState, record: AttemptRecord) -> AttemptRecord:
    store.add_attempt(record.row())
    state.answered[record.instance_id] = {"correct": bool(record.correct), "human_time_s": record.human_time_s,
                                          "first_key_s": record.first_key_s, "skipped": record.error_kind == SKIPPED}
    if state.finished:
        store.set_status(state.run_id, "finished")
    return record


def time_summary(times: Sequence[float | None], first_keys: Sequence[float | None] = ()) -> dict[str, Any]:
    """A person's time per instance: its median with a 95% interval (core.stats.median_ci), its mean and
    total over the timed answers, and the median time to the first keystroke."""
    from core.stats import median, median_ci

    timed = [float(t) for t in times if t is not None]
    keys = [float(t) for t in first_keys if t is not None]
    lo, hi = median_ci(timed)
    return {"timed": len(timed), "median_time_s": median(timed), "median_time_s_lo": lo, "median_time_s_hi": hi,
            "mean_time_s": sum(timed) / len(timed) if timed else None, "total_time_s": sum(timed),
            "median_first_key_s": median(keys), "first_keys": len(keys)}


def summary(state: SessionState) -> dict[str, Any]:
    """Accuracy with its Wilson interval and time per instance, over the answered instances."""
    from core.stats import wilson

    rows = list(state.answered.values())
    correct = sum(r["correct"] for r in rows)
    lo, hi = wilson(correct, len(rows)) if rows else (None, None)
    return {"run": state.run_id, "person": state.plan.person, "answered": len(rows), "total": state.total,
            "skipped": sum(r["skipped"] for r in rows), "correct": correct,
            "accuracy": correct / len(rows) if rows else None, "accuracy_lo": lo, "accuracy_hi": hi,
            **time_summary([r["human_time_s"] for r in rows], [r.get("first_key_s") for r in rows])}
