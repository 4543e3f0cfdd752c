"""`sembench specs-repair`: the self-repair loop (§4.4.2) over a specs snapshot, every round recorded."""

from __future__ import annotations

import json

import click

from core.cli_runs import unsandboxed_option


@click.command("specs-repair")
@click.option("--snapshot", required=True, help="a specs snapshot (see `sembench snapshot list`), e.g. formalbench-c")
@click.option("--solver", default="baseline", show_default=True, help="baseline, oracle or a model spec")
@click.option("--rounds", default=3, show_default=True, type=click.IntRange(0, 20), help="repair rounds after the first")
@click.option("--style", default="few-shot", show_default=True, help="prompt style of the first round")
@click.option("--limit", default=0, type=click.IntRange(0), help="only the first N instances")
@unsandboxed_option
@click.pass_context
def repair_command(ctx: click.Context, snapshot: str, solver: str, rounds: int, style: str, limit: int) -> None:
    """Self-repair: ask, verify, feed the failure back, for up to --rounds repairs per instance.

    The rounds are recorded in the log database as one run (round k is sample k; each attempt's
    usage.repair names the attempt it repairs); prints one JSON line: the run id and the success
    rate after each round."""
    from core.cli import progress_bar
    from core.families.specs.repair_run import repair_snapshot
    from core.store import Workspace

    ws = Workspace((ctx.find_root().obj or {}).get("db"))
    try:
        with progress_bar("self-repair", limit or ws.store_for(snapshot).snapshot(snapshot).count) as advance:
            summary = repair_snapshot(ws, snapshot, solver, rounds=rounds, style=style, limit=limit or None,
                                      on_instance=advance)
    finally:
        ws.close()
    click.echo(json.dumps(summary))
