"""`sembench`: the command-line interface. Every summary also prints as JSON (`--format json`).

User errors (bad files, unknown names, malformed input) print one line and exit 2. The TUI entry
point (`tui.entry`) wraps this group so that `sembench` alone opens the workbench; `core` itself
never imports the UI.
"""

from __future__ import annotations

import errno
import gc
import importlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import click

from core.cli_runs import (
    BUDGET,
    FORMAT,
    SCORING,
    completeness_option,
    sampling_options,
    sampling_params,
    unsandboxed_option,
)
from core.cluster.target import ClusterTarget, cluster_options
from core.errors import UserError
from core.family import all_families, get_family
from core.limits import DEFAULT_BUDGET_S, INT64_MAX, INT64_MIN, MAX_BUDGET_S, MAX_COUNT, MAX_INDEX
from core.terminal import echo, shown

# A write that fails for want of room (a full disk or quota, a file size limit, /dev/full, a device gone): the
# machine's fault, one line like bad input, never a traceback.
WRITE_FAULTS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})

# Modules that add more verbs to the group (runs, reports, models); absent ones are skipped.
EXTRA_COMMAND_MODULES = ("core.cli_runs", "core.cli_notes")


class SembenchGroup(click.Group):
    """Turns UserError into a one-line message and exit code 2, wherever it is raised. Verbs that
    families add (`Family.commands`) are found lazily, so they cost nothing until used."""

    def _family_verbs(self) -> dict[str, Any]:
        return {verb: fam for fam in all_families().values() for verb in fam.commands}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._family_verbs()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        fam = self._family_verbs().get(cmd_name)
        return fam.command(cmd_name) if fam is not None else None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:  # a bad --db and the like: one line, exit 2
            echo(f"error: {_redacted(exc.format_message())}", err=True)
            ctx.exit(2)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UserError as exc:
            echo(f"error: {_redacted(str(exc))}", err=True)
            ctx.exit(2)
        except click.UsageError as exc:
            # A bad flag value is bad input like any other: one line, exit 2 (not click's usage block).
            name = exc.ctx.command_path if exc.ctx is not None else "sembench"
            echo(f"error: {name}: {_redacted(exc.format_message())}", err=True)
            ctx.exit(2)
        except KeyboardInterrupt:  # SIGINT, or SIGTERM where a verb installed core.runner.stop's handlers
            echo("error: interrupted", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            sys.stderr.close()
            ctx.exit(0)
        except OSError as exc:
            if exc.errno not in WRITE_FAULTS:
                raise
            # Where no file is named, it was standard output (`> /dev/full`): what is left in its buffer cannot be
            # written either, so it goes to /dev/null rather than into a second error at exit.
            with open(os.devnull, "w") as devnull:
                os.dup2(devnull.fileno(), sys.stdout.fileno())
            where = f"{exc.filename}: " if exc.filename else "standard output: "
            echo(f"error: {where}cannot write ({exc.strerror})", err=True)
            ctx.exit(2)
        except UnicodeEncodeError as exc:
            # Python reads an argument or a file name that is not UTF-8 with its bytes kept as lone surrogates
            # (surrogateescape); such text cannot be stored (SQLite) or written as UTF-8. Contents of files are
            # decoded strictly and checked where they are read, so this is a name the user gave.
            if exc.reason != "surrogates not allowed":
                raise
            text = exc.object[max(0, exc.start - 40):exc.end + 40]  # the name, not a whole note
            raw = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
            echo(f"error: not valid UTF-8: {_redacted(repr(raw)[1:])} (an argument, or a file name, with "
                       "bytes that are not UTF-8); use UTF-8 names", err=True)
            ctx.exit(2)
        except Exception as exc:
            # sqlite3 is not imported at start-up (`--help` does not need it): an sqlite3.Error can only
            # come from a verb that imported it.
            sqlite3 = sys.modules.get("sqlite3")
            if sqlite3 is None or not isinstance(exc, sqlite3.Error):
                raise
            # A fault the store did not place (a page damaged mid-file, a lock held past the wait):
            # one line naming the log database and what to do.
            from core.paths import default_log_db
            from core.store.faults import db_fault

            path = (ctx.obj or {}).get("db") or default_log_db()
            echo(f"error: {_redacted(str(db_fault(path, exc)))}", err=True)
            ctx.exit(2)


@click.group(cls=SembenchGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), envvar="SEMBENCH_DB",
              help="Log database (default: $XDG_DATA_HOME/sembench/log.db).")
