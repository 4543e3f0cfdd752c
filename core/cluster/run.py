"""The commands' entry points to a cluster: `sembench verify --cluster/--workers` and the run's verifier."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core.cluster.session import ClusterLost, ClusterSession, ClusterStatus
from core.errors import UserError
from core.family import Family
from core.instance import Instance
from core.verdict import Answer, Verdict


def open_session(address: str | None, workers: int | None) -> ClusterSession:
    if address is not None and workers is not None:
        raise UserError("give either --cluster ADDRESS or --workers N, not both")
    if address is not None and "://" not in address and ":" not in address:
        raise UserError(f"--cluster expects a scheduler address such as tcp://host:8786, got '{address}'")
    return ClusterSession(address, workers)


@contextmanager
def cluster_progress(label: str, total: int) -> Iterator[Any]:
    """A rich bar on a terminal with the cluster's counts (queued, running, done, workers alive);
    nothing otherwise (pipes, CI)."""
    import sys

    if not sys.stderr.isatty():
        yield lambda status: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[cluster]}"), console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=total, cluster="")

        def show(status: ClusterStatus) -> None:
            progress.update(task, completed=status.answers, cluster=status.line())

        yield show


def verify_on_cluster(family: Family, pairs: Sequence[tuple[Instance, str]], address: str | None,
                      workers: int | None, db: Path | None) -> list[tuple[Answer, Verdict]]:
    from core.cluster.checks import check_all
    from core.tools.cache import configure, current

    tool_cache = configure(db) if db is not None else current()
    with open_session(address, workers) as session, \
            cluster_progress(f"verifying {family.id} on the cluster", len(pairs)) as show:
        try:
            return check_all(session, family, pairs, tool_cache, show)
        except ClusterLost as exc:
            raise UserError(f"{exc}; answers verified so far are in the tool cache, so running the same "
                            "command again (with a reachable --cluster) only checks the rest") from None
