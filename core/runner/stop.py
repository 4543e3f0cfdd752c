"""When a run stops early: every request failing the same way, or the endpoint gone."""

from __future__ import annotations

from dataclasses import dataclass

from core.attempts import AttemptRecord

# Errors that say nothing about the model (the request never got an answer): `--retry-errors` redoes
# them on resume. `--retry-errors=all` redoes every recorded error.
TRANSIENT_ERRORS = frozenset({"connection", "timeout", "http_429", "http_5xx", "cancelled", "auth"})
RETRY_MODES = ("transient", "all")
# A server that cannot be reached or refuses the key: ABORT_AFTER of these in a row stop a run,
# whenever they happen (a server dying mid-run), instead of recording thousands of identical errors.
UNREACHABLE_ERRORS = frozenset({"connection", "timeout", "auth"})
# Mistakes in the set-up that fail every request alike (a wrong model name: 404; a URL that is not a
# model API: malformed replies): a session whose first ABORT_AFTER attempts all fail with the same one
# stops too.
PERSISTENT_ERRORS = frozenset({"http_4xx", "auth", "malformed"})
ABORT_AFTER = 5


class RunAborted(Exception):
    """A session stopped early because every request fails the same way; `retry` is the --retry-errors
    mode that redoes those attempts once the cause is fixed."""

    def __init__(self, reason: str, retry: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry


@dataclass
class StopRule:
    """Decides, one recorded attempt at a time, whether going on can only repeat the same failure."""

    after: int = ABORT_AFTER
    in_a_row: int = 0  # unreachable errors since the last attempt that got any answer
    first_kind: str | None = None  # the persistent error kind every attempt so far failed with
    first_count: int = 0
    mixed: bool = False  # an attempt succeeded or failed otherwise: the first-N rule is off

    def check(self, record: AttemptRecord) -> RunAborted | None:
        kind = record.error_kind if record.error is not None else None
        self.in_a_row = self.in_a_row + 1 if kind in UNREACHABLE_ERRORS else 0
        if self.in_a_row >= self.after:
            what = "rejects every request" if kind == "auth" else "is not answering"
            return RunAborted(f"the endpoint {what} ({record.error})", "transient")
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