@click.pass_context
def cli(ctx: click.Context, db: Path | None) -> None:
    """Sembench: program-semantics reasoning benchmarks, generated, solved and verified exactly."""
    ctx.obj = {"db": db}


def _redacted(text: str) -> str:
    """What the CLI prints never holds a secret (core.models.secrets)."""
    from core.models import secrets
    from core.paths import default_config_path

    if "core.models.config" not in sys.modules and not default_config_path(os.environ).exists():
        # No config file: the keys known_secrets() would add are the standard variables' (known()
        # reads them) and those of endpoints built in this process (registered when built). Skipping
        # it keeps pydantic out of a process that only prints an error (~0.25 s of each such line).
        return shown(secrets.redact(text, secrets.known()))
    from core.models.config import known_secrets

    # one line, nothing a terminal acts on: names in it come from files and replies (core.terminal)
    return shown(secrets.redact(text, known_secrets()))


def _load_extra_commands() -> None:
    for name in EXTRA_COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(cli)


@contextmanager
def _output(path: Path | None) -> Iterator[TextIO]:
    if path is None:
        yield sys.stdout
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("w", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write ({exc.strerror or exc})", file=str(path)) from None
    try:
        with handle:
            yield handle
    except OSError as exc:  # the disk filled up while writing (or /dev/full): the file is named
        if exc.errno not in WRITE_FAULTS:
            raise
        raise UserError(f"cannot write ({exc.strerror})", file=str(path)) from None


def _parse_params(pairs: tuple[str, ...]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise UserError(f"--param expects key=value, got '{pair}'")
        key, value = pair.split("=", 1)
        params[key.strip()] = value.strip()
    return params


def _print_table(rows: list[dict[str, Any]], columns: list[str], title: str | None = None) -> None:
    from rich.table import Table

    from core.terminal import safe_console

    table = Table(title=title)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(_fmt(row.get(c)) for c in columns))
    safe_console().print(table)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) > 1 else f"{value:.4f}"
    return "" if value is None else str(value)


# ---- families --------------------------------------------------------------------------------
@cli.command()
@FORMAT
def families(fmt: str) -> None:
    """List families and their presets."""
    from core.family_summary import summaries
    from core.readiness import readiness

    rows = []
    families = list(all_families().values())
    # presets and solvers from a cache kept up to date with the code: computing them costs pydantic,
    # the models and the corpora, hundreds of ms (core.family_summary)
    for fam, summary in zip(families, summaries(families), strict=True):
        rows.append({
            "family": fam.id, "title": fam.title, "citation": fam.citation.model_dump(),
            "features": list(fam.features), "hint_features": list(fam.hint_features),
            "spoiler_features": list(fam.spoiler_features), "styles": list(fam.prompt_styles), "solvers": summary["solvers"],
            "requires": [{"tool": t.executable, "name": t.name, "package": t.package, "installed": t.available(),
                          "optional": t.optional} for t in fam.requires],
            "presets": summary["presets"],
        })
        state = readiness(fam)  # looked up now, never cached: a tool installed meanwhile counts
        rows[-1].update(ready=state.ready, readiness=state.summary(), install=state.install)
    if fmt == "json":
        echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        cite = row["citation"]
        echo(f"{row['family']}: {row['title']}")
        echo(f"  paper: {cite['title']} — {cite['authors']}, {cite['venue']}, {cite['url']}")
        echo(f"  features: {', '.join(row['features'])}; solvers: {', '.join(row['solvers'])}")
        if row["hint_features"]:
            echo(f"  hidden from a person answering: {', '.join(row['hint_features'])}")
        if row["requires"]:
            tools = ", ".join(f"{t['name']} ({'installed' if t['installed'] else 'missing'}"
                              f"{', optional' if t['optional'] else ''})" for t in row["requires"])
            echo(f"  tools: {tools}")
        echo(f"  {row['readiness']}")
        for preset in row["presets"]:
            mark = " [bundled]" if preset["bundled"] else ""
            echo(f"  - {preset['name']} ({preset['count']}){mark}: {preset['description']}")


