"""A large model run's requests from several client processes, with the run's own process the one writer.

Why: a model run's event loop spends ~0.9 ms of CPU per request (the HTTP exchange, the reply's models,
extraction, the check, the stored row), spread thin over many small steps. At hundreds of requests in
flight against a fast server one loop is then busy all the time, and the run gets ~0.82 of the ideal
rate where a plain asyncio client gets ~0.97 (docs/performance.md). Several loops, one per
process, share that CPU between the cores.

How: once the run is planned, the run's process forks CLIENTS children (`fork_clients`). Each takes the
instances whose ordinal is its number modulo CLIENTS (all samples of an instance go to one client, which
renders that instance's prompt once), a share of the run's concurrency and of each
replica's limit, and runs the usual per-attempt path on its own event loop: request, extraction and
check (`execute.one_attempt`), and the stored row (`AttemptRecord.columns`). It sends each attempt's
row and the four fields the run's counters read (correct, cached, error, error kind) back over a
socket. The run's process (`serve_client`) hands every row to its writer and counts it once its transaction
has committed, exactly as for its own requests: what is recorded and when an attempt counts do not
change. A failed attempt's client waits until the run's process has counted it (so the stop rule has
judged it before anything more is sent to a failing endpoint). A stopped run (the stop rule, Ctrl-C,
an error of the environment) kills the clients: their requests in flight are not recorded, as a
cancelled request is not, and a resume asks them again.

Forked after the imports and the plan, a client starts in milliseconds with everything loaded, where
a new interpreter would pay the whole start-up again. Forking is safe here because the child never
touches what it inherits beyond plain Python objects: no SQLite (a connection, or even a second one
to the same file, must not cross a fork), no inherited event loop or thread. Hence the conditions in
`client_count`: a model solver whose replies are not cached (the cache is in the log database), a
family without external tools (whose checks already run in the tools' processes and use a tool cache
in SQLite), no cluster, and a caller that runs this one run and exits (the CLI; never the TUI, whose
threads a fork would copy half-way). A client exits when its socket closes, so a run killed with
SIGKILL leaves none behind.

Linux only (`fork_is_safe`): on macOS a forked child may crash in a system framework its parent used.

SEMBENCH_CLIENT_PROCESSES=N forces N clients whenever the conditions allow (0: never; tests use it on
small runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import struct
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from itertools import count
from typing import Any

from core.errors import EnvironmentFault
from core.family import Family
from core.instance import Instance
from core.runner.local import cores
from core.runner.stop import RunAborted
from core.solvers import Solver, is_model_spec

# A run forks clients only when it has this much in flight and this many attempts: below, one loop is
# not the bound (a request costs ~0.9 ms, so 64 in flight saturate a loop only against a server that
# answers in ~60 ms), and the run is too short for the split to matter.
CLIENT_MIN_CONCURRENCY = 64
CLIENT_MIN_ATTEMPTS = 512
MAX_CLIENTS = 8
# A client's child process exits with this code when the run's process has gone (its socket closed).
EXIT_ORPHANED = 3
REAP_WAIT_S = 1.0
_HEADER = struct.Struct("!I")


@dataclass(slots=True)
class Answered:
    """What the run's process learns of an attempt made in a client: what its counters and its stop rule
    read (RunStats.add, StopRule.check), and the attempt's identity for messages."""

    instance_id: str
    sample: int
    correct: Any
    cached: bool
    error: str | None
    error_kind: str | None


@dataclass
class ClientPlan:
    """How a run's requests are split: `count` processes; `solver_for(limit)` builds, in a client, the
    run's solver with `limit` requests in flight per replica (a share of `replica_limit`)."""

    count: int
    solver_for: Callable[[int], Solver]
    replica_limit: int


