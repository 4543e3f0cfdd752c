"""The instance list that `]`/`[` walk: the browser's current (filtered, sorted) list of one snapshot.

The browser publishes it on the app each time its list changes; the instance view reads it to say where it
is ("3 of 40") and which instance is next; the browser puts its cursor back on the instance last walked
to. Neither screen knows the other: both know this list.
"""

from __future__ import annotations

from collections.abc import Sequence


class InstanceList:
    def __init__(self, snapshot: str | None = None, ids: Sequence[str] = ()) -> None:
        self.snapshot = snapshot
        self.ids: Sequence[str] = ids
        self._index: dict[str, int] | None = None  # built on first look-up: most lists are never walked
        # The instance last opened or walked to from this list (the browser's cursor goes back to it).
        self.current: str | None = None

    def show(self, snapshot: str, ids: Sequence[str]) -> None:
        """The browser's list changed (another snapshot, search, filter or sort)."""
        self.snapshot, self.ids, self._index = snapshot, ids, None

    def index(self, snapshot: str | None, instance_id: str) -> int | None:
        """Where `instance_id` of `snapshot` is in the list, or None (another snapshot, filtered out)."""
        if snapshot is None or snapshot != self.snapshot:
            return None
        if self._index is None:
            self._index = {iid: at for at, iid in enumerate(self.ids)}
        return self._index.get(instance_id)

    def __len__(self) -> int:
        return len(self.ids)

    def neighbour(self, snapshot: str | None, instance_id: str, step: int) -> str | None:
        """The id `step` rows away from `instance_id`, or None past either end or when it is not listed."""
        at = self.index(snapshot, instance_id)
        if at is None or not 0 <= at + step < len(self.ids):
            return None
        return self.ids[at + step]
