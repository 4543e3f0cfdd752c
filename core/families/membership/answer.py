"""The shapes of what the membership family stores: `Answer.value` (a bare True or False) and a trace
step's `data` (the family's `answer_model` and `step_model`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, RootModel


class MembershipAnswer(RootModel[bool]):
    """`Answer.value`: the answer, True or False (stored as a JSON boolean)."""


class MembershipStep(BaseModel):
    """`TraceStep.data` of the evaluation trace (see trace.py); which fields a step has depends on its
    kind: "call", "branch", "term" or "return"."""

    model_config = ConfigDict(extra="allow")

    call_id: int
    parent: int | None = None
    function: str
    family: int
    argument: Any = None  # the call's argument when small (call steps)
    branch: int | None = None  # index of the branch taken (None: no branch for the length)
    length: int | None = None  # len(x) (branch steps)
    terminal: bool | None = None
    term: int | None = None  # index of the term in its branch (term steps)
    term_text: str | None = None
    term_at: str | None = None
    value: bool | None = None
    short_circuit: bool | None = None
    skipped: list[str] | None = None
    actual: Any = None  # the compared element (comparison terms)
    error: str | None = None
