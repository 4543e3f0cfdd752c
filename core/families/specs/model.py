"""The specs family's data: instances (fixed JSON names), generator parameters, answers and trace steps."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.instance import Instance


class SpecsInstance(Instance):
    """Fixed names: `code`, `description`, `function`; `ground_truth.contract` (the annotated reference);
    `meta.control_flow`, `meta.loops`. `tests` (inputs by parameter name), `arrays` (array parameter ->
    length expression) and `ranges` (value ranges for random inputs) are optional: without them the
    harness guesses from the signature."""

    family: Literal["specs"] = "specs"
    code: str
    description: str = ""
    function: str
    tests: list[dict[str, Any]] = Field(default_factory=list)
    arrays: dict[str, str] = Field(default_factory=dict)
    ranges: dict[str, list[Any]] = Field(default_factory=dict)

    @field_validator("code", "function")
    @classmethod
    def _not_empty(cls, value: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise ValueError("must be a non-empty string")
        return value

    def reference(self) -> str | None:
        contract = self.ground_truth.get("contract")
        return contract if isinstance(contract, str) and contract.strip() else None


class SpecsParams(BaseModel):
    """`variants`: `base` (the corpus as written), `diverse` (each program followed by its
    semantic-preserving transformations) or `diverse-n` (the paper's Diverse-N: the more natural half
    of those variants, for programs left with at least three; see naturalness.py). `programs`: keep only these corpus programs (comma-separated
    names; empty keeps all)."""

    model_config = ConfigDict(extra="forbid")

    variants: Literal["base", "diverse", "diverse-n"] = "base"
    programs: str = ""


class SpecsAnswer(BaseModel):
    """`Answer.value`: the annotated program from the reply."""

    annotated: str
    annotations: int


class GoalStep(BaseModel):
    """`TraceStep.data` of a goal step."""

    kind: str
    line: int | None = None
    status: str
    prover: str = ""
    time_s: float | None = None
    category: str = ""
