"""The driver's side of a cluster: connect (or start a LocalCluster), admit workers, send chunks of
checks, survive workers that die, and notice a scheduler that is gone.

Faults:
- a worker killed mid-task: the scheduler runs its tasks again on another worker (Dask reschedules
  them; `retries` covers a task that raised). Each chunk's results are taken once, when its future
  completes, so nothing is recorded twice or lost.
- a task that kills every worker it runs on: after ALLOWED_FAILURES deaths the scheduler gives up on it
  (KilledWorker). A chunk of several answers is then split and each answer sent alone, so that the
  one at fault is named: its result is an error naming the instance, and the others go on.
- the scheduler gone (the client cannot reach it for LOST_AFTER_S): ClusterLost, a one-line error.
"""

from __future__ import annotations

import logging
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.cluster.routing import ROUND_TRIP_S
from core.cluster.target import SECURE_SCHEMES
from core.errors import UserError
from core.family import Family
from core.instance import Instance
from core.terminal import shown
from core.verdict import Answer, Verdict

ALLOWED_FAILURES = 2  # deaths of a worker running a task before the scheduler gives up on it
RETRIES = 2  # reruns of a task that raised (a transient fault on a worker)
LOST_AFTER_S = 15.0
CHEAP_CHUNK = 2000  # answers per task for in-process checks (cascade, membership): see tests/bench
TOOL_CHUNK = 1  # answers per task for tool-backed checks, unless the family batches (verify_many)
BATCH_CHUNK = 8
POLL_S = 0.05
PROGRESS_EVERY_S = 1.0
# Dask's statistical profiler samples every worker's stacks every 10 ms (for its dashboard, which we do not
# start): on checks that are pure Python it costs workers a sizeable share of their CPU.
NO_PROFILER = {"distributed.worker.profile.enabled": False}  # the run's progress row is written at most this often

Checked = tuple[Answer, Verdict]


def _quiet_logs() -> None:
    """The driver says what went wrong in one line; Dask's own logging (reconnection tracebacks, workers
    that died) would bury it."""
    for name in ("distributed", *[n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]):
        logging.getLogger(name).setLevel(logging.CRITICAL)


class ClusterLost(Exception):
    """The scheduler cannot be reached any more: the run stops (what was recorded stays)."""


@dataclass
class ClusterStatus:
    """Tasks queued (sent, not yet on a worker), running (held by a worker), done; answers done; workers
    alive (from the last poll of the scheduler)."""

    queued: int = 0
    running: int = 0
    done: int = 0
    answers: int = 0
    workers: int = 0

    def line(self) -> str:
        return (f"tasks {self.queued} queued, {self.running} running, {self.done} done; "
                f"{self.workers} worker{'s' if self.workers != 1 else ''}")


@dataclass
class Admission:
    admitted: list[str]
    refused: dict[str, str] = field(default_factory=dict)  # worker address -> why
    fingerprint: str = ""
    tools: dict[str, str | None] = field(default_factory=dict)  # the version every admitted worker has
    # tools the driver lacks and the admitted workers disagree on: tool -> version -> worker addresses
    undecided: dict[str, dict[str, list[str]]] = field(default_factory=dict)


def _differences(info: dict[str, Any], driver: dict[str, Any]) -> str:
    """Why a worker is refused: its code or a tool the driver has differs from the driver's ('' if none)."""
    if "error" in info:
        return info["error"]
    parts = []
    if info["fingerprint"] != driver["fingerprint"]:
        parts.append(f"Sembench code {info['fingerprint']}, not {driver['fingerprint']} (this machine's)")
    for tool in sorted(t for t, v in driver["tools"].items() if v is not None):
        here, there = info["tools"].get(tool), driver["tools"][tool]
        if here != there:
            parts.append(f"{tool} {here or 'missing'}, not {there} (this machine's)")
    return "; ".join(parts)


