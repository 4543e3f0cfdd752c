"""What a run asks for, what it has done so far, and who watches it."""

from __future__ import annotations

import datetime as _dt
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.attempts import AttemptRecord
from core.errors import UserError
from core.limits import DEFAULT_BUDGET_S, MAX_BUDGET_S, MAX_CONCURRENCY, MAX_LIMIT, MAX_SAMPLES
from core.models.base import SamplingParams


class RunConfig(BaseModel):
    """What a run asks for. Everything but snapshot/solver/samples is stored as the run's options."""

    model_config = ConfigDict(defer_build=True)

    snapshot: str
    solver: str
    samples: int = Field(default=1, ge=1, le=MAX_SAMPLES)
    concurrency: int | None = Field(default=None, ge=1, le=MAX_CONCURRENCY)
    limit: int | None = Field(default=None, ge=0, le=MAX_LIMIT)
    style: str | None = None
    budget_s: float = Field(default=DEFAULT_BUDGET_S, gt=0, le=MAX_BUDGET_S, allow_inf_nan=False)
    params: SamplingParams = Field(default_factory=SamplingParams)
    cache: bool = True
    ids: list[str] | None = None  # only these instances of the snapshot (the workbench's marked rows)
    completeness: bool = True  # the costly measure beyond the verdict (specs' CR; core.completeness)

    def options(self) -> dict[str, Any]:
        # Never the endpoint or its key: those come from the environment at run time (and a secret typed
        # into an option, a stop sequence say, is redacted like everything else that is stored).
        from core.models.config import known_secrets
        from core.models.secrets import scrub

        options = {
            "concurrency": self.concurrency, "limit": self.limit, "style": self.style, "budget_s": self.budget_s,
            "params": self.params.model_dump(exclude_none=True), "cache": self.cache,
        }
        if self.ids is not None:  # kept so that a resume runs the same subset
            options["ids"] = list(self.ids)
        if not self.completeness:  # kept so that a resume checks the rest the same way
            options["completeness"] = False
        return scrub(options, known_secrets())


@dataclass
class RunStats:
    """Counters for progress displays; `done` includes attempts recorded before this session."""

    run_id: str
    total: int
    done: int = 0
    correct: int = 0
    errors: int = 0
    session: int = 0  # attempts completed in this session (for the rate)
    cached: int = 0
    started: float = field(default_factory=time.perf_counter)
    last_error: str | None = None
    client_processes: int = 0  # processes that made this session's requests (core.runner.clients); 0: this one

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.done if self.done else None

    @property
    def rate(self) -> float:
        elapsed = time.perf_counter() - self.started
        return self.session / elapsed if elapsed > 0 else 0.0

    def add(self, record: AttemptRecord) -> None:
        self.done += 1
        self.session += 1
        self.correct += bool(record.correct)
        self.cached += bool(record.cached)
        if record.error is not None:
            self.errors += 1
            self.last_error = record.error


class Observer(Protocol):
    """A run's progress, told as attempts are counted. An attempt a client process made (core.runner.clients:
    large model runs from the CLI) is told as a `clients.Answered`, with only the fields RunStats reads."""

    def start(self, stats: RunStats) -> None: ...
    def attempt(self, record: AttemptRecord, stats: RunStats) -> None: ...
    def finish(self, stats: RunStats) -> None: ...


class NullObserver:
    def start(self, stats: RunStats) -> None: ...
    def attempt(self, record: AttemptRecord, stats: RunStats) -> None: ...
    def finish(self, stats: RunStats) -> None: ...


@dataclass
class RunOutcome:
    run_id: str
    status: str  # finished | interrupted
    stats: RunStats


def new_run_id() -> str:
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%d-%H%M%S")
    return f"run-{stamp}-{secrets.token_hex(2)}"


def config_of(run: dict[str, Any]) -> RunConfig:
    opts = run["options"]
    if "session" in opts:  # a person answers it: only the workbench can go on with it
        raise UserError(f"run '{run['id']}' is a human session and cannot be resumed by `sembench run`; "
                        "resume it in the workbench (Runs screen: R)")
    recorder = opts.get("recorded_by")
    if recorder:  # e.g. specs-repair: its samples are repair rounds, which `run` cannot continue
        raise UserError(f"run '{run['id']}' was recorded by `sembench {recorder}` and cannot be resumed by "
                        f"`sembench run` (start `{recorder}` again)")
    try:
        return RunConfig(
            snapshot=run["snapshot"], solver=run["solver"], samples=run["samples"],
            concurrency=opts.get("concurrency"), limit=opts.get("limit"), style=opts.get("style"),
            budget_s=opts.get("budget_s", DEFAULT_BUDGET_S), params=SamplingParams(**opts.get("params", {})),
            cache=opts.get("cache", True), ids=opts.get("ids"), completeness=opts.get("completeness", True) is not False,
        )
    except ValidationError as exc:  # a run recorded before today's bounds, or an edited database
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "options"
        raise UserError(f"run '{run['id']}' cannot be resumed: its recorded {where} is out of range "
                        f"({err['msg']})") from None


def resume_command(db_path: Path, run_id: str, retry: str | None = None) -> str:
    """The command that resumes a run, with --db when the database is not the default one."""
    from core.paths import default_log_db

    db_flag = "" if Path(db_path) == default_log_db() else f"--db {db_path} "
    retry_flag = {None: "", "transient": " --retry-errors", "all": " --retry-errors=all"}[retry]
    return f"sembench {db_flag}run --resume {run_id}{retry_flag}"
