"""Solvers: anything that answers an instance, behind one async interface.

Local solvers (baseline, oracle, family extras) run in a worker thread so an event loop (the TUI,
the runner) never blocks. Model solvers wrap a provider from `core.models`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from core.errors import EnvironmentFault, UserError
from core.family import Family
from core.instance import Instance
from core.solver_base import DeltaCallback, Solver, SolveResult
from core.trace import Prompt

__all__ = ["DeltaCallback", "FixedSolver", "LocalSolver", "SolveResult", "Solver", "is_model_spec", "make_solver"]

class LocalSolver(Solver):
    """A family's in-process solver (baseline, oracle, ...), run in a thread with a time budget."""

    def __init__(self, family: Family, name: str, budget_s: float = 5.0) -> None:
        solvers = family.local_solvers()
        if name not in solvers:
            raise UserError(f"family '{family.id}' has no solver '{name}' (local: {', '.join(solvers)})")
        self.family = family
        self.spec = name
        self.budget_s = budget_s
        self._fn = solvers[name]

    async def solve(self, instance: Instance, prompt: Prompt, on_delta: DeltaCallback | None = None) -> SolveResult:
        start = time.perf_counter()
        try:
            text = await asyncio.to_thread(self._fn, instance, self.budget_s)
        except EnvironmentFault:
            raise  # a tool that cannot run (a baseline calling javac, say): the run stops, nothing recorded
        except Exception as exc:  # a solver bug must not take a run down; it is recorded instead
            return SolveResult(error=f"{type(exc).__name__}: {exc}", error_kind="solver", elapsed_s=time.perf_counter() - start)
        if on_delta is not None:
            on_delta("text", text)
        return SolveResult(response=text, elapsed_s=time.perf_counter() - start)


class FixedSolver(Solver):
    """Answers with a given text: the human input box, and answers imported from other harnesses."""

    def __init__(self, text: str, spec: str = "human", elapsed_s: float = 0.0) -> None:
        self.text = text
        self.spec = spec
        self.elapsed_s = elapsed_s

    async def solve(self, instance: Instance, prompt: Prompt, on_delta: DeltaCallback | None = None) -> SolveResult:
        return SolveResult(response=self.text, elapsed_s=self.elapsed_s)


def is_model_spec(spec: str) -> bool:
    return ":" in spec


def make_solver(spec: str, family: Family, budget_s: float = 5.0, **model_options: Any) -> Solver:
    """`baseline`, `oracle`, a family extra, or a model spec like `openai:gpt-4o`."""
    if is_model_spec(spec):
        from core.models.solver import ModelSolver  # lazy: providers pull in httpx

        return ModelSolver(spec, **model_options)
    return LocalSolver(family, spec, budget_s=budget_s)
