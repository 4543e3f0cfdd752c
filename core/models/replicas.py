"""Several servers for one model (an endpoint's `base_urls`): which one gets the next request.

The replica with the fewest requests in flight, among those not taken out; each replica has its own
concurrency limit (the endpoint's max_concurrency, through core.models.retry.endpoint_semaphore keyed by
its URL). A replica that fails to connect (refused, reset, dropped mid-reply) is taken out for DOWN_S and
then tried again; when every replica is out, the one back soonest is tried. State is per event loop (as
the semaphores are), shared by every provider of the endpoint in that loop.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

DOWN_S = 5.0


@dataclass
class Replica:
    base_url: str
    in_flight: int = 0
    down_until: float = 0.0


@dataclass
class ReplicaSet:
    replicas: list[Replica] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.replicas)

    def pick(self, now: float) -> Replica:
        if len(self.replicas) == 1:
            return self.replicas[0]
        up = [r for r in self.replicas if r.down_until <= now]
        if not up:
            return min(self.replicas, key=lambda r: r.down_until)
        return min(up, key=lambda r: r.in_flight)  # min keeps the first of equals: the order given

    def any_up(self, now: float, besides: Replica) -> bool:
        return any(r is not besides and r.down_until <= now for r in self.replicas)

    def take_out(self, replica: Replica, now: float) -> None:
        if len(self.replicas) > 1:
            replica.down_until = now + DOWN_S

    @contextmanager
    def holding(self, replica: Replica) -> Iterator[None]:
        replica.in_flight += 1
        try:
            yield
        finally:
            replica.in_flight -= 1


_SETS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, ...], ReplicaSet]] = \
    weakref.WeakKeyDictionary()


def replica_set(base_urls: tuple[str, ...]) -> ReplicaSet:
    """The shared state of these replicas in the running loop."""
    per_loop = _SETS.setdefault(asyncio.get_running_loop(), {})
    found = per_loop.get(base_urls)
    if found is None:
        found = per_loop[base_urls] = ReplicaSet([Replica(url) for url in base_urls])
    return found