def admit(infos: dict[str, dict[str, Any]], driver: dict[str, Any]) -> Admission:
    """The workers whose code fingerprint equals the driver's (`driver`: its own `remote.probe()`), and whose
    version of every tool the driver has is the driver's, are admitted; every other worker is refused,
    whatever their number. A tool the driver lacks (a laptop without Frama-C driving workers that have
    it) cannot be judged here: its version is the admitted workers' when they agree, and when they do not,
    a family that needs it stops (`ClusterSession.require`) rather than let a vote pick one."""
    refused = {a: why for a, i in infos.items() if (why := _differences(i, driver))}
    admitted = sorted(a for a in infos if a not in refused)
    if not admitted:
        raise UserError("no worker of the cluster runs this machine's Sembench code and tools: "
                        + "; ".join(f"{a}: {why}" for a, why in sorted(refused.items())))
    tools = {t: v for t, v in driver["tools"].items() if v is not None}
    undecided: dict[str, dict[str, list[str]]] = {}
    lacking = sorted({t for a in admitted for t in infos[a]["tools"]} - set(tools))
    for tool in lacking:
        versions: dict[str | None, list[str]] = {}
        for address in admitted:
            versions.setdefault(infos[address]["tools"].get(tool), []).append(address)
        if len(versions) == 1:
            tools[tool] = next(iter(versions))
        else:
            undecided[tool] = {v or "missing": a for v, a in versions.items()}
    return Admission(admitted, refused, driver["fingerprint"], tools, undecided)


def _stop_http_server(dask_worker: Any) -> bool:
    """On a worker (Client.run hands it the worker): close its HTTP server."""
    server = getattr(dask_worker, "http_server", None)
    if server is not None:
        server.stop()
    return True


