"""Long-lived helper processes: a JVM compile service, a GHCi session, kept warm across requests.

The protocol is one JSON object per line each way. A helper is started on first use, restarted when
it has died, and every request is bounded: a request that does not answer in time kills the helper's
whole process group (the next request starts a fresh one) and raises HelperTimeout. One request at a
time per helper (a lock); `HelperPool` keeps several for concurrent verification.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from core.tools import sandbox
from core.tools.process import _remove_tree, command, kill_group, private_directory

_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sembench-helper-spawner")


class HelperError(RuntimeError):
    """The helper died or answered something that is not a JSON object."""


class HelperTimeout(HelperError):
    """The helper did not answer a request in time; it was killed and will be restarted."""


class Helper:
    """One long-lived process. `argv` is started in `workdir` (a private temporary directory by default),
    in its own session; `ready` (optional) is a line the helper prints once it can take requests.
    `confine` and `reads` as for a Tool (core.tools.sandbox); it dies with sembench (kill -9 included)."""

    def __init__(self, argv: Sequence[str], *, workdir: Path | None = None, memory_mb: int | None = None,
                 start_timeout_s: float = 60.0, ready: str | None = None,
                 env: dict[str, str] | None = None, on_start: Callable[[Helper], None] | None = None,
                 confine: sandbox.Confine | None = None, reads: Sequence[str] = ()) -> None:
        self.argv = list(argv)
        self.workdir = workdir
        self.memory_mb = memory_mb
        self.start_timeout_s = start_timeout_s
        self.ready = ready
        self.env = env
        self.on_start = on_start
        self.confine = confine
        self.reads = list(reads)
        self.starts = 0  # how many times the process was (re)started
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._lock = threading.Lock()
        self._tmp: Path | None = None
        self.stderr_tail: list[str] = []

    # -- life cycle ------------------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _start(self) -> None:
        level = sandbox.mode(self.confine)
        if self._tmp is None:
            self._tmp = private_directory("sembench-helper-")
        cwd = self.workdir or self._tmp / "work"
        self._lines = queue.Queue()
        env = {**(self.env or {}), **({"TMPDIR": str(self._tmp / "tmp")} if level is None else {})}
        full = command(self.argv, self._tmp, cwd, self.confine, level, self.memory_mb, None,
                       writable=[self.workdir] if self.workdir is not None else [], reads=self.reads, env=env)
        # Started from a thread that lives as long as the process: PR_SET_PDEATHSIG (which bwrap's
        # --die-with-parent uses too) fires when the *thread* that started a process ends, and a helper
        # outlives the worker thread of its first request.
        try:
            self._proc = _SPAWNER.submit(
                subprocess.Popen, full.argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True,
                env=full.env if full.replace_env else {**os.environ, **full.env}, pass_fds=full.pass_fds,
            ).result()
        finally:
            full.close()
        self.starts += 1
        proc = self._proc
        threading.Thread(target=self._pump, args=(proc, self._lines), daemon=True).start()
        threading.Thread(target=self._drain_stderr, args=(proc,), daemon=True).start()
        if self.ready is not None:
            deadline = time.monotonic() + self.start_timeout_s
            while True:
                line = self._next_line(deadline)
                if line.strip() == self.ready:
                    break
        if self.on_start is not None:
            self.on_start(self)

    @staticmethod
    def _pump(proc: subprocess.Popen[bytes], lines: queue.Queue[bytes | None]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)  # end of output: the process is gone

    def _drain_stderr(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            self.stderr_tail = [*self.stderr_tail[-19:], line.decode("utf-8", "replace").rstrip()]

    def _next_line(self, deadline: float) -> str:
        remaining = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=max(0.0, remaining))
        except queue.Empty:
            self.stop()
            raise HelperTimeout(f"{self.argv[0]} did not answer within the time limit") from None
        if line is None:
            self.stop()
            tail = " | ".join(self.stderr_tail[-3:])
            raise HelperError(f"{self.argv[0]} exited" + (f": {tail}" if tail else ""))
        return line.decode("utf-8", "replace")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            kill_group(proc)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass

    def close(self) -> None:
        self.stop()
        if self._tmp is not None:
            _remove_tree(self._tmp)
            self._tmp = None

    # -- requests --------------------------------------------------------------------------------
    def request(self, payload: dict[str, Any], timeout_s: float = 30.0) -> dict[str, Any]:
        """Send one JSON request and wait (at most timeout_s) for its one-line JSON answer. A dead helper
        is restarted first; one that dies mid-request is restarted and asked once more."""
        with self._lock:
            for attempt in range(2):
                if not self.alive:
                    self._start()
                assert self._proc is not None and self._proc.stdin is not None
                deadline = time.monotonic() + timeout_s
                try:
                    self._proc.stdin.write((json.dumps(payload) + "\n").encode("utf-8", "surrogatepass"))
                    self._proc.stdin.flush()
                    line = self._next_line(deadline)
                except HelperTimeout:
                    raise
                except (BrokenPipeError, HelperError, OSError):
                    self.stop()
                    if attempt == 1:
                        raise HelperError(f"{self.argv[0]} keeps dying") from None
                    continue
                try:
                    answer = json.loads(line)
                except json.JSONDecodeError:
                    self.stop()
                    raise HelperError(f"{self.argv[0]} answered something that is not JSON: {line[:200]!r}") from None
                if not isinstance(answer, dict):
                    raise HelperError(f"{self.argv[0]} answered a JSON {type(answer).__name__}, not an object")
                return answer
        raise HelperError("unreachable")  # pragma: no cover

    def __enter__(self) -> Helper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class HelperPool:
    """Several helpers of one kind; a request takes whichever is free."""

    def __init__(self, factory: Callable[[], Helper], size: int) -> None:
        self._factory = factory
        self._free: queue.Queue[Helper] = queue.Queue()
        self._all: list[Helper] = []
        self._size = max(1, size)
        self._lock = threading.Lock()

    def _take(self) -> Helper:
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            if len(self._all) < self._size:
                helper = self._factory()
                self._all.append(helper)
                return helper
        return self._free.get()

    def request(self, payload: dict[str, Any], timeout_s: float = 30.0) -> dict[str, Any]:
        helper = self._take()
        try:
            return helper.request(payload, timeout_s)
        finally:
            self._free.put(helper)

    def close(self) -> None:
        for helper in self._all:
            helper.close()
