"""The Solver interface: anything that answers an instance (a family's local solver, a person, a model).

It lives apart from `core.solvers` (which builds solvers, model ones included) so that the providers'
ModelSolver can implement it without an import cycle.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from core.instance import Instance
from core.trace import Prompt

DeltaCallback = Callable[[str, str], None]  # (kind: "text" | "reasoning", chunk)


class SolveResult(BaseModel):
    """What a solver returns: the raw response plus everything worth recording with the attempt."""

    model_config = ConfigDict(defer_build=True)

    response: str = ""
    reasoning: str | None = None
    usage: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    error_kind: str | None = None
    elapsed_s: float = 0.0
    retries: int = 0
    cached: bool = False


class Solver(ABC):
    spec: str

    @abstractmethod
    async def solve(self, instance: Instance, prompt: Prompt, on_delta: DeltaCallback | None = None) -> SolveResult:
        """Answer one instance. Errors are returned in the result, never raised."""
