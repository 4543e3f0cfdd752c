"""The stepper's common part: a position in a trace, keys, play/pause, and a submitted answer's trace
shown beside the reference. Views (the generic source stepper, a family's own) only say how one step looks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.reactive import reactive
from textual.timer import Timer

from core.instance import Instance
from core.trace import Trace, TraceStep
from tui.widgets.lines import DrawnOnce

if TYPE_CHECKING:
    from core.family import Family

PLAY_INTERVAL_S = 0.6
ACTIVE_MARK = "▶"  # family views start the active step's row with it (the scroll follows that row)
CONTEXT_BELOW = 4  # rows kept in sight under the active one


# The keys that move a stepper, for the screens that show one (the instance's Step tab, the comparison).
STEP_BINDINGS = [
    Binding("n", "step('next')", "Next"),
    Binding("p", "step('previous')", "Prev"),
    Binding("right", "step('next')", "Next", show=False),
    Binding("left", "step('previous')", "Prev", show=False),
    Binding("g", "step('first')", "First"),
    Binding("G", "step('last')", "Last"),
]


class StepperView(DrawnOnce, can_focus=True):
    """Shows step `index` of a trace (and of its reference, when the trace is an answer's)."""

    DEFAULT_CSS = """
    StepperView { height: auto; padding: 0 1; }
    """

    index: reactive[int] = reactive(0)
    playing: reactive[bool] = reactive(False)

    def __init__(self, instance: Instance, *, family: Family | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.instance = instance
        self.family = family
        self.trace: Trace | None = None
        self.source = "ground truth"
        self.columns = 1
        self._timer: Timer | None = None

    # -- data ------------------------------------------------------------------------------------
    def show(self, trace: Trace, source: str = "ground truth") -> None:
        """Step a new trace from its first step."""
        self.trace = trace
        self.source = source
        self.playing = False
        self.set_reactive(StepperView.index, 0)
        self.refresh(layout=True)
        self.call_after_refresh(self.scroll_active_into_view)

    def rebind(self, instance: Instance) -> None:
        """Another instance (the instance view swaps instances in place): nothing to step until its trace
        comes (`show`)."""
        self.instance = instance
        self.trace = None
        self.source = "ground truth"
        self.playing = False
        self.set_reactive(StepperView.index, 0)
        self.refresh(layout=True)

    @property
    def count(self) -> int:
        if self.trace is None:
            return 0
        n = len(self.trace.steps)
        if self.trace.reference is not None:
            n = max(n, len(self.trace.reference.steps))
        return n

    @property
    def at_end(self) -> bool:
        return self.index >= self.count - 1

    # -- moving ----------------------------------------------------------------------------------
    def go(self, index: int) -> None:
        if self.count:
            self.index = max(0, min(index, self.count - 1))

    def next(self) -> None:
        self.go(self.index + 1)

    def previous(self) -> None:
        self.go(self.index - 1)

    def first(self) -> None:
        self.go(0)

    def last(self) -> None:
        self.go(self.count - 1)

    def toggle_play(self) -> None:
        if not self.playing and self.at_end:
            self.first()
        self.playing = not self.playing

    def watch_index(self, index: int) -> None:
        self.refresh(layout=True)
        self.call_after_refresh(self.scroll_active_into_view)

    def active_line(self) -> int | None:
        """The line of this widget's content that holds the active step's row (found by rendering, so it
        is right whatever the layout and wrapping), or None."""
        width = self.content_size.width
        if width <= 0 or self.trace is None:
            return None
        for y, strip in enumerate(self.strips(width)):
            if self.is_active_row(strip.text):
                return y
        return None

    def is_active_row(self, text: str) -> bool:
        """Whether a rendered line is the one to keep in view (views mark it with ACTIVE_MARK)."""
        return text.lstrip().startswith(ACTIVE_MARK)

    def scroll_active_into_view(self) -> None:
        """Scroll the container so the active row is on screen (with a few rows of context below)."""
        parent = self.parent
        if not isinstance(parent, ScrollableContainer) or not self.is_mounted:
            return
        y = self.active_line()
        if y is None:
            return
        at = self.virtual_region.y + self.styles.gutter.top + y
        view = max(1, parent.scrollable_content_region.height)
        # From the top when the active row (and a few after it) fit there: the header stays in sight.
        # Otherwise two rows of context above it.
        top = 0 if at + CONTEXT_BELOW < view else max(0, at - 2)
        bottom = min(at + CONTEXT_BELOW, top + view)
        parent.scroll_to_region(Region(0, top, 1, max(1, bottom - top)), animate=False, immediate=True,
                                x_axis=False)

    def watch_playing(self, playing: bool) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if playing:
            self._timer = self.set_interval(PLAY_INTERVAL_S, self._tick)
        self.refresh(layout=True)

    def _tick(self) -> None:
        if self.at_end:
            self.playing = False
        else:
            self.next()

    # -- rendering -------------------------------------------------------------------------------
    def render(self) -> RenderableType:
        trace = self.trace
        if trace is None:
            return Text("Computing the trace…", style="dim italic")
        if not trace.steps:
            return Text(f"{trace.title}\n(no steps)", style="dim")
        parts: list[RenderableType] = [self.render_header(trace)]
        # how many traces share the width (an answer's beside its reference): family views lay out to it
        self.columns = 2 if trace.reference is not None else 1
        try:
            if trace.reference is not None:
                parts.append(self.render_pair(trace, trace.reference, self.index))
            else:
                parts.append(self.render_step(trace, self.index))
        except Exception as exc:  # a trace this view does not understand is shown as such, not a crash
            parts.append(Text(f"cannot draw step {self.index + 1}: {type(exc).__name__}: {exc}", style="red"))
        if trace.divergence:
            parts.append(self.render_divergence(trace.divergence))
        note = trace.meta.get("note") if isinstance(trace.meta, dict) else None
        if note:
            parts.append(Text(str(note), style="italic dim"))
        return Group(*parts)

    def render_header(self, trace: Trace) -> RenderableType:
        text = Text()
        text.append(f" step {self.index + 1}/{self.count} ", style="bold reverse")
        text.append("  ")
        text.append(("▶ playing" if self.playing else "⏸ paused"), style="bold green" if self.playing else "dim")
        text.append("  ")
        text.append(f"stepping: {self.source}", style="bold")
        step = self.step_at(trace, self.index)
        if step is not None:
            text.append("\n")
            text.append(step.label, style="bold cyan")
        return text

    def render_pair(self, trace: Trace, reference: Trace, index: int) -> RenderableType:
        grid = Table.grid(expand=True, padding=(0, 2))
        grid.add_column(ratio=1)
        grid.add_column(ratio=1)
        grid.add_row(Text(f"Submitted — {trace.title}", style="bold magenta"),
                     Text(f"Reference — {reference.title}", style="bold green"))
        grid.add_row(self.render_step(trace, index), self.render_step(reference, index))
        return grid

    def render_divergence(self, divergence: dict[str, Any]) -> RenderableType:
        text = Text("where they part: ", style="bold yellow")
        text.append(divergence_sentence(divergence))
        return text

    @staticmethod
    def step_at(trace: Trace, index: int) -> TraceStep | None:
        if not trace.steps:
            return None
        return trace.steps[min(index, len(trace.steps) - 1)]

    def render_step(self, trace: Trace, index: int) -> RenderableType:
        """How one step looks. Family views override this."""
        raise NotImplementedError


def divergence_sentence(divergence: dict[str, Any]) -> str:
    """`Trace.divergence` as a sentence a person reads (never `step=15, reason=…`): the step as the
    stepper counts it (from 1), the line, what the answer and the truth say, the reason."""
    note = divergence.get("note")
    if note:
        return str(note)
    rest = dict(divergence)
    step, line = rest.pop("step", None), rest.pop("line", None)
    where = []
    if isinstance(step, int):
        where.append(f"at step {step + 1}")
    if isinstance(line, int):
        where.append(f"on line {line}")
    sentence = "The answer and the ground truth first disagree" + (" " + ", ".join(where) if where else "")
    said = []
    if "predicted" in rest or "actual" in rest:
        predicted, actual = rest.pop("predicted", None), rest.pop("actual", None)
        said.append(f"the answer says {'nothing usable' if predicted is None else predicted}, "
                    f"the execution gives {actual}")
    reason = rest.pop("reason", None) or rest.pop("label", None)
    if reason:
        said.append(str(reason).rstrip("."))
    said += [f"{key.replace('_', ' ')}: {value}" for key, value in rest.items() if value not in (None, "")]
    return sentence + (": " + "; ".join(said) if said else "") + "."
