"""Steppers: the common widget (`StepperView`) and the generic source stepper every family gets unless
its `tui/families/<id>.py` names its own (see `tui.families.view_for`)."""

from __future__ import annotations

from tui.widgets.steppers.base import STEP_BINDINGS, StepperView
from tui.widgets.steppers.source import SourceStepper

__all__ = ["STEP_BINDINGS", "SourceStepper", "StepperView"]
