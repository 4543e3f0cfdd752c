"""The snapshots shipped in `snapshots.db`, and how to (re)build them from presets and seeds."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from core.errors import UserError
from core.family import Family, get_family
from core.instance import Instance, Snapshot
from core.store import SnapshotStore


class BundleEntry(BaseModel):
    name: str
    family: str
    preset: str
    seed: int = 0


def bundle_entries() -> list[BundleEntry]:
    """Every preset marked `bundled`, family by family, each under its own name (rebuilt from its
    family, preset and seed alone). Presets left out (e.g. the 14,400-item PAG grid) are generated on
    demand with `sembench generate`."""
    from core.family import all_families

    return [BundleEntry(name=p.name, family=fam.id, preset=p.name, seed=p.seed)
            for fam in all_families().values() for p in fam.presets().values() if p.bundled]


Progress = Callable[[str, int, int], None]  # (snapshot name, done, total)


def build_snapshot(entry: BundleEntry, progress: Progress | None = None) -> tuple[Snapshot, list[Instance]]:
    family = get_family(entry.family)
    preset = family.presets()[entry.preset]
    params = family.resolve_params(entry.preset)
    instances: list[Instance] = []
    for inst in family.generate(params, entry.seed, preset.count):
        instances.append(inst)
        if progress is not None:
            progress(entry.name, len(instances), preset.count)
    snapshot = Snapshot(
        name=entry.name, family=entry.family, preset=entry.preset, params=params, seed=entry.seed,
        count=len(instances), description=preset.description, meta=snapshot_meta(family, instances),
    )
    return snapshot, instances


def snapshot_meta(family: Family, instances: list[Instance]) -> dict[str, Any]:
    """Counts per main feature, and whether any item had to relax its target (e.g. a category)."""
    meta: dict[str, Any] = {}
    if family.features:
        counts: dict[str, int] = {}
        for inst in instances:
            key = str(family.feature_values(inst).get(family.features[0]))
            counts[key] = counts.get(key, 0) + 1
        meta[f"counts_by_{family.features[0]}"] = dict(sorted(counts.items()))
    relaxed = sum(1 for inst in instances if inst.meta.get("relaxed"))
    if relaxed:
        meta["relaxed"] = relaxed
        meta["note"] = f"{relaxed} item(s) could not reach their target category within patience and were relaxed"
    meta.update(family.describe_snapshot(instances))
    return meta


def write_bundle(out: Path, names: list[str] | None = None, progress: Progress | None = None) -> list[Snapshot]:
    """Build the bundle into `out` (a new file is written beside it and moved into place)."""
    entries = [e for e in bundle_entries() if names is None or e.name in names]
    tmp = out.with_suffix(".building")
    try:
        if tmp.exists():
            tmp.unlink()
        store = SnapshotStore(tmp, writable=True)
    except (OSError, sqlite3.Error) as exc:
        raise UserError(f"cannot write ({exc})", file=str(out)) from None
    built: list[Snapshot] = []
    try:
        for entry in entries:
            snapshot, instances = build_snapshot(entry, progress)
            store.write_snapshot(snapshot, instances, features=get_family(entry.family).feature_values)
            built.append(snapshot)
        store.db.execute("vacuum")
    finally:
        store.close()
    tmp.replace(out)
    return built
