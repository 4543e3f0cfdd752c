"""`sembench specs-repair`: the self-repair loop (§4.4.2) over an instance file, one JSON line per round."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command("specs-repair")
@click.option("--instances", "instances_path", required=True, type=click.Path(dir_okay=False),
              help="instances JSONL (specs)")
@click.option("--solver", default="baseline", show_default=True, help="baseline, oracle or a model spec")
@click.option("--rounds", default=3, show_default=True, type=click.IntRange(0, 20), help="repair rounds after the first")
@click.option("--style", default="few-shot", show_default=True, help="prompt style of the first round")
@click.option("--limit", default=0, type=click.IntRange(0), help="only the first N instances")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), help="write the rounds as JSONL here")
def repair_command(instances_path: str, solver: str, rounds: int, style: str, limit: int, out_path: str | None) -> None:
    """Self-repair: ask, verify, feed the failure back, for up to --rounds repairs per instance."""
    import asyncio  # here, not at the top: `sembench --help` imports this module for the verb's help

    from core.families.specs.model import SpecsInstance
    from core.families.specs.prompt import render_prompt
    from core.families.specs.repair import self_repair
    from core.family import get_family
    from core.jsonl import load_instances
    from core.solvers import make_solver

    family = get_family("specs")
    instances = load_instances(family, instances_path)
    if limit:
        instances = instances[:limit]
    engine = make_solver(solver, family)
    lines = []
    solved_by_round = [0] * (rounds + 1)
    for inst in instances:
        spec_inst = inst if isinstance(inst, SpecsInstance) else SpecsInstance.model_validate(inst.model_dump())

        def ask(prompt, _inst=spec_inst):
            result = asyncio.run(engine.solve(_inst, prompt))
            return result.response or (result.error or "")

        out = self_repair(spec_inst, ask, render_prompt(spec_inst, style), rounds=rounds)
        for r in out:
            lines.append({"id": inst.id, **r.model_dump(mode="json", exclude={"prompt"})})
        final = out[-1]
        if final.correct:
            for k in range(final.round, rounds + 1):
                solved_by_round[k] += 1
    if out_path:
        Path(out_path).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    n = len(instances) or 1
    summary = {"instances": len(instances), "solver": solver,
               "success_rate_by_round": [round(s / n, 4) for s in solved_by_round]}
    click.echo(json.dumps(summary))
