"""`sembench kb build|stats` (the knowledge base) and `sembench ddmin` (minimise a snippet against the
baseline), added to the CLI through `ImportsFamily.commands`."""

from __future__ import annotations

import json

import click

from core.errors import UserError
from core.terminal import echo


@click.group("kb")
def kb_group() -> None:
    """The imports family's knowledge base (JDK modules and library jars)."""


@kb_group.command("build")
@click.option("--force", is_flag=True, help="rebuild even when the cached one is current")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def kb_build(force: bool, fmt: str) -> None:
    """Build (or find) the cached knowledge base."""
    from core.families.imports import kb

    path, seconds, built = kb.build(force=force)
    info = {"path": str(path), "built": built, "seconds": round(seconds, 2), "key": kb.kb_key()}
    if fmt == "json":
        echo(json.dumps(info))
    else:
        echo(f"{'built' if built else 'up to date'}: {path}" + (f" in {seconds:.1f} s" if built else ""))


@kb_group.command("stats")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def kb_stats(fmt: str) -> None:
    """Counts of types, members and ambiguous simple names."""
    from core.families.imports import kb

    stats = kb.load().stats()
    if fmt == "json":
        echo(json.dumps(stats, indent=2))
        return
    for key, value in stats.items():
        if isinstance(value, dict):
            echo(f"{key}:")
            for k, v in value.items():
                echo(f"  {k}: {v}")
        else:
            echo(f"{key}: {value}")


@click.command("ddmin")
@click.option("--instances", "instances_path", required=True, type=click.Path(dir_okay=False))
@click.option("--id", "instance_id", required=True)
@click.option("--budget", type=int, default=2000, show_default=True, help="at most this many solver calls")
@click.option("--property", "prop", type=click.Choice(["equal", "superset"]), default="equal", show_default=True,
              help="keep a reduced snippet while the answer equals the original imports (the paper's "
                   "Algorithm 2), or while it still contains them all (superset)")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "trace"]), default="text")
def ddmin_command(instances_path: str, instance_id: str, budget: int, prop: str, fmt: str) -> None:
    """Minimise one snippet's tokens while the baseline still infers the imports it inferred (§6,
    Algorithm 2; Perses is not run first)."""
    from core.families.imports import ddmin
    from core.families.imports.prompt import prompt_code
    from core.families.imports.trace import ddmin_trace
    from core.family import get_family
    from core.jsonl import load_instances

    # the CLI's one JSONL reader: errors name the file, line and field (not JSON, a device, a wrong family...)
    found = next((inst for inst in load_instances(get_family("imports"), instances_path) if inst.id == instance_id),
                 None)
    if found is None:
        raise UserError(f"no instance with id '{instance_id}'", file=instances_path)
    if budget < 1:
        raise UserError("--budget must be at least 1")
    result = ddmin.ddmin(prompt_code(found), ddmin.baseline_infer(found.library), budget=budget,
                         prop=prop)  # type: ignore[arg-type]
    if fmt == "json":
        echo(json.dumps(result.report(), indent=2))
    elif fmt == "trace":
        echo(ddmin_trace(found.id, result).to_text())
    else:
        rep = result.report()
        echo(f"{rep['tokens_before']} -> {rep['tokens_after']} tokens ({rep['retained_ratio']:.1%}) in "
                   f"{rep['calls']} baseline call(s){'' if rep['finished'] else ' (budget spent)'}")
        for cat, v in rep["by_category"].items():
            ratio = "-" if v["ratio"] is None else f"{v['ratio']:.1%}"
            echo(f"  {cat}: {v['after']}/{v['before']} ({ratio})")
        echo(f"simple names kept: {rep['simple_names_after']} of {rep['simple_names_before']}")
        echo("minimized: " + json.dumps(rep["minimized"]))
