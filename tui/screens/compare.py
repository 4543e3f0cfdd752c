"""Two attempts on one instance, side by side: the two verdicts, a diff of the two answers' texts, and the
two answers' traces stepped together (`n`/`p` move both) where the family has traces.

Opened from the History tab (mark two attempts with `space`, then `c`). Everything that comes from a reply
is rich Text, never markup.
"""

from __future__ import annotations

import difflib
import io
import json

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Header, Static

from core.family import Family
from core.instance import Instance
from core.trace import Trace
from tui.data import AttemptView
from tui.families import view_for
from tui.screens.base import SembenchScreen
from tui.widgets.footer import Footer
from tui.widgets.steppers import STEP_BINDINGS, StepperView


def plain(renderable: RenderableType, width: int = 100) -> str:
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(renderable)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines()).strip("\n")


def answer_text(family: Family, view: AttemptView) -> str:
    """The text to diff: the extracted answer as the family's view reads it (else its value, JSON for a
    structured one), or the raw reply when nothing was extracted."""
    answer = view.answer
    if answer is not None and getattr(answer, "ok", False):
        value = answer.value
        try:
            shown = view_for(family.id).answer(family, value)  # type: ignore[misc]
            if shown is not None:
                return plain(shown)
        except Exception:  # a view that cannot read this value: the value itself
            pass
        if isinstance(value, str):
            return value
        try:
            return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(value)
    return view.response or ""


def answer_diff(a: str, b: str) -> Text:
    """A line diff of two answers: `-` only in A (red), `+` only in B (green), shared lines dim."""
    if a == b:
        return Text("the two answers are the same text", style="bold green")
    text = Text()
    for line in difflib.ndiff(a.splitlines(), b.splitlines()):
        tag = line[:2]
        if tag == "? ":
            continue  # ndiff's intraline hints: noise beside the coloured lines
        style = {"- ": "red", "+ ": "green"}.get(tag, "dim")
        text.append(line + "\n", style=style)
    text.rstrip()
    return text


def verdict_text(view: AttemptView) -> Text:
    text = Text()
    text.append(view.title, style="bold")
    if view.error:
        text.append(f"  error ({view.error_kind})", style="bold red")
        text.append(f"\n{view.error}", style="red")
        return text
    text.append("  ✓ correct" if view.correct else "  ✗ incorrect", style="bold green" if view.correct else "bold red")
    verdict = view.verdict
    if verdict is not None:
        text.append(f" · {verdict.status} · score {verdict.score:.3f}", style="dim")
        if verdict.explanation:
            text.append(f"\n{verdict.explanation}", style="italic")
    return text


class TracesReady(Message):
    def __init__(self, traces: tuple[Trace | None, Trace | None]) -> None:
        super().__init__()
        self.traces = traces


class CompareScreen(SembenchScreen):
    """Attempt A (left) and attempt B (right) of one instance."""

    DEFAULT_CSS = """
    CompareScreen #compare-top { height: auto; }
    CompareScreen #compare-verdicts { height: auto; }
    CompareScreen #compare-steppers { height: auto; }
    CompareScreen #compare-steppers > StepperView { width: 1fr; }
    """

    BINDINGS = [
        Binding("escape", "back", "Back"),
        *STEP_BINDINGS,
    ]

    def __init__(self, family: Family, instance: Instance, a: AttemptView, b: AttemptView) -> None:
        super().__init__()
        self.family = family
        self.instance = instance
        self.a = a
        self.b = b
        self.view = view_for(family.id)

    def compose(self) -> ComposeResult:
        yield Header()
        title = Text.assemble((f"{self.family.id} ", "bold magenta"), (f"{self.instance.id}  ", "bold"),
                              ("comparing two attempts", "dim"))
        yield Static(title, id="compare-title")
        with VerticalScroll(id="compare-scroll"):
            yield Static(self._top(), id="compare-top")
            yield Static(Text("Computing the traces…", style="dim italic"), id="compare-trace-note")
            with Horizontal(id="compare-steppers"):
                assert self.view.stepper is not None
                yield self.view.stepper(self.instance, family=self.family, id="stepper-a")
                yield self.view.stepper(self.instance, family=self.family, id="stepper-b")
        yield Footer()

    def _top(self) -> RenderableType:
        grid = Table.grid(expand=True, padding=(0, 2))
        grid.add_column(ratio=1)
        grid.add_column(ratio=1)
        grid.add_row(Text(f"A — {self.a.title}", style="bold magenta"), Text(f"B — {self.b.title}", style="bold cyan"))
        grid.add_row(verdict_text(self.a), verdict_text(self.b))
        diff = answer_diff(answer_text(self.family, self.a), answer_text(self.family, self.b))
        head = Text("answers: - only in A, + only in B", style="bold underline")
        return Group(grid, Text(""), head, diff, Text(""))

    def on_mount(self) -> None:
        self.compute_traces()

    @property
    def steppers(self) -> list[StepperView]:
        return [self.query_one("#stepper-a", StepperView), self.query_one("#stepper-b", StepperView)]

    @work(thread=True, group="compare-trace", exit_on_error=False)
    def compute_traces(self) -> None:
        traces: list[Trace | None] = []
        for view in (self.a, self.b):
            trace = None
            if view.answer is not None:
                try:
                    trace = self.family.trace(self.instance, view.answer)
                except Exception:
                    trace = None
            traces.append(trace)
        self.post_message(TracesReady((traces[0], traces[1])))

    def on_traces_ready(self, message: TracesReady) -> None:
        note = Text()
        for stepper, trace, label in zip(self.steppers, message.traces, ("A", "B"), strict=True):
            if trace is None:
                note.append(f"{label}: no trace for this answer.  ", style="yellow")
                continue
            # Each side is the answer alone: the two answers, not each beside the truth, are compared.
            stepper.show(trace.model_copy(update={"reference": None}), f"{label}'s answer")
        if not note:
            note.append("the two answers' traces, stepped together: n/p next/prev · g/G first/last", style="dim")
        self.query_one("#compare-trace-note", Static).update(note)

    def action_step(self, how: str) -> None:
        for stepper in self.steppers:
            {"next": stepper.next, "previous": stepper.previous, "first": stepper.first, "last": stepper.last}[how]()

    def action_back(self) -> None:
        self.app.pop_screen()

