"""A run's verification stage on a cluster: the same `check` / `close` as core.runner.verifying.Verifier,
with the answers sent to the cluster in chunks (the tool cache looked up first, results recorded by the
driver). A lost scheduler aborts the run (RunAborted: the run stops, resumable); an answer the cluster
could not check is an error of that attempt, naming the instance."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from core.cluster.checks import CheckCache, Checked
from core.cluster.dispatch import Dispatcher, Result
from core.cluster.session import ClusterLost, ClusterSession
from core.errors import EnvironmentFault, UserError
from core.family import Family
from core.instance import Instance
from core.runner.stop import RunAborted
from core.runner.verifying import Batcher


class ClusterCheckFailed(RuntimeError):
    """The cluster gave no verdict for this answer (the message names the instance)."""


class ClusterVerifier(Batcher):
    def __init__(self, session: ClusterSession, family: Family, tool_cache: Any, batch_wait_s: float = 0.02) -> None:
        session.require(family)
        self.session = session
        self.family = family
        self.cache = CheckCache(tool_cache, family, session)
        self.dispatcher = Dispatcher(session, family, tool_cache)
        self.batch_size = session.chunk_size(family)
        self.batch_wait_s = batch_wait_s
        self._pending: list[tuple[Instance, str, asyncio.Future[Checked]]] = []
        self._timer: asyncio.TimerHandle | None = None

    async def check(self, instance: Instance, response: str) -> Checked:
        hit = self.cache.get(instance, response)
        if hit is not None:
            return hit
        checked = await self._enqueue(instance, response)
        self.cache.put(instance, response, checked)
        return checked

    def _flush(self) -> None:
        batch = self._take_batch()
        if not batch:
            return
        loop = asyncio.get_running_loop()

        def on_loop(out: list[Result] | BaseException) -> None:
            for i, (_, _, future) in enumerate(batch):
                if future.done():
                    continue
                if isinstance(out, EnvironmentFault):  # a worker's machine failed: the run stops with the cause
                    future.set_exception(out)  # and keeps these attempts apart (core.store.envfaults)
                elif isinstance(out, ClusterLost | UserError):  # the cluster is gone or unfit: stop, resumable
                    future.set_exception(RunAborted(f"{out} (resume with --cluster again)", None))  # type: ignore[arg-type]
                elif isinstance(out, BaseException):
                    future.set_exception(out)
                elif isinstance(out[i], str):
                    future.set_exception(ClusterCheckFailed(out[i]))
                else:
                    future.set_result(out[i])  # type: ignore[arg-type]

        def deliver(out: list[Result] | BaseException) -> None:  # on the watcher thread
            try:
                loop.call_soon_threadsafe(on_loop, out)
            except RuntimeError:
                pass  # the run's loop is closed: the run is over

        self.dispatcher.send([(i, r) for i, r, _ in batch], deliver)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.dispatcher.close()


class RoutedVerifier:
    """A run's checks for a family whose cost is not declared (core.cluster.routing): the first MEASURED
    run here, timed (in a thread: the loop keeps serving requests), and their median sends the rest to the
    cluster when a check costs at least the session's round trip, else keeps them here."""

    def __init__(self, session: ClusterSession, family: Family, tool_cache: Any) -> None:
        from core.runner.verifying import Verifier

        self.session = session
        self.family = family
        self.tool_cache = tool_cache
        self.local = Verifier(family)
        self.remote: ClusterVerifier | None = None
        self.times: list[float] = []
        self.route: Any = None

    async def check(self, instance: Instance, response: str) -> Checked:
        from core.cluster.routing import route

        if self.route is None:
            start = time.perf_counter()
            checked = await asyncio.get_running_loop().run_in_executor(None, self.family.check, instance, response)
            self.times.append(time.perf_counter() - start)
            if self.route is None:
                self.route = route(self.family, self.session.round_trip_s, self.times)
                if self.route is not None:
                    self.session.echo(self.route.reason)
            return checked
        if self.route.on_cluster:
            if self.remote is None:
                self.remote = ClusterVerifier(self.session, self.family, self.tool_cache)
            return await self.remote.check(instance, response)
        return await self.local.check(instance, response)

    def close(self) -> None:
        self.local.close()
        if self.remote is not None:
            self.remote.close()


def run_verifier(session: ClusterSession, family: Family, tool_cache: Any) -> Any:
    """The verification stage of a run given a cluster session: the cluster's for a family whose checks
    cost more than a task's round trip by its word, a measuring one when it says nothing (RoutedVerifier),
    the in-process one otherwise."""
    from core.cluster.routing import declared_cost, route
    from core.runner.verifying import Verifier

    if declared_cost(family) is None:
        return RoutedVerifier(session, family, tool_cache)
    decided = route(family, session.round_trip_s)
    if decided is not None and not decided.on_cluster:
        session.echo(decided.reason)
        return Verifier(family)
    return ClusterVerifier(session, family, tool_cache)
