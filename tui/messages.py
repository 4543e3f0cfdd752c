"""Messages that workers post back to the screens (workers never touch widgets)."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from core.trace import Trace


class TraceReady(Message):
    """A trace to step: the ground truth's, or an attempt's answer (with the reference beside it).
    `instance_id`: whose (the instance view swaps instances in place: a late trace of the last one is dropped)."""

    def __init__(self, trace: Trace | None, source: str, error: str | None = None,
                 instance_id: str | None = None) -> None:
        self.trace = trace
        self.source = source
        self.error = error
        self.instance_id = instance_id
        super().__init__()


class SolveDelta(Message):
    def __init__(self, kind: str, text: str) -> None:
        self.kind = kind
        self.text = text
        super().__init__()


class SolveDone(Message):
    """A finished attempt (an error included) and the trace of its answer."""

    def __init__(self, record: Any, trace: Trace | None) -> None:
        self.record = record
        self.trace = trace
        super().__init__()


class SolveCancelled(Message):
    def __init__(self, spec: str) -> None:
        self.spec = spec
        super().__init__()


class AttemptLoaded(Message):
    """An attempt from History, ready for the Verdict and Step tabs."""

    def __init__(self, attempt: Any, trace: Trace | None, instance_id: str | None = None) -> None:
        self.attempt = attempt
        self.trace = trace
        self.instance_id = instance_id
        super().__init__()


class RunReport(Message):
    """A run's report and its body (metrics, plot, breakdowns) already laid out as text, or why there is none."""

    def __init__(self, run_id: str, done: int, run: dict[str, Any], report: dict[str, Any], body: Any,
                 error: str | None, seconds: float = 0.0) -> None:
        self.run_id = run_id
        self.done = done  # the attempts the report covers
        self.run = run
        self.report = report
        self.body = body
        self.error = error
        self.seconds = seconds  # how long it took to build
        super().__init__()


class RunsPolled(Message):
    """A poll of the runs (`tui.data.RunsPoll`), or why it failed; with `report`, the selected run's
    report read in the same transaction (one moment of the log for the runs table and the metrics)."""

    def __init__(self, poll: Any, error: str | None = None, report: RunReport | None = None) -> None:
        self.poll = poll
        self.error = error
        self.report = report
        super().__init__()


class SummaryReady(Message):
    """Attempts per instance and solver (`LogStore.solver_summary`); None when unchanged since `marker`."""

    def __init__(self, marker: int, summary: Any, error: str | None = None) -> None:
        self.marker = marker
        self.summary = summary
        self.error = error
        super().__init__()
