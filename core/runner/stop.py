"""When a run stops early (the endpoint failing most requests, or every request failing the same way from
the start), and stopping promptly on SIGINT/SIGTERM in every phase of a run.

The endpoint rule looks at a sliding window of recent attempts, not at failures in a row: a server that
answers 60% of requests while the others stall and time out together (a burst of timeouts in a row) is
still serving and the run goes on, while a server that answers every request with 500 or 429 stops the
run after a few attempts instead of being asked (with retries) for every one of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import signal
import threading
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from core.attempts import AttemptRecord

# Errors that say nothing about the model (the request never got an answer): `--retry-errors` redoes
# them on resume. `--retry-errors=all` redoes every recorded error.
TRANSIENT_ERRORS = frozenset({"connection", "timeout", "http_429", "http_5xx", "cancelled", "auth"})
RETRY_MODES = ("transient", "all")
# Errors that say the endpoint is not serving (unreachable, refusing the key, overloaded or failing):
# when they dominate the recent attempts the run stops, instead of recording thousands of them.
UNREACHABLE_ERRORS = frozenset({"connection", "timeout", "auth", "http_429", "http_5xx"})
# Mistakes in the set-up that fail every request alike (a wrong model name: 404; a URL that is not a
# model API: malformed replies): a session whose first ABORT_AFTER attempts all fail with the same one
# stops too.
PERSISTENT_ERRORS = frozenset({"http_4xx", "auth", "malformed"})
ABORT_AFTER = 5  # attempts before either rule may stop a run
WINDOW = 20  # recent attempts the endpoint rule looks at
DOMINATE = 0.9  # the share of them that must have failed with UNREACHABLE_ERRORS


class RunAborted(Exception):
    """A session stopped early because the endpoint fails (nearly) every request, or a tool cannot run
    (an EnvironmentFault); `retry` is the --retry-errors mode that redoes those attempts once the cause is
    fixed (None: they were not recorded, a plain resume redoes them)."""

    def __init__(self, reason: str, retry: str | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry


@dataclass
class StopRule:
    """Decides, one recorded attempt at a time, whether going on can only repeat the same failure.

    - endpoint rule: of the last `window` attempts (at least `after` of them), `share` or more failed
      with an UNREACHABLE_ERRORS kind;
    - set-up rule: the first `after` attempts of the session all failed with one PERSISTENT_ERRORS kind.
    """

    after: int = ABORT_AFTER
    window: int = WINDOW
    share: float = DOMINATE
    recent: deque[str | None] = field(default_factory=deque)  # the error kind, when one of UNREACHABLE_ERRORS
    first_kind: str | None = None  # the persistent error kind every attempt so far failed with
    first_count: int = 0
    mixed: bool = False  # an attempt succeeded or failed otherwise: the first-N rule is off

    def check(self, record: AttemptRecord) -> RunAborted | None:
        kind = record.error_kind if record.error is not None else None
        self.recent.append(kind if kind in UNREACHABLE_ERRORS else None)
        while len(self.recent) > self.window:
            self.recent.popleft()
        failed = [k for k in self.recent if k is not None]
        seen = len(self.recent)
        if seen >= self.after and len(failed) >= math.ceil(self.share * seen):
            main = Counter(failed).most_common(1)[0][0]
            what = {"auth": "rejects every request", "http_429": "refuses nearly every request as rate-limited",
                    "http_5xx": "fails nearly every request"}.get(main, "is not answering")
            return RunAborted(f"the endpoint {what}: {len(failed)} of the last {seen} attempts failed "
                              f"({record.error})", "transient")
        if not self.mixed and kind in PERSISTENT_ERRORS and self.first_kind in (None, kind):
            self.first_kind = kind
            self.first_count += 1
            if self.first_count >= self.after:
                retry = "transient" if kind in TRANSIENT_ERRORS else "all"
                return RunAborted(f"the first {self.first_count} attempts all failed the same way ({record.error})",
                                  retry)
        else:
            self.mixed = True
        return None


# ---- interruption ----------------------------------------------------------------------------------
# Set by SIGINT/SIGTERM while a run is being prepared or executed. Long synchronous steps (loading a
# snapshot, planning, verifying an import) call `checkpoint()`, so a signal stops them at once instead of
# when they next yield to the event loop.
_STOP = threading.Event()


def stop_requested() -> bool:
    return _STOP.is_set()


def checkpoint() -> None:
    """Stop here if SIGINT/SIGTERM arrived: cancellation inside the run's task, KeyboardInterrupt elsewhere."""
    if not _STOP.is_set():
        return
    try:
        in_task = asyncio.current_task() is not None
    except RuntimeError:  # no running loop
        in_task = False
    if in_task:
        raise asyncio.CancelledError
    raise KeyboardInterrupt


@contextlib.contextmanager
def stop_on_signals(loop: asyncio.AbstractEventLoop | None = None, task: asyncio.Task[Any] | None = None
                    ) -> Iterator[None]:
    """While inside: SIGINT and SIGTERM set the stop flag (seen by `checkpoint`) and cancel `task` on
    `loop`; a second signal raises KeyboardInterrupt at once. Without a task (synchronous work), the first
    signal raises KeyboardInterrupt. The previous handlers are restored on the way out."""
    _STOP.clear()

    def on_signal(signum: int, _frame: Any) -> None:
        if _STOP.is_set() or task is None or loop is None:
            _STOP.set()
            raise KeyboardInterrupt
        _STOP.set()
        with contextlib.suppress(RuntimeError):  # the loop already closed
            loop.call_soon_threadsafe(task.cancel)

    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError, OSError):
                previous[sig] = signal.signal(sig, on_signal)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(sig, handler)
        _STOP.clear()