def fork_is_safe() -> bool:
    """Linux only. macOS has fork, but a child that uses a system framework the parent already touched may
    crash (CPython's multiprocessing stopped forking there for that reason), and a run's parent has: the
    proxy lookup (urllib's proxy_bypass) asks the system's settings through CoreFoundation."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def client_count(solver: Solver, family: Family, attempts: int, concurrency: int, *, cluster: Any = None) -> int:
    """How many client processes a run forks (0: it makes its requests itself); see the module's text."""
    forced = os.environ.get("SEMBENCH_CLIENT_PROCESSES")
    if forced == "0" or not fork_is_safe() or cluster is not None or family.requires:
        return 0
    if not is_model_spec(solver.spec):
        return 0  # a local solver's run (core.runner.local), decided without importing the model code
    from core.models.solver import ModelSolver, is_deterministic

    if not isinstance(solver, ModelSolver) or getattr(solver.provider, "endpoint", None) is None:
        return 0
    if solver.cache is not None and is_deterministic(solver.kind, solver.params):
        return 0  # its replies go to the response cache, in the log database
    if forced and forced.isdigit():
        return min(int(forced), MAX_CLIENTS, max(1, concurrency))
    if concurrency < CLIENT_MIN_CONCURRENCY or attempts < CLIENT_MIN_ATTEMPTS:
        return 0
    n = min(cores(), MAX_CLIENTS, concurrency // (CLIENT_MIN_CONCURRENCY // 2))
    return n if n >= 2 else 0


def share(total: int, parts: int, k: int) -> int:
    """Part k of `total` cut into `parts` nearly equal whole parts (they add up to `total`)."""
    return total // parts + (1 if k < total % parts else 0)


def shards(items: list[tuple[Instance, int]], parts: int) -> list[list[tuple[Instance, int]]]:
    """The (instance, sample) pairs of each client: client k has those of the instances whose ordinal is
    k modulo parts, in the run's order."""
    ordinal: dict[str, int] = {}
    out: list[list[tuple[Instance, int]]] = [[] for _ in range(parts)]
    for pair in items:
        out[ordinal.setdefault(pair[0].id, len(ordinal)) % parts].append(pair)
    return out


# -- frames: a 4-byte length, then a pickled list ---------------------------------------------------------
def _frame(entries: list[Any]) -> bytes:
    import pickle  # not at the top: a run without clients never needs it (start-up)

    data = pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


async def _read_frame(reader: asyncio.StreamReader) -> list[Any]:
    import pickle

    (size,) = _HEADER.unpack(await reader.readexactly(_HEADER.size))
    return pickle.loads(await reader.readexactly(size))  # noqa: S301 - our own child process, over a socketpair


# -- the run's process ------------------------------------------------------------------------------------
@dataclass
class Client:
    number: int
    pid: int
    sock: socket.socket
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    exited: bool = False

    def acknowledge(self, seq: int, committed: asyncio.Future[None]) -> None:
        """A failed attempt's client may go on once the attempt is counted (see the module's text)."""
        if self.writer is not None and not committed.cancelled() and committed.exception() is None:
            with contextlib.suppress(ConnectionError, RuntimeError):
                self.writer.write(_frame([seq]))

    def status(self) -> str:
        """How the process ended, for messages (it is reaped here; one that has not ended within
        REAP_WAIT_S, its socket closed all the same, is killed first)."""
        try:
            for _ in range(int(REAP_WAIT_S / 0.01)):
                pid, code = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    break
                time.sleep(0.01)
            else:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                pid, code = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return "already reaped"
        self.exited = True
        if os.WIFSIGNALED(code):
            return f"killed by signal {os.WTERMSIG(code)}"
        return f"exit code {os.waitstatus_to_exitcode(code)}"


def fork_clients(plan: ClientPlan, items: list[tuple[Instance, int]], concurrency: int,
                 child: Callable[[int, socket.socket, list[tuple[Instance, int]], int, Solver], Any],
                 new_loop: Callable[[], asyncio.AbstractEventLoop] | None = None) -> list[Client]:
    """Fork the clients; each runs `child(number, sock, its pairs, its workers, its solver)` on an event loop
    of `new_loop`'s (asyncio's default without it) and exits.
    Call before the run's process starts threads of its own (the writer, the progress bar)."""
    for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
        with contextlib.suppress(Exception):
            stream.flush()
    clients: list[Client] = []
    # cut here, once: in a client the cut would touch every pair, copying their pages from this process
    split = shards(items, plan.count)
    for k in range(plan.count):
        try:
            ours, theirs = socket.socketpair()
        except OSError:  # no descriptor to spare: the run makes its requests itself
            end_clients(clients)
            return []
        try:
            pid = os.fork()
        except OSError:  # no process to spare: likewise
            ours.close()
            theirs.close()
            end_clients(clients)
            return []
        if pid == 0:  # the client
            code = 70
            try:
                ours.close()
                for other in clients:
                    other.sock.close()
                code = _client_process(plan, k, theirs, split[k], concurrency, child, new_loop)
            finally:
                os._exit(code)
        theirs.close()
        clients.append(Client(k, pid, ours))
    return clients


def _client_process(plan: ClientPlan, k: int, sock: socket.socket, mine: list[tuple[Instance, int]],
                    concurrency: int,
                    child: Callable[[int, socket.socket, list[tuple[Instance, int]], int, Solver], Any],
                    new_loop: Callable[[], asyncio.AbstractEventLoop] | None) -> int:
    """In the forked child: a fresh event loop of its own, the default signal handlers (Ctrl-C reaches
    the run's process, which stops the clients), then the client's share of the run."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # The parent's loop was running in this thread when it forked; it is never used here (nor closed:
    # its epoll set is shared with the parent's).
    asyncio.events._set_running_loop(None)
    try:
        solver = plan.solver_for(max(1, share(plan.replica_limit, plan.count, k)))
        workers = max(1, min(share(concurrency, plan.count, k), len(mine)))
        with asyncio.Runner(loop_factory=new_loop) as runner:
            runner.run(child(k, sock, mine, workers, solver))
    except BaseException as exc:  # said to the run's process, which stops the run with it
        with contextlib.suppress(OSError):
            sock.sendall(_frame([("x", failure(exc))]))
        return 70
    return 0


async def serve_client(client: Client, accept: Callable[[Client, Answered, int, dict[str, Any]], None],
                       fault: Callable[[str, int, str], None]) -> None:
    """Read a client's attempts until it says it is done; each goes to `accept(client, attempt, seq, row)`.
    An error of the environment there stops the run (after `fault` has kept the attempt apart), as do a
    client's failure and its unexpected end (RunAborted: a plain resume redoes what was not recorded)."""
    client.reader, client.writer = await asyncio.open_unix_connection(sock=client.sock)
    while True:
        try:
            entries = await _read_frame(client.reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            raise RunAborted(f"client process {client.number} (pid {client.pid}) ended before its share of "
                             f"the run was done ({client.status()})", None) from None
        for entry in entries:
            kind = entry[0]
            if kind == "a":
                _kind, seq, instance_id, sample, correct, cached, error, error_kind, row = entry
                accept(client, Answered(instance_id, sample, correct, cached, error, error_kind), seq, row)
            elif kind == "f":
                _kind, instance_id, sample, message = entry
                fault(instance_id, sample, message)
                raise EnvironmentFault(message)
            elif kind == "x":
                raise RunAborted(f"client process {client.number} failed: {entry[1]}", None)
            elif kind == "d":
                return


def end_clients(clients: list[Client]) -> None:
    """End and reap every client: those done have exited, the others are killed (their requests in
    flight are not recorded)."""
    for client in clients:
        if not client.exited:
            with contextlib.suppress(ProcessLookupError):
                os.kill(client.pid, signal.SIGKILL)
            client.status()
        if client.writer is not None:
            client.writer.close()
        else:
            client.sock.close()


# -- a client's process -----------------------------------------------------------------------------------
class Outbox:
    """A client's side of the socket: attempts sent in batches (those finished in one turn of the loop
    share a frame), acknowledgements awaited by sequence number. The run's process gone, it exits."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.loop = asyncio.get_running_loop()
        self.pending: list[Any] = []
        self.waiting: dict[int, asyncio.Future[None]] = {}
        self.seq = count()
        self._scheduled = False

    def send(self, entry: tuple[Any, ...]) -> None:
        self.pending.append(entry)
        if not self._scheduled:
            self._scheduled = True
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        self._scheduled = False
        if self.pending:
            entries, self.pending = self.pending, []
            self.writer.write(_frame(entries))

    def attempt(self, instance_id: str, sample: int, record: Any, row: dict[str, Any]) -> asyncio.Future[None] | None:
        """Send an attempt; for a failed one, the future its acknowledgement resolves."""
        seq = next(self.seq)
        self.send(("a", seq, instance_id, sample, record.correct, bool(record.cached), record.error,
                   record.error_kind, row))
        if record.error is None:
            return None
        future = self.waiting[seq] = self.loop.create_future()
        return future

    async def listen(self) -> None:
        try:
            while True:
                for seq in await _read_frame(self.reader):
                    future = self.waiting.pop(seq, None)
                    if future is not None and not future.done():
                        future.set_result(None)
        except (asyncio.IncompleteReadError, ConnectionError):
            os._exit(EXIT_ORPHANED)  # the run's process is gone: nothing here can be recorded any more

    async def close(self, last: tuple[Any, ...] | None) -> None:
        if last is not None:
            self.send(last)
        self.flush()
        self.writer.close()  # what is buffered is written first
        with contextlib.suppress(ConnectionError):
            await self.writer.wait_closed()


def failure(exc: BaseException) -> str:
    """A client's unexpected failure, in one line with where it happened."""
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    place = f" at {where[0].filename}:{where[0].lineno}" if where else ""
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}{place}"
