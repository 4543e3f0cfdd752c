"""A run on some instances of a snapshot (the workbench's marked rows): only those are attempted, and the
subset is kept in the run's options so that a resume runs the same ones."""

from __future__ import annotations

from runs_support import write_snapshot

from core.runner import RunConfig, get_run, run_sync
from core.runner.config import config_of
from core.store import LogStore, Workspace


def test_a_run_on_chosen_ids_attempts_only_those_and_resumes_them(family, log_db) -> None:
    instances = write_snapshot(log_db, family, "s", 6)
    chosen = [instances[4].id, instances[1].id]
    outcome = run_sync(Workspace(log_db), RunConfig(snapshot="s", solver="oracle", ids=chosen))
    store = LogStore(log_db)
    rows = store.attempts(run_id=outcome.run_id)
    assert sorted(r["instance_id"] for r in rows) == sorted(chosen)
    assert outcome.stats.total == 2
    run = get_run(store, outcome.run_id)
    assert config_of(run).ids == chosen  # a resume (`sembench run --resume`) runs the same subset
    assert "ids" not in RunConfig(snapshot="s", solver="oracle").options()  # other runs' options unchanged
