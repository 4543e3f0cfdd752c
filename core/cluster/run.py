"""The commands' entry points to a cluster: `sembench verify --cluster/--workers` and the run's verifier."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core.cluster.session import ClusterLost, ClusterSession, ClusterStatus
from core.cluster.target import SECURE_SCHEMES, ClusterTarget
from core.errors import UserError
from core.family import Family
from core.instance import Instance
from core.terminal import shown
from core.verdict import Answer, Verdict


def open_session(target: ClusterTarget) -> ClusterSession:
    """A session on the target's cluster (its one-line errors first: core.cluster.target)."""
    target.check()
    security = None
    if target.address is not None and target.address.startswith(SECURE_SCHEMES):
        security = target.security()
    return ClusterSession(target.address, target.workers, security=security, insecure=target.insecure)


@contextmanager
def cluster_progress(label: str, total: int) -> Iterator[Any]:
    """A rich bar on a terminal with the cluster's counts (queued, running, done, workers alive);
    nothing otherwise (pipes, CI)."""
    if not sys.stderr.isatty():
        yield lambda status: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from core.terminal import safe_console

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[cluster]}"), console=safe_console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=total, cluster="")

        def show(status: ClusterStatus) -> None:
            progress.update(task, completed=status.answers, cluster=status.line())

        yield show


def verify_on_cluster(family: Family, pairs: Sequence[tuple[Instance, str]], target: ClusterTarget,
                      db: Path | None) -> list[tuple[Answer, Verdict]]:
    """Every (instance, response) checked, in order: on the cluster when a check costs more than a task's
    round trip there (core.cluster.routing), else here. A family whose cost must be measured has its first
    checks made here, timed; a cheap one never starts or reaches a cluster."""
    import time

    from core.cluster.checks import check_all
    from core.cluster.routing import MEASURED, ROUND_TRIP_S, declared_cost, route, stays_here
    from core.tools.cache import configure, current

    target.check()
    here = stays_here(family)
    if here is not None:
        print(shown(here.reason), file=sys.stderr)
        return family.check_many(pairs)
    done: list[tuple[Answer, Verdict]] = []
    times: list[float] = []
    if declared_cost(family) is None:
        for instance, response in pairs[:MEASURED]:
            start = time.perf_counter()
            done.append(family.check(instance, response))
            times.append(time.perf_counter() - start)
        cheap = route(family, ROUND_TRIP_S, times)
        if cheap is None or not cheap.on_cluster or len(done) == len(pairs):  # cheaper than any round trip
            if cheap is not None:
                print(shown(cheap.reason), file=sys.stderr)
            return done + family.check_many(pairs[len(done):])
    tool_cache = configure(db) if db is not None else current()
    rest = pairs[len(done):]
    with open_session(target) as session, \
            cluster_progress(f"verifying {family.id} on the cluster", len(rest)) as show:
        if times:
            decided = route(family, session.round_trip_s, times)
            if decided is not None:
                print(shown(decided.reason), file=sys.stderr)
                if not decided.on_cluster:
                    return done + family.check_many(rest)
        try:
            return done + check_all(session, family, rest, tool_cache, show)
        except ClusterLost as exc:
            raise UserError(f"{exc}; answers verified so far are in the tool cache, so running the same "
                            "command again (with a reachable --cluster) only checks the rest") from None