@cli.command()
@FORMAT
def doctor(fmt: str) -> None:
    """Whether this machine can check each family's answers: each tool's path and version, what is
    missing and the command that installs it, and whether the sandbox confines programs here."""
    from core.readiness import doctor as examine

    report = examine(list(all_families().values()))
    if fmt == "json":
        click.echo(json.dumps(report, indent=2))
        return
    for row in report["families"]:
        click.echo(f"{row['family']}: {row['summary']}")
        for tool in row["tools"]:
            where = f"{tool['path']}, version {tool['version']}" if tool["path"] else \
                f"missing (Debian package {tool['package']})"
            click.echo(f"  {tool['tool']}: {where}{' (optional)' if tool['optional'] else ''}")
    sandbox = report["sandbox"]
    click.echo("sandbox: bubblewrap confines programs here" if sandbox["works"] else f"sandbox: {sandbox['problem']}")


# ---- generate --------------------------------------------------------------------------------
@cli.command()
@click.argument("family_id", metavar="FAMILY")
@click.option("--preset", help="Named parameter set (see `sembench families`).")
@click.option("--param", "params", multiple=True, help="Override a parameter: key=value (repeatable).")
@click.option("--seed", type=click.IntRange(INT64_MIN, INT64_MAX), required=True)
@click.option("--count", type=click.IntRange(0, MAX_COUNT),
              help=f"How many (default: the preset's count, else 10), at most {MAX_COUNT}.")
