"""Which checks go to the cluster: only those that cost more than a task's round trip.

Moving a check to a worker costs a task's round trip (the scheduler, the network, encoding the answers
and decoding the verdicts): a few milliseconds on a LocalCluster. A cascade check costs ~0.1 ms, so on
a 2-worker LocalCluster cascade's 100,000 answers took 2.3-2.5x their in-process time: each check paid
more to travel than to run. So a family's check stays in this process unless it costs at least a round
trip. The cost is the family's word when it gives one (`Family.check_cost_s`; a family with an external
tool or its own batch verification, specs, typeinf, imports, costs seconds; `inline_checks`, cascade,
costs nothing), else it is measured: the first MEASURED checks run here, timed, and their median decides
for the rest. The round trip is the session's own, measured when it opens (`ClusterSession.round_trip_s`)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from core.family import Family

ROUND_TRIP_S = 0.003  # the least a LocalCluster task's round trip was measured at (docs/cluster.md)
MEASURED = 5  # checks timed in this process before an undeclared family's checks are routed


def declared_cost(family: Family) -> float | None:
    """Seconds one check of `family` costs by its own word (inf: a tool or a batch per check), or None when
    it must be measured."""
    from core.runner.verifying import overrides

    cost = getattr(family, "check_cost_s", None)
    if cost is not None:
        return float(cost)
    if family.requires or overrides(family, "verify_many"):
        return math.inf
    if getattr(family, "inline_checks", False):
        return 0.0
    return None


@dataclass(frozen=True)
class Route:
    on_cluster: bool
    reason: str


def route(family: Family, round_trip_s: float = ROUND_TRIP_S, measured_s: list[float] | None = None) -> Route | None:
    """Where `family`'s checks go; None while an undeclared family's cost is still being measured."""
    cost = declared_cost(family)
    how = "by the family's word"
    if cost is None:
        if not measured_s or len(measured_s) < MEASURED:
            return None
        cost, how = statistics.median(measured_s), f"measured on {len(measured_s)} checks"
    if cost >= round_trip_s:
        return Route(True, f"{family.id}: a check costs {_seconds(cost)} ({how}), a cluster task's round trip "
                           f"{_seconds(round_trip_s)}: checked on the cluster")
    return Route(False, f"{family.id}: a check costs {_seconds(cost)} ({how}), less than a cluster task's round "
                        f"trip ({_seconds(round_trip_s)}): checked in this process")


def _seconds(value: float) -> str:
    if math.isinf(value):
        return "seconds (a tool per check)"
    return f"{value * 1000:.2f} ms" if value < 1 else f"{value:.1f} s"


def stays_here(family: Family) -> Route | None:
    """A Route that keeps `family`'s checks here without opening a session (its word says it is cheaper
    than any round trip), else None (the session is needed: to check there, or to measure)."""
    cost = declared_cost(family)
    if cost is not None and cost < ROUND_TRIP_S:
        return route(family)
    return None
