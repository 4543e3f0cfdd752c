"""Traces: ordered steps for the stepper (a cascade's strings, a call tree, a derivation, a proof's goals).

A trace is typed enough for a generic stepper to show any family: `documents` are the source texts
the steps refer to (with their language, for highlighting), each step may `focus` a span of one
document and carry `state` rows (name, value, status: a substitution growing, candidates shrinking,
goals proved). Family-specific step payloads go in `data`, shaped by the family's `step_model`.

The trace models are built on first use (`defer_build`), not at import: every run imports this module
for `Prompt`, and building the five of them was ~25 ms of a model run's start-up (docs/performance.md).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Document(BaseModel):
    """A source text the steps point into (a program, an annotated file, the rendered conditions)."""

    model_config = ConfigDict(defer_build=True)

    name: str
    language: str = "text"  # a pygments lexer name: python, haskell, java, c, text
    text: str


class Focus(BaseModel):
    """Where a step is in a document: 1-based lines, 0-based [col_start, col_end) columns on `line`
    (columns absent: the whole line; `line_end` absent: one line)."""

    model_config = ConfigDict(defer_build=True)

    document: str
    line: int = Field(ge=1)
    col_start: int | None = Field(default=None, ge=0)
    col_end: int | None = Field(default=None, ge=0)
    line_end: int | None = Field(default=None, ge=1)


class StateRow(BaseModel):
    """One row of a step's state table. `status` is a word views colour: new, changed, kept, ok, fail,
    unknown, pending (or empty)."""

    model_config = ConfigDict(defer_build=True)

    name: str
    value: str
    status: str = ""


class TraceStep(BaseModel):
    """One step. `depth` nests steps (call trees); `focus`/`state` are what the generic stepper shows.

    `highlight` keys used by the specialised steppers: "line" (1-based line of the rendered code), "path"
    (index path into a nested structure), "rule" (index of the active rule), "spans" (per-row changed
    spans), "span" ([start, end) columns of the active term within the highlighted line).
    """

    model_config = ConfigDict(defer_build=True)

    index: int
    kind: str
    label: str
    depth: int = 0
    data: dict[str, Any] = Field(default_factory=dict)
    highlight: dict[str, Any] = Field(default_factory=dict)
    focus: Focus | None = None
    state: list[StateRow] = Field(default_factory=list)
    # Extra readable lines printed under the label by `to_text` (e.g. each example's string).
    lines: list[str] = Field(default_factory=list)


class Trace(BaseModel):
    model_config = ConfigDict(defer_build=True)

    family: str
    instance_id: str
    title: str
    documents: list[Document] = Field(default_factory=list)
    steps: list[TraceStep] = Field(default_factory=list)
    # An answer's trace carries the ground truth's beside it and where the two first part ways.
    reference: Trace | None = None
    divergence: dict[str, Any] | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    def document(self, name: str) -> Document | None:
        return next((d for d in self.documents if d.name == name), None)

    def to_text(self) -> str:
        """A readable indented rendering for the CLI."""
        lines = [self.title]
        for step in self.steps:
            pad = "  " * step.depth
            where = f"  @{step.focus.document}:{step.focus.line}" if step.focus is not None else ""
            lines.append(f"{pad}[{step.index}] {step.label}{where}")
            lines.extend(pad + "    " + line for line in step.lines)
            lines.extend(pad + f"    {row.name} = {row.value}" + (f"  ({row.status})" if row.status else "")
                         for row in step.state)
        if self.reference is not None:
            lines.append("")
            lines.append("beside it, " + self.reference.to_text())
        if self.divergence:
            lines.append("divergence: " + ", ".join(f"{k}={v}" for k, v in self.divergence.items()))
        return "\n".join(lines)


class Prompt(BaseModel):
    """Chat messages plus a completion-style string where the paper has one."""

    model_config = ConfigDict(defer_build=True)

    style: str
    messages: list[dict[str, str]]
    completion: str | None = None