@click.option("--start", type=click.IntRange(0, MAX_INDEX), default=0, show_default=True,
              help="Index of the first item.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="JSONL file (default: stdout).")
def generate(family_id: str, preset: str | None, params: tuple[str, ...], seed: int, count: int | None,
             start: int, out: Path | None) -> None:
    """Generate instances as JSONL, deterministically from (params, seed, index)."""
    fam = get_family(family_id)
    resolved = fam.resolve_params(preset, _parse_params(params))
    if count is None:
        count = fam.presets()[preset].count if preset else 10
    with _output(out) as handle, progress_bar(f"generating {family_id}", count, enabled=out is not None) as advance:
        for inst in fam.generate(resolved, seed, count, start):
            handle.write(json.dumps(inst.to_json_dict(), ensure_ascii=False, separators=(",", ":")) + "\n")
            advance()
    if out is not None:
        echo(f"wrote {count} {family_id} instances to {out}", err=True)


@contextmanager
def progress_bar(label: str, total: int, enabled: bool = True) -> Iterator[Any]:
    """A rich progress bar on stderr when it is a terminal; silent otherwise (pipes, CI)."""
    if not (enabled and sys.stderr.isatty()):
        yield lambda: None
        return
    from rich.progress import Progress

    with Progress(transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda: progress.advance(task)


@contextmanager
def progress_updates(enabled: bool = True) -> Iterator[Any]:
    """Like `progress_bar` for work whose size is known only as it goes: yields `update(label, done,
    total)`, one bar per label, on stderr when it is a terminal; silent otherwise."""
    if not (enabled and sys.stderr.isatty()):
        yield lambda label, done, total: None
        return
    from rich.progress import Progress

    with Progress(transient=True) as progress:
        tasks: dict[str, Any] = {}

        def update(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = progress.add_task(label, total=total)
            progress.update(tasks[label], completed=done, total=total)

        yield update


# ---- prompt ----------------------------------------------------------------------------------
INSTANCES = click.option("--instances", "instances_path", required=True,
                         type=click.Path(dir_okay=False, path_type=Path), help="Instances JSONL.")
OUT = click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="JSONL file (default: stdout).")


@cli.command()
@click.argument("family_id", metavar="FAMILY")
@INSTANCES
@click.option("--style", default=None, help="Prompt style (see `sembench families`).")
@OUT
def prompt(family_id: str, instances_path: Path, style: str | None, out: Path | None) -> None:
    """Render prompts as JSONL: {"id", "style", "messages", "completion"}."""
    from core.jsonl import load_instances, write_jsonl

    fam = get_family(family_id)
    style = style or fam.prompt_styles[0]
    if style not in fam.prompt_styles:
        raise UserError(f"unknown style '{style}' for '{fam.id}' (known: {', '.join(fam.prompt_styles)})")
    instances = load_instances(fam, instances_path)
    with _output(out) as handle:
        write_jsonl(({"id": inst.id, **fam.prompt(inst, style).model_dump()} for inst in instances), handle)


# ---- solve -----------------------------------------------------------------------------------
@cli.command()
@click.argument("family_id", metavar="FAMILY")
@INSTANCES
@click.option("--solver", required=True, help="baseline | oracle | a family extra | provider:model")
@click.option("--budget", type=BUDGET, default=DEFAULT_BUDGET_S, show_default=True,
              help=f"Seconds per instance (local solvers), at most {MAX_BUDGET_S:g}.")
@click.option("--style", default=None, help="Prompt style for model solvers.")
@sampling_options
@OUT
@click.pass_context
def solve(ctx: click.Context, family_id: str, instances_path: Path, solver: str, budget: float,
          style: str | None, out: Path | None, **sampling: Any) -> None:
    """Answer instances with a solver; writes {"id", "response"} JSONL (errors recorded, not raised)."""
    import asyncio  # here, not at the top: asyncio (ssl, concurrent.futures) is ~20 ms of every start-up

    from core.canonical import json_line
    from core.jsonl import load_instances
    from core.models import secrets
    from core.models.config import known_secrets
    from core.solvers import is_model_spec, make_solver

    fam = get_family(family_id)
    instances = load_instances(fam, instances_path)
    options: dict[str, Any] = {}
    params = sampling_params(**sampling)  # validated for every solver, as `run` does: bad options are one line
    if is_model_spec(solver):
        # model solvers take sampling options and share the log database's response cache
        options = {"params": params, "cache": _workspace(ctx).log}
    the_solver = make_solver(solver, fam, budget_s=budget, **options)
    style = style or fam.prompt_styles[0]

    async def run_all() -> None:
        with _output(out) as handle, progress_bar(f"solving with {solver}", len(instances), out is not None) as advance:
            for inst in instances:
                result = await the_solver.solve(inst, fam.prompt(inst, style))
                row: dict[str, Any] = {"id": inst.id, "response": result.response}
                if result.reasoning:
                    row["reasoning"] = result.reasoning
                if result.error:
                    row["error"] = result.error
                # A written file is an export: secrets redacted; lone surrogates kept as JSON escapes.
                handle.write(json_line(secrets.scrub(row, known_secrets())) + "\n")
                handle.flush()  # results are written as they arrive
                advance()
        aclose = getattr(the_solver, "aclose", None)
        if aclose is not None:
            await aclose()

    asyncio.run(run_all())


# ---- verify ----------------------------------------------------------------------------------
@cli.command()
@click.argument("family_id", metavar="FAMILY")
@INSTANCES
@click.option("--answers", "answers_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help='Answers JSONL: {"id", "response"} per line.')
@OUT
@FORMAT
@SCORING
@unsandboxed_option
@cluster_options
@completeness_option("Compute each verified answer's completeness (specs: CR by mutation analysis) [on].")
@click.pass_context
def verify(ctx: click.Context, family_id: str, instances_path: Path, answers_path: Path, out: Path | None, fmt: str,
           scoring: str | None, cluster: ClusterTarget | None, completeness: str | None) -> None:
    """Verify answers; writes verdicts JSONL (with --out) and prints the family's metrics.

    With --cluster ADDRESS (a Dask scheduler, TLS) or --workers N (a local cluster of N processes) the
    checks that cost more than a task's round trip run on the cluster's workers, which must have the
    family's tools (docs/cluster.md); cheaper ones run here.
    With --scoring NAME another of the family's scorings judges (cascade: `released`, the released
    scorer's reading); its checks are in-process and run here."""
    from core.jsonl import load_answers, load_instances, write_jsonl

    fam = get_family(family_id)
    scoring = fam.scoring(scoring)
    if cluster is not None:
        cluster.check()  # a cluster that cannot be used is said before any file is read
    instances = {inst.id: inst for inst in load_instances(fam, instances_path)}
    answers = load_answers(answers_path)
    rows = []
    verdict_lines = []
    for line, iid, _response in answers:
        if iid not in instances:
            raise UserError(f"no instance with id '{iid}' in {instances_path}", file=str(answers_path), line=line,
                            field="id")
    pairs = [(instances[iid], response) for _, iid, response in answers]
    from core.completeness import parse, setting

    with setting(parse(completeness)):
        if scoring != fam.scorings[0]:
            checked = fam.check_scored(pairs, scoring)
        elif cluster is not None:
            from core.cluster.run import verify_on_cluster

            checked = verify_on_cluster(fam, pairs, cluster, (ctx.find_root().obj or {}).get("db"))
        else:
            # one batch, so a family whose verifier starts a tool can amortise it (and run it in a pool)
            checked = fam.check_many(pairs)
    for (_, iid, _response), (answer, verdict) in zip(answers, checked, strict=True):
        rows.append((instances[iid], verdict))
        verdict_lines.append({"id": iid, **verdict.model_dump(mode="json"), "answer": answer.model_dump(mode="json")})
    if out is not None:
        from core.models.config import known_secrets
        from core.models.secrets import scrub

        with _output(out) as handle:  # a file the CLI writes: secrets redacted like any export
            write_jsonl(scrub(verdict_lines, known_secrets()), handle)
    report = fam.metrics(rows)
    report["family"] = fam.id
    report["scoring"] = scoring
    report["missing"] = len(instances) - len({iid for _, iid, _ in answers})
    report.update(_samples_summary(fam, instances, [iid for _, iid, _ in answers], [v for _, v in rows], scoring))
    _print_metrics(report, fmt)


def _samples_summary(fam: Any, instances: dict[str, Any], ids: list[str], verdicts: list[Any],
                     scoring: str | None = None) -> dict[str, Any]:
    """With several answers per id (k samples): pass@k for k <= samples and the family's best-of-k
    selection (the paper's rule for cascade: any consistent sample, else the highest score)."""
    from core.report import pass_at_k

    by_id: dict[str, list[Any]] = {}
    for iid, verdict in zip(ids, verdicts, strict=True):
        by_id.setdefault(iid, []).append(verdict)
    samples = max((len(v) for v in by_id.values()), default=0)
    if samples <= 1:
        return {}
    pass_k: dict[str, Any] = {}
    for k in range(1, samples + 1):
        scores = [pass_at_k(len(vs), sum(v.correct for v in vs), k) for vs in by_id.values() if len(vs) >= k]
        pass_k[str(k)] = {"value": sum(scores) / len(scores), "n": len(scores)}
    scoring = scoring or fam.scorings[0]
    selected = [(instances[iid], vs[fam.select_scored(vs, scoring)]) for iid, vs in by_id.items()]
    return {"samples": samples, "pass@k": pass_k, "selected": fam.metrics(selected)["overall"]}


def _print_metrics(report: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        echo(json.dumps(report, indent=2))
        return
    overall = report["overall"]
    echo(f"{report['family']}: {report['n']} verdicts, {report.get('missing', 0)} instances unanswered"
               + (f" (scoring: {report['scoring']})" if report.get("scoring") else ""))
    _print_table([{"metric": k, "value": v} for k, v in overall.items()], ["metric", "value"])
    if "pass@k" in report:
        _print_table([{"k": k, **v} for k, v in report["pass@k"].items()], ["k", "value", "n"],
                     title=f"pass@k, {report['samples']} samples")
        _print_table([{"metric": k, "value": v} for k, v in report["selected"].items()], ["metric", "value"],
                     title="best of k (the family's selection rule)")
    # Breakdowns show the family's headline metrics (its first four) so the tables fit a terminal.
    headline = list(overall)[:4]
    for feature, groups in report["by"].items():
        _print_table([{feature: value, **vals} for value, vals in groups.items()], [feature, "n", *headline],
                     title=f"by {feature}")


# ---- trace -----------------------------------------------------------------------------------
@cli.command()
@click.argument("family_id", metavar="FAMILY")
@INSTANCES
@click.option("--id", "instance_id", required=True)
@click.option("--answer", default=None, help="A raw response to trace beside the ground truth.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@unsandboxed_option
def trace(family_id: str, instances_path: Path, instance_id: str, answer: str | None, fmt: str) -> None:
    """Print the steps of how an instance (or an answer to it) computes."""
    from core.jsonl import load_instances

    fam = get_family(family_id)
    found = [inst for inst in load_instances(fam, instances_path) if inst.id == instance_id]
    if not found:
        raise UserError(f"no instance with id '{instance_id}'", file=str(instances_path))
    from core.extraction import extract

    extracted = extract(fam, answer, found[0]) if answer is not None else None
    result = fam.trace(found[0], extracted)
    echo(result.model_dump_json(indent=2) if fmt == "json" else result.to_text())


# ---- snapshots -------------------------------------------------------------------------------
@cli.group()
def snapshot() -> None:
    """List, build, export and import snapshots."""


def _workspace(ctx: click.Context) -> Any:
    from core.store import Workspace

    ws = Workspace(ctx.find_root().obj.get("db"))
    ctx.call_on_close(ws.close)  # closed with the command (see core.cli_runs._workspace)
    return ws


@snapshot.command("list")
@FORMAT
@click.pass_context
def snapshot_list(ctx: click.Context, fmt: str) -> None:
    """Snapshots in the bundled database and the log database."""
    ws = _workspace(ctx)
    rows = [{"name": s.name, "family": s.family, "preset": s.preset, "seed": s.seed, "count": s.count,
             "origin": origin, "description": s.description, "meta": s.meta} for s, origin in ws.snapshots()]
    if fmt == "json":
        echo(json.dumps(rows, indent=2))
    else:
        _print_table(rows, ["name", "family", "count", "seed", "origin", "description"], title="snapshots")


@snapshot.command("build")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Database to write (default: the bundled snapshots.db).")
@click.option("--only", multiple=True, help="Build only these snapshots (into a new file).")
def snapshot_build(out: Path | None, only: tuple[str, ...]) -> None:
    """Rebuild the bundled snapshots from presets and seeds (the only way snapshots.db changes)."""
    from core.bundle import bundle_entries, write_bundle
    from core.store import BUNDLED_SNAPSHOTS

    known = {e.name for e in bundle_entries()}
    unknown = [n for n in only if n not in known]
    if unknown:
        raise UserError(f"unknown bundled snapshot(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")

    def report(name: str, done: int, total: int) -> None:
        if done == total or done % 200 == 0:
            echo(f"  {name}: {done}/{total}", err=True)

    built = write_bundle(out or BUNDLED_SNAPSHOTS, list(only) or None, report)
    for snap in built:
        echo(f"{snap.name}: {snap.count} {snap.family} instances")


@snapshot.command("export")
@click.argument("name")
@OUT
@click.pass_context
def snapshot_export(ctx: click.Context, name: str, out: Path | None) -> None:
    """Write a snapshot's instances as JSONL."""
    from core.jsonl import write_jsonl

    ws = _workspace(ctx)
    store = ws.store_for(name)
    with _output(out) as handle:
        count = write_jsonl((data for _, _, _, data in store.instance_rows(name)), handle)
    if out is not None:
        echo(f"wrote {count} instances to {out}", err=True)


@snapshot.command("import")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--name", required=True, help="Snapshot name in the log database.")
@click.option("--family", "family_id", required=True)
@click.option("--description", default="imported")
@click.option("--keep-unverified", is_flag=True,
              help="Import instances whose ground truth does not verify too (they are listed, and named in the "
                   "snapshot's meta).")
@click.option("--no-verify", is_flag=True,
              help="Import without checking the ground truth (the snapshot's meta says it is unverified).")
@unsandboxed_option
@click.pass_context
def snapshot_import(ctx: click.Context, path: Path, name: str, family_id: str, description: str,
                    keep_unverified: bool, no_verify: bool) -> None:
    """Import instances as a snapshot in the log database: instance JSONL (e.g. from another harness), or
    a released benchmark's own files (a folder or file in the family's released format).

    \b
    Every instance's ground truth is checked with the family's own verifier
    (its oracle response must verify). The file is refused when one does
    not, each such instance named by line and id, unless --keep-unverified.
    An empty file is refused. A folder is read safely and within bounds
    (docs/imports-of-folders.md): entries not read are listed."""
    from core.folders import MAX_LISTED, check_regular, importing
    from core.groundtruth import check_ground_truth
    from core.instance import Snapshot
    from core.jsonl import load_numbered_instances
    from core.limits import MAX_INSTANCES
    from core.runner.stop import stop_on_signals

    fam = get_family(family_id)
    if not path.exists():
        raise UserError("no such file or folder", file=str(path))
    check_regular(path)
    # SIGINT/SIGTERM stop reading and checking at once (KeyboardInterrupt: tools finish and clean up on the way
    # out, "error: interrupted", exit 130); nothing is written before the end.
    with progress_updates() as update, importing(verify=not no_verify, progress=update) as context, \
            stop_on_signals():
        released = fam.import_files(path)
        for item in context.skipped:
            echo(f"{shown(item.path)}: skipped: {shown(item.reason)}", err=True)
        source = "released format" if released is not None else "instance JSONL"
        if released is None:
            if path.is_dir():
                raise UserError(f"a folder, but not one that '{fam.id}' can import", file=str(path))
            numbered = [(f"line {line}", inst) for line, inst in load_numbered_instances(fam, path)]
        else:
            numbered = [(f"item {i}", inst) for i, inst in enumerate(released, start=1)]
        if not numbered:
            raise UserError(f"no instances in it ({source}); nothing imported", file=str(path))
        if len(numbered) > MAX_INSTANCES:
            raise UserError(f"{len(numbered)} instances, more than {MAX_INSTANCES}; split it", file=str(path))
        bad, no_reference = [], 0
        if not no_verify:
            bad, no_reference = check_ground_truth(fam, numbered, lambda done, total: update(
                "checking the ground truth", done, total))
    listed = 20
    for item in bad[:listed]:
        echo(f"{shown(path)}: {item.where}: id '{shown(item.instance_id)}': ground truth does not verify: "
             f"{shown(item.reason)}", err=True)
    if len(bad) > listed:
        echo(f"{shown(path)}: ... and {len(bad) - listed} more", err=True)
    if bad and not keep_unverified:
        raise UserError(f"the ground truth of {len(bad)} of {len(numbered)} instances does not verify (listed "
                        "above); nothing imported. Fix them, or import them anyway with --keep-unverified",
                        file=str(path))
    instances = [inst for _, inst in numbered]
    ws = _workspace(ctx)
    meta: dict[str, Any] = {"source": str(path), "format": source}
    if no_verify:
        meta["verified"] = False  # --no-verify: no instance's ground truth was checked
    if context.skipped:
        meta["skipped"] = [{"path": item.path, "reason": item.reason} for item in context.skipped[:MAX_LISTED]]
        meta["n_skipped"] = len(context.skipped)
    if bad:
        meta["unverified"] = [item.instance_id for item in bad]
    if no_reference:
        meta["no_reference"] = no_reference
    meta.update(fam.describe_snapshot(instances))  # the family's facts, as for a bundled snapshot
    snap = Snapshot(name=name, family=fam.id, description=description, count=len(instances), meta=meta)
    ws.log.write_snapshot(snap, instances, features=fam.feature_values)
    notes = [f"{len(bad)} whose ground truth does not verify"] if bad else []
    notes += ["not verified (--no-verify)"] if no_verify else []
    notes += [f"{len(context.skipped)} entries skipped"] if context.skipped else []
    notes += [f"{no_reference} without a reference"] if no_reference else []
    extra = f"; {', '.join(notes)}" if notes else ""
    echo(f"imported {len(instances)} instances ({source}{extra}) as snapshot '{name}' into {ws.log.path}")


_load_extra_commands()


def main(argv: list[str] | None = None) -> None:
    """The console entry (`sembench VERB`, `python -m core`): the command, then a quick exit."""
    # pydantic looks for plugins (the `pydantic` entry points of every installed distribution) when it
    # builds its first model: 20-35 ms of a run's start-up (docs/performance.md) for plugins Sembench has
    # none of, and turned off its loader is not even imported (core.pydantic_plugins). A value the user
    # set (an empty one turns the search back on) is kept. Set here, after the imports: importing the CLI
    # builds no model (the models are deferred), which the plugin test checks through the console entry.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from core.cli_runs import PROCESS

    PROCESS["exits_after_command"] = True
    try:
        cli.main(args=argv, prog_name="sembench")
    finally:
        # CPython's finalization runs full garbage collections over every object the process holds,
        # the imported modules' included: 0.4-0.5 s for a run's import graph alone on a busy 2-core VM
        # (docs/performance.md), paid again on the way out of every command. Frozen objects are skipped;
        # everything is still closed and finalized by reference counting, and the OS takes the memory
        # back. Only here, in a process that is about to exit, never where the CLI runs in-process.
        gc.freeze()
