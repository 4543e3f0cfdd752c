"""Batch runs: every (instance, sample) of a snapshot becomes one attempt, written as it completes.

A run is a row in `runs` (core.store.runs) plus its attempts. Resuming a run asks only for the
(instance, sample) pairs that have no attempt yet, so an interrupted or killed run finishes with exactly
one attempt per pair. Modules: config (what a run asks for, progress counters), plan (what is left to
do), stop (when to give up early), verifying (checks off the event loop), execute (the batch itself),
importing (answers produced elsewhere).
"""

from __future__ import annotations

from typing import Any

from core.runner.config import (
    NullObserver,
    Observer,
    RunConfig,
    RunOutcome,
    RunStats,
    config_of,
    new_run_id,
    resume_command,
)
from core.runner.execute import (
    build_solver,
    create_run,
    default_concurrency,
    execute,
    one_attempt,
    run_async,
    run_sync,
)
from core.runner.importing import import_answers
from core.runner.plan import load_snapshot, plan, retry_mode
from core.runner.stop import (
    ABORT_AFTER,
    PERSISTENT_ERRORS,
    RETRY_MODES,
    TRANSIENT_ERRORS,
    UNREACHABLE_ERRORS,
    RunAborted,
    StopRule,
)
from core.runner.verifying import Verifier
from core.store import LogStore


def get_run(store: LogStore, run_id: str) -> dict[str, Any]:
    return store.get_run(run_id)


def list_runs(store: LogStore) -> list[dict[str, Any]]:
    return store.list_runs()


def claim_run(store: LogStore, run_id: str) -> dict[str, Any]:
    return store.claim_run(run_id)


def set_status(store: LogStore, run_id: str, status: str) -> None:
    store.set_status(run_id, status)


__all__ = [
    "ABORT_AFTER", "PERSISTENT_ERRORS", "RETRY_MODES", "TRANSIENT_ERRORS", "UNREACHABLE_ERRORS", "NullObserver",
    "Observer", "RunAborted", "RunConfig", "RunOutcome", "RunStats", "StopRule", "Verifier", "build_solver",
    "claim_run", "config_of", "create_run", "default_concurrency", "execute", "get_run", "import_answers",
    "list_runs", "load_snapshot", "new_run_id", "one_attempt", "plan", "resume_command", "retry_mode", "run_async",
    "run_sync", "set_status",
]
