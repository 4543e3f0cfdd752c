"""The bundled snapshots.db is reproducible from presets and seeds, and nothing writes to it."""

from __future__ import annotations

import hashlib

import pytest

from core.bundle import build_snapshot, bundle_entries
from core.family import get_family
from core.store import BUNDLED_SNAPSHOTS, SnapshotStore, Workspace

pytestmark = pytest.mark.skipif(not BUNDLED_SNAPSHOTS.exists(), reason="snapshots.db not built yet")


def _digest() -> str:
    return hashlib.sha256(BUNDLED_SNAPSHOTS.read_bytes()).hexdigest()


def test_bundle_lists_every_entry() -> None:
    store = SnapshotStore(BUNDLED_SNAPSHOTS)
    names = {s.name for s in store.snapshots()}
    assert names == {e.name for e in bundle_entries()}
    for snap in store.snapshots():
        assert snap.count == len(list(store.instance_rows(snap.name))) > 0


# Entries whose instances another test already regenerates and compares with the shipped rows, one by one:
# generating them again here would cost as much and prove nothing more (docs/testing.md).
REGENERATED_ELSEWHERE = {
    # 1,008 instances, a minute of CPU: generated through the real CLI and compared row for row (ids and data)
    "pbebench-lite": "tests/engine/test_cascade_done_when.py::test_pbebench_lite_end_to_end",
}


def test_entries_regenerated_elsewhere_are_bundled() -> None:
    assert set(REGENERATED_ELSEWHERE) <= {e.name for e in bundle_entries()}


@pytest.mark.parametrize("entry", [e for e in bundle_entries() if e.name not in REGENERATED_ELSEWHERE],
                         ids=lambda e: e.name)
def test_rebuilding_reproduces_the_same_instances(entry) -> None:
    store = SnapshotStore(BUNDLED_SNAPSHOTS)
    shipped = [(iid, data) for _, iid, _, data in store.instance_rows(entry.name)]
    snapshot, rebuilt = build_snapshot(entry)
    assert snapshot.count == len(shipped)
    assert [(i.id, i.to_json_dict()) for i in rebuilt] == shipped
    assert store.snapshot(entry.name).params == snapshot.params


@pytest.mark.parametrize("entry", bundle_entries(), ids=lambda e: e.name)
def test_every_entry_ships_its_preset_params_count_and_seed(entry) -> None:
    """What the rebuild checks besides the instances, for every entry, those regenerated elsewhere included."""
    store = SnapshotStore(BUNDLED_SNAPSHOTS)
    family = get_family(entry.family)
    shipped = store.snapshot(entry.name)
    assert shipped.params == family.resolve_params(entry.preset)
    assert shipped.count == family.presets()[entry.preset].count == len(list(store.instance_rows(entry.name)))
    assert (shipped.family, shipped.preset, shipped.seed) == (entry.family, entry.preset, entry.seed)


def test_opening_the_workspace_does_not_modify_snapshots_db(tmp_path) -> None:
    before = _digest()
    ws = Workspace(tmp_path / "log.db")
    for snap, _ in ws.snapshots():
        list(ws.store_for(snap.name).instance_rows(snap.name))
    ws.log.add_attempt({"instance_id": "x", "family": "cascade", "solver": "oracle"})
    ws.close()
    assert _digest() == before
    assert not BUNDLED_SNAPSHOTS.with_name("snapshots.db-wal").exists()
