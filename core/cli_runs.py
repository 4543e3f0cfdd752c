"""CLI verbs for batch work: run, runs, report, export, import-answers, models.

`core.cli` calls `register(cli)`. This module does not import `core.cli` at import time, so that
`core.cli` may import `sampling_options` / `sampling_params` from here for its `solve` verb.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from core.cluster.target import cluster_options
from core.errors import UserError
from core.limits import (
    DEFAULT_BUDGET_S,
    MAX_BUDGET_S,
    MAX_CONCURRENCY,
    MAX_LIMIT,
    MAX_SAMPLES,
    MAX_STOP,
    MAX_TEMPERATURE,
    MAX_TOKENS,
)
from core.terminal import echo

F = TypeVar("F", bound=Callable[..., Any])

FORMAT = click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
SCORING = click.option("--scoring", default=None, metavar="NAME",
                       help="Score with another of the family's scorings (cascade: `released`, the released "
                            "scorer exactly); default: the workbench's.")


# ---- bounded numbers ---------------------------------------------------------------------------------
class Finite(click.ParamType):
    """A float option that must be finite and within [lo, hi] (or (lo, hi] when `lo_open`): click's
    FloatRange lets nan through (every comparison with nan is false) and reads "inf" as a number."""

    name = "number"

    def __init__(self, lo: float, hi: float, lo_open: bool = False) -> None:
        self.lo, self.hi, self.lo_open = lo, hi, lo_open

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        low_ok = number > self.lo if self.lo_open else number >= self.lo
        if not (math.isfinite(number) and low_ok and number <= self.hi):
            bound = f"{'>' if self.lo_open else '>='} {self.lo:g} and <= {self.hi:g}"
            self.fail(f"{value} is not a finite number {bound}", param, ctx)
        return number


def bounded(lo: int, hi: int) -> click.IntRange:
    return click.IntRange(min=lo, max=hi)


BUDGET = Finite(0.0, MAX_BUDGET_S, lo_open=True)


def _allow_unsandboxed(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        from core.tools.sandbox import allow_unsandboxed

        allow_unsandboxed()
    return value


def unsandboxed_option(func: F) -> F:
    """--unsandboxed, on every verb that verifies (so may run programs built from answers or imported
    files): where bubblewrap cannot run, run them unconfined instead of refusing (docs/sandbox.md)."""
    return click.option("--unsandboxed", is_flag=True, expose_value=False, callback=_allow_unsandboxed,
                        help="Where bubblewrap cannot run (no user namespaces), run programs built from answers "
                             "or imported files unconfined instead of refusing them. Also SEMBENCH_UNSANDBOXED=1."
                        )(func)


def completeness_option(help_text: str) -> Callable[[F], F]:
    """--completeness {on,off}: whether the check adds the costly measure beyond the verdict (specs'
    completeness rate; core.completeness). Not given: on, or for a resumed run what the run was made with."""
    return click.option("--completeness", type=click.Choice(["on", "off"]), default=None, help=help_text)


# ---- sampling options (shared with `solve`) --------------------------------------------------------
def sampling_options(func: F) -> F:
    """--temperature --top-p --max-tokens --seed --stop --reasoning-effort --thinking-budget."""
    options = [
        click.option("--temperature", type=Finite(0.0, MAX_TEMPERATURE), default=None,
                     help="Sampling temperature (0 = cached)."),
        click.option("--top-p", "top_p", type=Finite(0.0, 1.0), default=None),
        click.option("--max-tokens", "max_tokens", type=bounded(1, MAX_TOKENS), default=None),
        click.option("--seed", "sample_seed", type=bounded(-(2**63), 2**63 - 1 - MAX_SAMPLES), default=None,
                     help="Sampling seed (sample k uses seed+k; seeded requests are cached)."),
        click.option("--stop", "stop", multiple=True, metavar="TEXT",
                     help=f"Stop sequence; repeat for several, at most {MAX_STOP} (sent as the API's stop / "
                          "stop_sequences)."),
        click.option("--reasoning-effort", "reasoning_effort", default=None, help="openai-style: low|medium|high."),
        click.option("--thinking-budget", "thinking_budget", type=bounded(1, MAX_TOKENS), default=None,
                     help="anthropic-style thinking budget in tokens."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


SAMPLING_KEYS = ("temperature", "top_p", "max_tokens", "sample_seed", "stop", "reasoning_effort",
                 "thinking_budget")


def sampling_params(**kwargs: Any) -> Any:
    """A SamplingParams from the options above (pass the click kwargs; unknown keys are ignored)."""
    from pydantic import ValidationError

    from core.models.base import SamplingParams

    values = {("seed" if k == "sample_seed" else k): kwargs.get(k) for k in SAMPLING_KEYS}
    values["stop"] = list(values["stop"]) if values["stop"] else None  # click gives () when not given
    try:
        return SamplingParams(**{k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        err = exc.errors()[0]
        raise UserError(f"--{str(err['loc'][0]).replace('_', '-')}: {err['msg']}") from None


# ---- helpers ---------------------------------------------------------------------------------------
def _workspace(ctx: click.Context) -> Any:
    from core.store import Workspace

    ws = Workspace((ctx.find_root().obj or {}).get("db"))
    # Closed with the command, not left to the garbage collector (which core.cli.main skips at exit):
    # the last connection's close checkpoints the WAL, so the log is one self-contained file again.
    ctx.call_on_close(ws.close)
    return ws


def _console() -> Any:
    from core.terminal import safe_console

    # Piped output gets a wide console: run ids and metric names must never be cut to "run-20…". Names and
    # texts from the log (solvers, instance features, errors quoted from replies) are escaped: core.terminal.
    return safe_console(soft_wrap=False, width=None if sys.stdout.isatty() else 200)


# ---- progress ----------------------------------------------------------------------------------------
class RunProgress:
    """A rich progress bar on stderr (counts, rate, errors, running accuracy); plain periodic lines
    when stderr is not a terminal (CI, pipes, logs)."""

    PLAIN_EVERY_S = 10.0

    def __init__(self, label: str, tty: bool | None = None, cluster: Any = None) -> None:
        self.label = label
        self.cluster = cluster  # a core.cluster session: its counts join the line
        self.db: Any = None  # with a cluster: the log database its progress row goes to (the TUI reads it)
        self.tty = sys.stderr.isatty() if tty is None else tty
        self._progress: Any = None
        self._task: Any = None
        self._last_line = 0.0
        self._last_tenth = -1

    def _fields(self, stats: Any) -> dict[str, str]:
        acc = stats.accuracy
        cluster = ""
        if self.cluster is not None and self.cluster.dispatcher is not None:
            cluster = self.cluster.dispatcher.status().line()
        return {"rate": f"{stats.rate:.1f}/s", "errors": str(stats.errors),
                "acc": "—" if acc is None else f"{acc:.1%}", "cluster": cluster}

    def start(self, stats: Any) -> None:
        if self.cluster is not None and self.db is not None and stats.run_id:
            self.cluster.progress_to(self.db, stats.run_id)
        clients = stats.client_processes
        if self.tty:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            from core.terminal import safe_console

            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"), TextColumn("errors {task.fields[errors]}"),
                TextColumn("acc {task.fields[acc]}"), TimeRemainingColumn(), TextColumn("{task.fields[cluster]}"),
                console=safe_console(stderr=True), transient=False,
            )
            self._progress.start()
            label = f"{self.label} ({clients} client processes)" if clients else self.label
            self._task = self._progress.add_task(label, total=stats.total, completed=stats.done,
                                                 **self._fields(stats))
        else:
            echo(f"{self.label}: {stats.done}/{stats.total} already done"
                       + (f"; requests from {clients} client processes" if clients else ""), err=True)
            self._last_line = time.monotonic()
            self._last_tenth = stats.done * 10 // max(1, stats.total)

    def attempt(self, record: Any, stats: Any) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=stats.done, **self._fields(stats))
            return
        tenth = stats.done * 10 // max(1, stats.total)
        now = time.monotonic()
        if tenth != self._last_tenth or now - self._last_line >= self.PLAIN_EVERY_S:
            self._last_tenth, self._last_line = tenth, now
            f = self._fields(stats)
            echo(f"{self.label}: {stats.done}/{stats.total} {f['rate']} errors {f['errors']} acc {f['acc']}"
                       + (f" cluster: {f['cluster']}" if f["cluster"] else ""), err=True)

    def finish(self, stats: Any) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=stats.done, **self._fields(stats))
            self._progress.stop()
            self._progress = None


# ---- run -----------------------------------------------------------------------------------------------
def _resume_config(store: Any, run_id: str, given: dict[str, Any]) -> Any:
    """The stored configuration of a run; flags given again must agree with it (they define the run)."""
    from core.runner import config_of, get_run

    config = config_of(get_run(store, run_id))
    for key, value in given.items():
        if key in ("concurrency", "cache") or value is None:  # how to ask, not what: may change
            continue
        stored = getattr(config, key)
        if key == "params":
            stored, value = stored.model_dump(exclude_none=True), value.model_dump(exclude_none=True)
            if not value:
                continue
        if stored != value:
            raise UserError(f"--resume {run_id}: {key} was {stored!r} for this run, not {value!r} (omit the flag)")
    changes = {key: given[key] for key in ("concurrency", "cache") if given.get(key) is not None}
    if changes:
        config = config.model_copy(update=changes)
    return config


def _cluster_worth_it(ws: Any, snapshot: str, cluster: Any) -> Any:
    """The cluster, unless the snapshot's family says its checks cost less than any task's round trip there
    (core.cluster.routing): then none is started or reached, and a line says why."""
    from core.cluster.routing import stays_here
    from core.family import get_family

    found = next((snap for snap, _ in ws.snapshots() if snap.name == snapshot), None)
    if found is None:
        return cluster  # the run says which snapshot is unknown
    here = stays_here(get_family(found.family))
    if here is None:
        return cluster
    echo(here.reason, err=True)
    return None


# Set by the console entry (core.cli.main), whose process ends with its command: a run may then freeze the
# heap it starts with (core.runner.execute.run_async, `freeze_heap`). A command invoked in-process (tests,
# a host program) leaves the collector as it is.
PROCESS = {"exits_after_command": False}


def _run_command(ctx: click.Context, snapshot: str | None, solver: str | None, samples: int | None,
                 concurrency: int | None, limit: int | None, style: str | None, budget: float | None,
                 resume: str | None, retry_errors: str | None, no_cache: bool, fmt: str, cluster: Any = None,
                 completeness: str | None = None, **sampling: Any) -> None:
    from core.completeness import parse, setting, wanted
    from core.runner import RunConfig, resume_command, run_sync

    params = sampling_params(**sampling)
    ws = _workspace(ctx)
    if resume:
        config = _resume_config(ws.log, resume, {
            "snapshot": snapshot, "solver": solver, "samples": samples, "limit": limit, "style": style,
            "budget_s": budget, "params": params, "concurrency": concurrency,
            "cache": False if no_cache else None, "completeness": parse(completeness),
        })
    else:
        if not snapshot or not solver:
            raise UserError("--snapshot and --solver are required (or --resume RUN)")
        if retry_errors:
            raise UserError("--retry-errors only applies with --resume RUN")
        config = RunConfig(snapshot=snapshot, solver=solver, samples=samples or 1, concurrency=concurrency,
                           limit=limit, style=style, budget_s=DEFAULT_BUDGET_S if budget is None else budget,
                           params=params, cache=not no_cache,
                           completeness=wanted() if completeness is None else completeness == "on")
    progress = RunProgress(f"{config.solver} on {config.snapshot}")
    if cluster is not None:  # a core.cluster.target.ClusterTarget
        cluster.check()
        cluster = _cluster_worth_it(ws, config.snapshot, cluster)
    with setting(config.completeness):
        if cluster is not None:
            from core.cluster.run import open_session

            with open_session(cluster) as session:
                progress.cluster, progress.db = session, ws.log.path
                outcome = run_sync(ws, config, resume=resume, retry_errors=retry_errors, observer=progress,
                                   cluster=session, freeze_heap=PROCESS["exits_after_command"])
        else:
            outcome = run_sync(ws, config, resume=resume, retry_errors=retry_errors, observer=progress,
                               freeze_heap=PROCESS["exits_after_command"],
                               client_processes=PROCESS["exits_after_command"])
    stats = outcome.stats
    summary = {"run": outcome.run_id, "status": outcome.status, "done": stats.done, "total": stats.total,
               "correct": stats.correct, "errors": stats.errors, "cached": stats.cached,
               "accuracy": stats.accuracy, "db": str(ws.log.path)}
    if stats.client_processes:  # a large model run's requests were made by forked processes (core.runner.clients)
        summary["client_processes"] = stats.client_processes
    if outcome.status == "interrupted" and not outcome.run_id:
        echo("interrupted before the first attempt; no attempt was recorded", err=True)
        ctx.exit(130)
    if outcome.status == "interrupted":
        echo(f"interrupted: {stats.done} of {stats.total} attempts recorded in {ws.log.path}; "
                   f"resume with: {resume_command(ws.log.path, outcome.run_id)}", err=True)
        if fmt == "json":
            echo(json.dumps(summary))
        ctx.exit(130)
    if fmt == "json":
        echo(json.dumps(summary))
        return
    acc = "—" if stats.accuracy is None else f"{stats.accuracy:.1%}"
    echo(f"{outcome.run_id}: {outcome.status}, {stats.done}/{stats.total} attempts, accuracy {acc}, "
               f"{stats.errors} errors, {stats.cached} cached  (sembench report {outcome.run_id})")


# ---- report ----------------------------------------------------------------------------------------------
def _report_command(ctx: click.Context, run_ids: tuple[str, ...], fmt: str, plot: bool, png: Path | None,
                    feature: str | None, scoring: str | None = None, completeness: str | None = None) -> None:
    from core.completeness import wanted
    from core.report import accuracy_series, compare, dumps, load_run_data, report_run

    ws = _workspace(ctx)
    datas = [load_run_data(ws, rid, scoring) for rid in dict.fromkeys(run_ids)]
    if (wanted() if completeness is None else completeness == "on") and _complete_runs(datas):
        # read again: verdicts were completed
        datas = [load_run_data(ws, data.run_id, scoring) for data in datas]
    if feature is not None:
        for data in datas:
            if feature not in data.family.features:
                raise UserError(f"unknown feature '{feature}' for '{data.family.id}' "
                                f"(known: {', '.join(data.family.features)})")
    report = report_run(datas[0]) if len(datas) == 1 else compare(datas)
    if fmt == "json":
        echo(dumps(report))
    else:
        from core.report_view import comparison, run_report

        _console().print(run_report(report) if len(datas) == 1 else comparison(report))
    if plot or png is not None:
        lines: dict[str, Any] = {}
        axis = "all"
        for data in datas:
            axis, series = accuracy_series(data, feature)
            lines[f"{data.run['solver']} {data.run['id']}"] = series
        if plot:
            from core.plot import terminal_plot

            # In JSON mode stdout is the report; the plot goes to stderr so both stay usable.
            stream = sys.stderr if fmt == "json" else sys.stdout
            echo(terminal_plot(lines, axis, color=stream.isatty()), err=fmt == "json")
        if png is not None:
            from core.plot import png_plot

            png_plot(lines, axis, png)
            echo(f"wrote {png}", err=True)


def _complete_runs(datas: list[Any]) -> int:
    """Completeness for the runs' verified answers recorded without it (a run made with `--completeness
    off`), stored before reporting; progress on stderr. Returns how many verdicts were completed."""
    from core.completing import complete_run, completes

    total = 0
    for data in datas:
        if not completes(data.family):
            continue

        def progress(done: int, of: int, run_id: str = data.run_id) -> None:
            click.echo(f"\rcompleteness of run {run_id}: {done}/{of} verified answers checked", err=True,
                       nl=done == of)

        total += complete_run(data, progress if sys.stderr.isatty() else None)
    return total


# ---- models ------------------------------------------------------------------------------------------
ENDPOINT_SETTINGS = (("base_url", "base URL"), ("api_key", "API key"), ("max_concurrency", "max concurrency"),
                     ("timeout_s", "read timeout"), ("connect_timeout_s", "connect timeout"),
                     ("request_deadline_s", "request deadline"), ("max_retries", "max retries"))


def how_to_configure(endpoints: dict[str, Any]) -> list[str]:
    """For each endpoint that is only a built-in default on another machine: that nothing contacts it, and
    how to configure it (the variables, or the config file's section)."""
    from core.models.config import API_KEY_ENV, BASE_URL_ENV
    from core.models.listing import may_ask
    from core.paths import default_config_path

    lines = []
    for kind, ep in endpoints.items():
        if may_ask(ep):
            continue
        key = API_KEY_ENV.get(kind)
        lines.append(f"{kind}: not configured, so never contacted unasked; set {key + ' or ' if key else ''}"
                     f"{BASE_URL_ENV[kind]} (a server of your own), or give [{kind}] base_url / api_key_env in "
                     f"{default_config_path(os.environ)}")
    return lines


def endpoint_rows(described: list[dict[str, Any]]) -> list[list[Any]]:
    """One row per (endpoint, setting): value, readable, and where it came from (env / config / default)."""
    rows = []
    for ep in described:
        for i, (name, label) in enumerate(ENDPOINT_SETTINGS):
            value = ep.get(name)
            shown = duration(value) if name.endswith("_s") and isinstance(value, int | float) else value
            source = ep.get("sources", {}).get(name, "default") if value != "not set" else None
            rows.append([ep["kind"] if i == 0 else "", label, shown, source])
    return rows


def duration(seconds: float) -> str:
    """600 -> "10 min", 45 -> "45 s", 5400 -> "1.5 h"."""
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7200:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"


# ---- export / import -----------------------------------------------------------------------------------
JSON_COLUMNS = ("prompt", "answer", "verdict", "usage")


def export_rows(store: Any, run_id: str) -> list[dict[str, Any]]:
    from core.runner import get_run
    from core.sessions import HUMAN_PREFIX, person_fields
    from core.store.faults import stored_json

    get_run(store, run_id)  # a clear error for an unknown run
    rows = []
    for att in store.attempts(run_id=run_id):
        row = dict(att)
        row.pop("id", None)  # a database rowid means nothing elsewhere
        for key in JSON_COLUMNS:
            if isinstance(row.get(key), str):
                row[key] = stored_json(row[key], f"attempts.{key} of '{row.get('instance_id')}'")
        for key in ("correct", "cached"):
            if row.get(key) is not None:
                row[key] = bool(row[key])
        solver = str(row.get("solver") or "")
        if solver == "human" or solver.startswith(HUMAN_PREFIX):  # a person's: who, how long, what was seen
            row.update(person_fields(solver, row, row.get("usage")))
        rows.append(row)
    return rows


def _export_command(ctx: click.Context, run_id: str, out: Path | None) -> None:
    ws = _workspace(ctx)
    from core.canonical import json_line
    from core.models.config import known_secrets
    from core.models.secrets import scrub

    rows = export_rows(ws.log, run_id)
    keys = known_secrets()
    # Defence in depth: nothing stored holds a secret, but an export never does (dummy keys such as
    # `x` are not secrets, so an export never rewrites text: see core.models.secrets).
    lines = [json_line(scrub(row, keys)) + "\n" for row in rows]
    if out is None:
        sys.stdout.write("".join(lines))
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(lines), encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write ({exc.strerror or exc})", file=str(out)) from None
    echo(f"wrote {len(lines)} attempts of {run_id} to {out}", err=True)


def _import_command(ctx: click.Context, snapshot: str, answers: Path, solver_name: str, fmt: str) -> None:
    from core.runner import import_answers
    from core.runner.stop import stop_on_signals

    ws = _workspace(ctx)
    with stop_on_signals():  # SIGINT/SIGTERM stop it at once; nothing is written until all is verified
        run_id, count, samples = import_answers(ws, snapshot, answers, solver_name)
    if fmt == "json":
        echo(json.dumps({"run": run_id, "attempts": count, "samples": samples}))
    else:
        echo(f"{run_id}: imported and verified {count} answers ({samples} sample(s) per instance); "
                   f"sembench report {run_id}")


# ---- registration --------------------------------------------------------------------------------------
def register(cli: click.Group) -> None:
    from core.cluster.worker import worker_cmd

    cli.add_command(worker_cmd)

    @cli.command("run")
    @click.option("--snapshot", default=None, help="Snapshot name (see `sembench snapshot list`).")
    @click.option("--solver", default=None, help="baseline | oracle | a family extra | provider:model")
    @click.option("--samples", type=bounded(1, MAX_SAMPLES), default=None,
                  help=f"Samples per instance [1], at most {MAX_SAMPLES}.")
    @click.option("--concurrency", type=bounded(1, MAX_CONCURRENCY), default=None,
                  help="Attempts in flight (default: the endpoint's max_concurrency; overrides it when given), "
                       f"at most {MAX_CONCURRENCY}.")
    @click.option("--limit", type=bounded(0, MAX_LIMIT), default=None, help="Only the first N instances.")
    @click.option("--style", default=None, help="Prompt style.")
    @click.option("--budget", type=BUDGET, default=None,
                  help=f"Seconds per instance for local solvers [{DEFAULT_BUDGET_S:g}], at most {MAX_BUDGET_S:g}.")
    @click.option("--resume", default=None, metavar="RUN", help="Finish a run: only what is missing is asked.")
    @click.option("--retry-errors", "retry_errors", type=click.Choice(["transient", "all"]), is_flag=False,
                  flag_value="transient", default=None,
                  help="With --resume: redo recorded errors. --retry-errors (= transient): those that never got "
                       "an answer (connection, timeout, 429, 5xx, auth); --retry-errors=all: every error "
                       "(also 4xx such as a wrong model name, malformed replies, solver errors).")
    @click.option("--no-cache", is_flag=True, help="Do not use or fill the response cache.")
    @cluster_options
    @completeness_option("Compute each verified answer's completeness (specs: CR by mutation analysis) [on; a "
                         "resumed run keeps its own].")
    @sampling_options
    @FORMAT
    @unsandboxed_option
    @click.pass_context
    def run_cmd(ctx: click.Context, **kwargs: Any) -> None:
        """Run a solver over a snapshot; every (instance, sample) is one attempt, stored as it completes.

        \b
        Response cache: a deterministic request (temperature 0, or --seed on
        openai/ollama) is keyed by what is sent and never paid twice.
        With --temperature 0 and no seed, the K samples of an instance are
        the same request: it is sent once and recorded K times (cached).
        With --seed S, sample k is sent with seed S+k, so samples differ.
        --no-cache asks the server every time.

        \b
        A run stops early (exit 2, resumable) when the endpoint fails most
        requests (90% of the last 20 attempts, at least 5, could not connect,
        timed out, were refused or got 429/5xx), or when its first 5 attempts
        all fail the same way (e.g. HTTP 404 for a wrong model name), or at
        once when a tool cannot run (missing, a full or read-only TMPDIR,
        killed by the OOM killer, no sandbox): an error of the environment,
        never charged to the answers; the message gives the resume command.
        """
        _run_command(ctx, **kwargs)

    @cli.command("runs")
    @FORMAT
    @click.pass_context
    def runs_cmd(ctx: click.Context, fmt: str) -> None:
        """List runs in the log database."""
        from core.runner import list_runs

        rows = list_runs(_workspace(ctx).log)
        if fmt == "json":
            echo(json.dumps(rows, indent=2))
            return
        # "stale": marked running, but its process is gone or has not beaten for a minute (killed).
        from core.report_view import table

        # "env errors": attempts an error of the environment stopped (as `report` counts them); the column
        # is shown when some run has any
        env = any(r["env_errors"] for r in rows)
        _console().print(table("runs", ["id", "snapshot", "family", "solver", "samples", "status", "done",
                                        *(["env errors"] if env else []), "created"],
                                [[r["id"], r["snapshot"], r["family"], r["solver"], r["samples"], r["state"],
                                  f"{r['done']}/{r['total']}", *([r["env_errors"]] if env else []), r["created"]]
                                 for r in rows]))

    @cli.command("report")
    @click.argument("run_ids", nargs=-1, required=True, metavar="RUN [RUN...]")
    @FORMAT
    @click.option("--plot", is_flag=True, help="Accuracy by the main difficulty feature, in the terminal.")
    @click.option("--png", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="Save the plot as PNG (needs matplotlib).")
    @click.option("--feature", default=None, help="Plot against this feature instead of the main one.")
    @SCORING
    @completeness_option("Complete first the verified answers recorded without completeness (a run made with "
                         "--completeness off; specs: CR), stored in the run [on]; off: report what is recorded.")
    @click.pass_context
    def report_cmd(ctx: click.Context, run_ids: tuple[str, ...], fmt: str, plot: bool, png: Path | None,
                   feature: str | None, scoring: str | None, completeness: str | None) -> None:
        """Metrics of a run (overall, per feature, pass@k, errors), or several runs side by side.

        With --scoring NAME the run's replies are scored again with another of the family's scorings
        (cascade: `released`); the report says which scoring produced it."""
        _report_command(ctx, run_ids, fmt, plot, png, feature, scoring, completeness)

    @cli.command("export")
    @click.argument("run_id", metavar="RUN")
    @click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="JSONL file (default: stdout).")
    @click.pass_context
    def export_cmd(ctx: click.Context, run_id: str, out: Path | None) -> None:
        """Write a run's attempts as JSONL (prompt, response, answer, verdict, timings, tokens)."""
        _export_command(ctx, run_id, out)

    @cli.command("import-answers")
    @click.option("--snapshot", required=True, help="The snapshot the answers are for.")
    @click.option("--answers", "answers", required=True, type=click.Path(dir_okay=False, path_type=Path),
                  help='JSONL: {"id", "response"} per line (optionally "sample", "reasoning", "error"); '
                       "`sembench export` output is accepted too.")
    @click.option("--solver-name", required=True, help="Who produced the answers (recorded as the run's solver).")
    @FORMAT
    @unsandboxed_option
    @click.pass_context
    def import_cmd(ctx: click.Context, snapshot: str, answers: Path, solver_name: str, fmt: str) -> None:
        """Verify answers produced elsewhere and record them as a run."""
        _import_command(ctx, snapshot, answers, solver_name, fmt)

    @cli.command("models")
    @FORMAT
    @click.option("--served", is_flag=True, help="Ask each endpoint which models it serves.")
    def models_cmd(fmt: str, served: bool) -> None:
        """Configured model endpoints (keys shown only as set / not set)."""
        from core.models.config import ConfigError, describe_endpoints, load_endpoints

        try:
            endpoints = load_endpoints()
            rows = describe_endpoints(endpoints)
            if served:
                from core.models.listing import list_all

                listings = list_all(endpoints)
        except ConfigError as exc:
            raise UserError(str(exc)) from None
        if served:
            if fmt == "json":
                echo(json.dumps([ls.model_dump() for ls in listings], indent=2))
                return
            for listing in listings:
                found = ", ".join(listing.models) or "none"
                echo(f"{listing.kind} {listing.base_url}: {listing.error or found}")
            return
        if fmt == "json":
            echo(json.dumps(rows, indent=2))
            return
        from core.report_view import table

        _console().print(table("model endpoints", ["kind", "setting", "value", "from"], endpoint_rows(rows),
                                numbers=False))
        for line in how_to_configure(endpoints):
            echo(line)
