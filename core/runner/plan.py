"""What a run still has to do: the snapshot's instances and the (instance, sample) pairs not yet recorded."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

from pydantic import ValidationError

from core.errors import UserError
from core.family import Family, get_family
from core.instance import Instance, Snapshot
from core.limits import MAX_SAMPLES
from core.runner.config import RunStats
from core.runner.stop import RETRY_MODES, TRANSIENT_ERRORS, checkpoint
from core.store import LogStore, Workspace


def load_snapshot(ws: Workspace, name: str, limit: int | None = None,
                  ids: list[str] | None = None) -> tuple[Snapshot, Family, list[Instance]]:
    """A snapshot's instances as models, in snapshot order (the first `limit`; only `ids` when given)."""
    store = ws.store_for(name)
    snap = store.snapshot(name)
    assert snap is not None  # store_for found it
    family = get_family(snap.family)
    instances: list[Instance] = []
    wanted = set(ids) if ids is not None else None
    for idx, iid, _features, data in store.instance_rows(name):
        if limit is not None and len(instances) >= limit:
            break
        if wanted is not None and iid not in wanted:
            continue
        checkpoint()  # SIGINT/SIGTERM stop a long load at once
        try:
            instances.append(family.parse_instance(data))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"]) or "(object)"
            raise UserError(f"snapshot '{name}' item {idx}: {err['msg']}", file=str(store.path), field=loc) from None
    return snap, family, instances


def retry_mode(retry_errors: bool | str | None) -> str | None:
    """None (keep every recorded attempt), "transient" or "all"; True means "transient"."""
    if retry_errors is True:
        return "transient"
    if not retry_errors:
        return None
    if retry_errors not in RETRY_MODES:
        raise UserError(f"--retry-errors: unknown mode '{retry_errors}' (use {' or '.join(RETRY_MODES)})")
    return str(retry_errors)


class Pending(Sequence[tuple[Instance, int]]):
    """The (instance, sample) pairs still to do, sample-major, produced as they are iterated: a run's
    plan costs memory for what is already recorded, never for instances x samples."""

    def __init__(self, instances: list[Instance], samples: int, kept: set[tuple[str, int]]) -> None:
        self.instances = instances
        self.samples = samples
        self.kept = kept
        self._len = len(instances) * samples - len(kept)  # kept holds only pairs of this plan

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[tuple[Instance, int]]:
        for k in range(self.samples):
            for inst in self.instances:
                if (inst.id, k) not in self.kept:
                    yield inst, k

    @overload
    def __getitem__(self, index: int) -> tuple[Instance, int]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[Instance, int]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        # Linear, for the odd caller that indexes (tests); the runner only iterates.
        items = list(self)
        return items[index]


def plan(
    store: LogStore, run_id: str, instances: list[Instance], samples: int, retry_errors: bool | str | None = None
) -> tuple[Pending, RunStats]:
    """The (instance, sample) pairs still to do, sample-major (sample 0 of everything first, so the
    headline metrics are complete early), and the counters of what is already recorded. Recorded
    errors are redone with retry_errors "transient" (those in TRANSIENT_ERRORS) or "all"."""
    mode = retry_mode(retry_errors)
    if not 1 <= samples <= MAX_SAMPLES:
        raise UserError(f"samples must be from 1 to {MAX_SAMPLES}, not {samples}")
    cursor = store.db.execute(
        "select instance_id, sample, correct, error, error_kind, cached from attempts where run_id = ?", [run_id]
    )
    stats = RunStats(run_id=run_id, total=len(instances) * samples)
    kept: set[tuple[str, int]] = set()
    wanted = {inst.id for inst in instances}
    for n, (iid, sample, correct, error, kind, _cached) in enumerate(cursor):
        if n % 4096 == 0:
            checkpoint()
        if iid not in wanted or sample >= samples or (iid, sample) in kept:
            continue
        if error is not None and (mode == "all" or (mode == "transient" and kind in TRANSIENT_ERRORS)):
            continue
        kept.add((iid, sample))
        stats.done += 1
        stats.correct += bool(correct)
        stats.errors += error is not None
    return Pending(instances, samples, kept), stats


