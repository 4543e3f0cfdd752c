"""A family's TUI, in one optional module: `tui/families/<family id>.py` exporting `VIEW = FamilyView(...)`.

`view_for(family_id)` is the one lookup. Every part a module leaves out (and the whole view, for a family
without a module) is the generic one: the payload fields for the Problem tab, the extracted answer's
fields, the verdict's diff table, and the source stepper (documents, focus spans, state rows, steps).

A family module may import `core.family`, `core.trace`, `core.verdict` and the other public core API,
plus its own family's package module (`core.families.<id>`, the `__init__`), never the family's private
modules: a view that needs family logic gets it through the Family's methods.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import RenderableType

    from core.family import Family
    from core.instance import Instance
    from core.trace import Trace
    from core.verdict import Verdict
    from tui.widgets.steppers.base import StepperView

# (family, instance, the ground truth's trace once computed, else None) -> the Problem tab's view. It must
# never show the answer: the trace is there for what a view cannot compute cheaply (e.g. rendered code).
ProblemView = Callable[["Family", "Instance", "Trace | None"], "RenderableType"]
# (family, Answer.value) -> how an extracted answer reads; None: the generic rendering.
AnswerView = Callable[["Family", Any], "RenderableType | None"]
# (family, verdict) -> the verdict's diff; None: the generic table.
DiffView = Callable[["Family", "Verdict"], "RenderableType | None"]


@dataclass(frozen=True)
class FamilyView:
    """What a family's TUI module provides; every part optional."""

    problem: ProblemView | None = None
    answer: AnswerView | None = None
    diff: DiffView | None = None
    stepper: type[StepperView] | None = None
    # Whether `problem` reads the trace: only then is the Problem tab drawn again when the trace arrives
    # (drawing a large view twice was a third of `]`).
    problem_uses_trace: bool = False


def module_name(family_id: str) -> str:
    """The module a family's view lives in (ids that are not identifiers map `-` and the like to `_`)."""
    return f"{__name__}.{re.sub(r'[^0-9A-Za-z_]', '_', family_id)}"


def generic_view() -> FamilyView:
    from tui.widgets.diff import generic_answer, generic_diff
    from tui.widgets.problem import generic_problem
    from tui.widgets.steppers.source import SourceStepper

    return FamilyView(problem=generic_problem, answer=generic_answer, diff=generic_diff, stepper=SourceStepper)


@functools.cache
def view_for(family_id: str) -> FamilyView:
    """The family's view with the generic parts filled in (every field set)."""
    base = generic_view()
    name = module_name(family_id)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # the module exists but imports something missing: that is a bug to see
            raise
        return base
    view = getattr(module, "VIEW", None)
    if not isinstance(view, FamilyView):
        raise TypeError(f"{name} must define VIEW = FamilyView(...)")
    return replace(base, **{k: v for k, v in vars(view).items() if v is not None})
