"""The workbench fixture: each test gets its own copy of the two test snapshots, written once a session."""

from __future__ import annotations

from conftest import CASCADE_SNAPSHOT, MEMBERSHIP_SNAPSHOT, digest

from core.store import SnapshotStore


def test_each_workbench_has_its_own_copy_of_the_session_snapshots(workbench, snapshots_template) -> None:
    assert workbench.snapshots != snapshots_template and digest(workbench.snapshots) == digest(snapshots_template)
    store = SnapshotStore(workbench.snapshots)
    try:
        assert [row[1] for row in store.instance_rows(CASCADE_SNAPSHOT)] == [i.id for i in workbench.cascade]
        assert [row[1] for row in store.instance_rows(MEMBERSHIP_SNAPSHOT)] == [i.id for i in workbench.membership]
    finally:
        store.close()