class ClusterSession:
    """A connection to a Dask scheduler (`address`), or a LocalCluster of `workers` processes."""

    def __init__(self, address: str | None = None, workers: int | None = None, *, security: Any = None,
                 insecure: bool = False, wait_s: float = 30.0, echo: Callable[[str], None] | None = None) -> None:
        from core.cluster.target import ClusterTarget, local_security

        if (address is None) == (workers is None):
            raise UserError("give either --cluster ADDRESS or --workers N")
        target = ClusterTarget(address=address, workers=workers, insecure=insecure)
        target.check()  # an address without TLS needs `insecure` (core.cluster.target)
        import dask
        from distributed import Client

        _quiet_logs()

        self.address = address or "a local cluster"
        self.echo = echo or (lambda line: print(shown(line), file=sys.stderr))
        self._local: Any = None
        self.status = ClusterStatus()
        self._last_status = 0.0
        self.dispatcher: Any = None  # the latest core.cluster.dispatch.Dispatcher (for progress displays)
        self._instance_json: dict[str, tuple[Instance, str]] = {}
        self._progress: Any = None  # a core.cluster.progress.ProgressWriter when serving a run
        self._progress_at = 0.0
        self.round_trip_s = ROUND_TRIP_S
        try:
            if workers is not None:
                from distributed import LocalCluster

                # The scheduler of a LocalCluster lives in this process, beside the driver decoding results:
                # every task is handed to a worker at once (no queue on the scheduler, worker-saturation
                # inf), so a worker that finishes a chunk starts its next one without waiting on this
                # process's busy GIL. Every port speaks TLS with a key made for this session (another local
                # user who connects cannot show its certificate), and no HTTP route is served.
                with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
                                      "distributed.scheduler.worker-saturation": float("inf"),
                                      "distributed.scheduler.http.routes": [], "distributed.worker.http.routes": [],
                                      **NO_PROFILER}):
                    self._local = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                               host="127.0.0.1", dashboard_address=None, security=local_security(),
                                               silence_logs=logging.CRITICAL)
                self.client = Client(self._local)
                self._close_http_servers()
            else:
                if security is None and address is not None and address.startswith(SECURE_SCHEMES):
                    security = target.security()
                self.client = Client(address, timeout=f"{wait_s}s", security=security)
            self.client.wait_for_workers(1, timeout=wait_s)
        except (OSError, TimeoutError) as exc:
            self.close()
            raise UserError(f"cannot reach the Dask scheduler at {self.address} "
                            f"({type(exc).__name__}: {' '.join(str(exc).split())[:200]})") from None
        self.allowed_failures = ALLOWED_FAILURES
        if self._local is None:
            try:
                self.allowed_failures = int(self.client.run_on_scheduler(
                    dask.config.get, "distributed.scheduler.allowed-failures"))
            except Exception:
                pass
        self.admission = self._admit()
        self.round_trip_s = self._round_trip()

    def _close_http_servers(self) -> None:
        """A LocalCluster's scheduler and workers start plain-HTTP servers (Dask's dashboard routes; given none
        here) on 127.0.0.1 whatever their comms speak: closed, so that nothing of the session listens
        without TLS."""
        scheduler = self._local.scheduler
        if getattr(scheduler, "http_server", None) is not None:
            self._local.loop.add_callback(scheduler.http_server.stop)
        self.client.run(_stop_http_server)

    def _round_trip(self) -> float:
        """A task's round trip to this cluster (the median of a few no-op tasks, one after another): what a
        check must cost before it is worth sending (core.cluster.routing)."""
        from core.cluster import remote

        times = []
        for _ in range(5):
            start = time.perf_counter()
            try:
                self.client.submit(remote.noop_chunk, [], pure=False, **self._restrict()).result(timeout=30)
            except Exception:
                return ROUND_TRIP_S
            times.append(time.perf_counter() - start)
        return max(ROUND_TRIP_S, sorted(times)[len(times) // 2])

    # -- admission ---------------------------------------------------------------------------------
    def _admit(self) -> Admission:
        from core.cluster import remote

        raw = self.client.run(remote.probe, on_error="return")
        infos = {a: (i if isinstance(i, dict) else {"error": f"cannot run Sembench ({type(i).__name__}: {i})"})
                 for a, i in raw.items()}
        admission = admit(infos, remote.probe())
        for address, why in sorted(admission.refused.items()):
            self.echo(f"refused worker {address}: {why}")
        return admission

    def require(self, family: Family) -> None:
        """The family's tools must be on the admitted workers (the driver need not have them)."""
        for tool in family.requires:
            versions = self.admission.undecided.get(tool.name)
            if versions:
                where = "; ".join(f"{v} on {', '.join(a)}" for v, a in sorted(versions.items()))
                raise UserError(f"the workers disagree on {tool.name}'s version ({where}) and this machine has no "
                                f"{tool.name} to decide which is right: install it here (Debian package "
                                f"{tool.package}) or give every worker the same one")
        missing = [t for t in family.requires if self.admission.tools.get(t.name) is None]
        if missing:
            tool = missing[0]
            raise UserError(f"the cluster's workers do not have {tool.executable} (Debian package "
                            f"{tool.package}), which family '{family.id}' needs")

    def family_tools(self, family: Family) -> dict[str, str | None]:
        return {t.name: self.admission.tools.get(t.name) for t in family.requires}

    # -- chunks ------------------------------------------------------------------------------------
    @staticmethod
    def chunk_size(family: Family) -> int:
        from core.runner.verifying import overrides

        if not family.requires and not overrides(family, "verify_many"):
            return CHEAP_CHUNK
        return BATCH_CHUNK if overrides(family, "verify_many") or overrides(family, "check_many") else TOOL_CHUNK

    def spread_chunk(self, family: Family, answers: int) -> int:
        """Answers per task when `answers` are known at once: the family's chunk, cut so that every admitted
        worker gets a part (six specs answers in one chunk of 8 ran on one of two workers, the other idle)."""
        workers = max(1, len(self.admission.admitted))
        return max(1, min(self.chunk_size(family), -(-answers // workers)))

    def submit(self, family: Family, items: Sequence[tuple[Instance, str]]) -> Any:
        from core.cluster import remote

        # each distinct instance once per chunk (k samples of one instance, or answers cycling over a few),
        # as JSON text made once per session (a worker validates each text once: remote._instance)
        instances: dict[str, str] = {}
        for inst, _ in items:
            if inst.id not in instances:
                data = self._instance_json.get(inst.id)
                if data is None or data[0] is not inst:
                    data = self._instance_json[inst.id] = (inst, inst.model_dump_json())
                instances[inst.id] = data[1]
        # one bytes object: Dask walks a task's arguments looking for futures in them (~20 µs per answer of
        # a chunk of 2,000 on this driver), not into bytes
        from core.completeness import wanted

        # the driver's --completeness goes with the chunk: a remote worker's environment does not say it
        payload = pickle.dumps({"instances": instances, "items": [(inst.id, response) for inst, response in items],
                                "completeness": wanted()}, protocol=pickle.HIGHEST_PROTOCOL)
        return self.client.submit(remote.check_chunk, family.id, self._expected(family), payload, pure=False,
                                  retries=RETRIES, **self._restrict())

    def submit_part(self, family: Family, part: Any) -> Any:
        """One part of an answer's check (a mutant of specs' completeness) as a task of its own."""
        from core.cluster import remote

        return self.client.submit(remote.run_part, family.id, self._expected(family), part, pure=False, retries=RETRIES,
                                  **self._restrict())

    def _expected(self, family: Family) -> dict[str, Any]:
        from core.cluster.remote import family_fingerprint

        return {"fingerprint": self.admission.fingerprint, "tools": self.admission.tools,
                "family": family_fingerprint(family.id)}

    def _restrict(self) -> dict[str, Any]:
        # Restricted to the admitted workers only when some were refused: a restriction names addresses,
        # and a worker its nanny restarts comes back at a new one (its tasks would wait for ever). Every
        # task also checks its worker against what was admitted (remote._admitted).
        return {"workers": self.admission.admitted, "allow_other_workers": False} if self.admission.refused else {}

    def alive(self) -> bool:
        return self.client.status == "running"

    def poll(self) -> None:
        """Ask the scheduler which tasks each worker has (from the watcher thread, never from the run's
        event loop: a call to a scheduler that just died waits, and is bounded here)."""
        now = time.monotonic()
        if now - self._last_status < 0.5 or not self.alive():
            return
        self._last_status = now
        try:
            processing = self.client.sync(self.client.scheduler.processing, workers=None, callback_timeout=2)
        except Exception:  # a status that cannot be read is only a stale progress line
            return
        self._processing = {k for keys in processing.values() for k in keys}
        self.status.workers = len(processing)

    def refresh(self, pending: dict[str, int], answers_done: int, tasks_done: int) -> ClusterStatus:
        """Counts for the progress displays (`pending`: key of each task in flight -> its answers), from
        the last poll: no call to the scheduler."""
        processing = getattr(self, "_processing", set())
        self.status.done = tasks_done
        self.status.answers = answers_done
        self.status.running = sum(1 for key in pending if key in processing)
        self.status.queued = len(pending) - self.status.running
        if not self.alive():
            self.status.workers = 0
        return self.status

    def record_progress(self, dispatcher: Any, final: bool = False) -> None:
        """The cluster's counts into the run's progress row (the TUI's Runs screen reads it), at most
        once a second, when this session serves a run (`progress_to`)."""
        if self._progress is None:
            return
        now = time.monotonic()
        if not final and now - self._progress_at < PROGRESS_EVERY_S:
            return
        self._progress_at = now
        self._progress.write(dispatcher.status())

    def progress_to(self, db: Any, run_id: str) -> None:
        from core.cluster.progress import ProgressWriter

        self._progress = ProgressWriter(db, run_id)

    def close(self) -> None:
        if getattr(self, "_progress", None) is not None:
            self._progress.close()
        client = getattr(self, "client", None)
        if client is not None:
            try:
                client.close(timeout=5)
            except Exception:
                pass
        if self._local is not None:
            try:
                self._local.close(timeout=10)
            except Exception:
                pass
            self._local = None

    def __enter__(self) -> ClusterSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
