"""The generic source stepper: any trace, for families without a stepper of their own.

Per step: the focused document syntax-highlighted (pygments through rich's Syntax, the lexer named by
`Document.language`), the focus span marked (its lines on a bar, the columns on top; several lines with
`line_end`), the state table (name, value, status coloured) and the step list nested by depth. A trace
without documents or state still shows its steps, their readable lines and their data as fields.
"""

from __future__ import annotations

import json
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from core.trace import Document, Focus, StateRow, Trace, TraceStep
from tui.widgets.fold import Folded, pieces
from tui.widgets.steppers.base import ACTIVE_MARK, StepperView

WINDOW = 12  # steps listed either side of the active one
DOC_LINES = 40  # a longer document shows this many lines around the focus
DOC_CONTEXT = 10  # lines kept above the focus in a long document
STATE_ROWS = 200
VALUE_CHARS = 2000
WIDE = 110  # at least this wide (one trace): the document beside the state and steps
THEME = "ansi_dark"
LINE_STYLE = "on grey27"  # the focused lines' bar
SPAN_STYLE = "bold black on yellow"  # the focused columns
POINTER = "❱"  # rich's Syntax marks highlighted lines with it (the scroll follows it)
STATUS_STYLES = {
    "new": "bold cyan", "changed": "bold yellow", "kept": "dim", "ok": "bold green", "fail": "bold red",
    "unknown": "magenta", "pending": "italic dim",
}


DISAGREE = "✗ first disagreement with the reference"


def step_list(trace: Trace, index: int, window: int = WINDOW) -> Text:
    """Steps around the active one, indented by depth; the active step reversed, later steps dim; the
    step where an answer's trace first parts from its reference (`divergence`) flagged."""
    active = min(index, len(trace.steps) - 1)
    split = (trace.divergence or {}).get("step")
    lo, hi = max(0, active - window), min(len(trace.steps), active + window + 1)
    text = Text()
    if lo > 0:
        text.append(f"  … {lo} earlier steps\n", style="dim")
    for at in range(lo, hi):
        step = trace.steps[at]
        is_active = at == active
        style = "reverse bold" if is_active else ("dim" if at > active else "")
        if step.data.get("short_circuit"):
            style += " yellow"
        text.append(f"{ACTIVE_MARK} " if is_active else "  ")
        text.append("│ " * step.depth, style="dim")
        if at == split:  # before the label, so a long label wrapping never pushes it out of sight
            text.append(f"{DISAGREE}: ", style="bold magenta")
        text.append(step.label, style=style.strip())
        text.append("\n")
    if hi < len(trace.steps):
        text.append(f"  … {len(trace.steps) - hi} more steps\n", style="dim")
    text.rstrip()
    return text


def focus_at(trace: Trace, index: int) -> tuple[Document | None, Focus | None]:
    """The document to show at step `index` and the span to mark: the step's own focus; without one, the
    document an earlier step focused (unmarked), else the first document."""
    if not trace.steps:
        return (trace.documents[0] if trace.documents else None), None
    at = min(index, len(trace.steps) - 1)
    focus = trace.steps[at].focus
    if focus is not None:
        return trace.document(focus.document), focus
    for step in reversed(trace.steps[:at]):
        if step.focus is not None:
            return trace.document(step.focus.document), None
    return (trace.documents[0] if trace.documents else None), None


def document_view(doc: Document, focus: Focus | None) -> Syntax:
    """The document with line numbers, highlighted in its language; the focus lines on a bar (with the
    pointer in the gutter) and the focus columns marked. A long document shows a window around the focus."""
    lines = doc.text.split("\n")
    n = len(lines)
    first = last = None
    if focus is not None and 1 <= focus.line <= n:
        first = focus.line
        last = max(first, min(focus.line_end or first, n))
    start, end = 1, n
    if n > DOC_LINES:
        anchor = first or 1
        start = max(1, anchor - DOC_CONTEXT)
        end = min(n, max(start + DOC_LINES - 1, (last or anchor) + 2))
    syntax = Syntax(doc.text, doc.language or "text", theme=THEME, line_numbers=True, word_wrap=True,
                    line_range=(start, end) if (start, end) != (1, n) else None,
                    highlight_lines=set(range(first, last + 1)) if first and last else None)
    if first is None or last is None or focus is None:
        return syntax
    for line in range(first, last + 1):
        syntax.stylize_range(LINE_STYLE, (line, 0), (line, max(1, len(lines[line - 1]))))
    if focus.col_start is not None or focus.col_end is not None:
        col_start = min(focus.col_start or 0, len(lines[first - 1]))
        col_end = focus.col_end if focus.col_end is not None else len(lines[last - 1])
        col_end = min(col_end, len(lines[last - 1]))
        if (last, col_end) > (first, col_start):
            syntax.stylize_range(SPAN_STYLE, (first, col_start), (last, col_end))
    return syntax


def focus_label(doc: Document | None, focus: Focus | None) -> Text:
    text = Text()
    if doc is None:
        return text
    text.append(doc.name, style="bold underline")
    text.append(f"  ({doc.language})", style="dim")
    if focus is not None:
        where = f"line {focus.line}"
        if focus.line_end and focus.line_end != focus.line:
            where = f"lines {focus.line}-{focus.line_end}"
        if focus.col_start is not None or focus.col_end is not None:
            where += f", columns {focus.col_start or 0}-{'end' if focus.col_end is None else focus.col_end}"
        text.append(f"  at {where}", style="yellow")
    return text


def clip(value: str, limit: int = VALUE_CHARS) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


class StateView:
    """A step's state rows: name, value, status side by side when the width gives the value column its
    longest part (a dotted name's class name, a word); otherwise each row stacked, the value on its
    own lines below its name and status. Values fold at spaces and dots (`tui.widgets.fold`)."""

    GAP = 3  # padding either side and the box's divider

    def __init__(self, rows: list[StateRow]) -> None:
        self.rows = rows[:STATE_ROWS]
        self.more = len(rows) - len(self.rows)

    def value(self, row: StateRow) -> Folded:
        style = STATUS_STYLES.get(row.status, "")
        return Folded(Text(clip(row.value), style=style if row.status in ("fail", "ok") else ""))

    def side_by_side_width(self) -> int:
        name = max((cell_len(row.name) for row in self.rows), default=4)  # Rich keeps a short column whole
        value = max((cell_len(p) for row in self.rows for line in clip(row.value).split("\n")
                     for p in pieces(line)), default=5)
        status = max((cell_len(row.status) for row in self.rows), default=6)
        return max(name, 4) + max(value, 5) + max(status, 6) + 2 * self.GAP

    def table(self) -> Table:
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, expand=False, title="state",
                      title_justify="left", title_style="bold")
        table.add_column("name", style="bold", overflow="fold")
        table.add_column("value", overflow="fold")
        table.add_column("status")
        for row in self.rows:
            table.add_row(Folded(Text(row.name)), self.value(row),
                          Text(row.status, style=STATUS_STYLES.get(row.status, "")))
        if self.more > 0:
            table.add_row(Text(f"… {self.more} more rows", style="dim"), "", "")
        return table

    def stacked(self) -> Group:
        parts: list[RenderableType] = [Text("state", style="bold")]
        for row in self.rows:
            head = Text.assemble((row.name, "bold"), "  ", (row.status, STATUS_STYLES.get(row.status, "")))
            value = Table.grid(padding=(0, 0, 0, 2))
            value.add_column()
            value.add_row(self.value(row))
            parts += [Folded(head), value]
        if self.more > 0:
            parts.append(Text(f"… {self.more} more rows", style="dim"))
        return Group(*parts)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table() if options.max_width >= self.side_by_side_width() else self.stacked()


def state_table(rows: list[StateRow]) -> StateView:
    return StateView(rows)


def data_table(data: dict[str, Any]) -> Table:
    """A step's payload as fields (for traces that carry neither documents nor state)."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, title="step data", title_justify="left",
                  title_style="bold")
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in data.items():
        shown = value if isinstance(value, str) else json.dumps(value, default=str)
        table.add_row(Text(str(key)), Folded(Text(clip(shown, 400))))
    return table


class SourceStepper(StepperView):
    def is_active_row(self, text: str) -> bool:
        # With a document the focus line (rich's pointer) is what must stay in sight; else the step row.
        return POINTER in text or super().is_active_row(text)

    def render_step(self, trace: Trace, index: int) -> RenderableType:
        step = self.step_at(trace, index)
        doc, focus = focus_at(trace, index)
        source: list[RenderableType] = []
        if doc is not None:
            source += [focus_label(doc, focus), document_view(doc, focus)]
        elif step is not None and step.focus is not None:
            source.append(Text(f"(the focus names a document this trace does not carry: {step.focus.document})",
                               style="dim italic"))
        side = self.side_parts(step, with_data=doc is None)
        steps = [Text("steps", style="bold underline"), Folded(step_list(trace, index))]
        width = self.content_size.width or 120
        if self.columns == 1 and source and width >= WIDE:
            grid = Table.grid(expand=True, padding=(0, 2))
            grid.add_column(ratio=3)
            grid.add_column(ratio=2)
            grid.add_row(Group(*source), Group(*side, *steps))
            return grid
        return Group(*source, *side, *steps)

    def render_pair(self, trace: Trace, reference: Trace, index: int) -> RenderableType:
        """An answer beside its reference over one document (a function's code, a snippet): the
        document once, across the whole width, with the answer's focus (the reference's line named), then
        the two sides' state and steps in two columns. Different documents: each side whole."""
        doc, focus = focus_at(trace, index)
        ref_doc, ref_focus = focus_at(reference, index)
        if doc is None or ref_doc is None or doc.text != ref_doc.text:
            return super().render_pair(trace, reference, index)
        label = focus_label(doc, focus)
        label.append("  (the answer's step)", style="magenta")
        if ref_focus is not None and (focus is None or ref_focus.line != focus.line):
            label.append(f"  reference at line {ref_focus.line}", style="green")
        grid = Table.grid(expand=True, padding=(0, 2))
        grid.add_column(ratio=1)
        grid.add_column(ratio=1)
        grid.add_row(Text(f"Submitted — {trace.title}", style="bold magenta"),
                     Text(f"Reference — {reference.title}", style="bold green"))
        sides = []
        for side_trace in (trace, reference):
            step = self.step_at(side_trace, index)
            sides.append(Group(*self.side_parts(step, with_data=False), Text("steps", style="bold underline"),
                               Folded(step_list(side_trace, index))))
        grid.add_row(*sides)
        return Group(label, document_view(doc, focus), Text(""), grid)

    @staticmethod
    def side_parts(step: TraceStep | None, with_data: bool) -> list[RenderableType]:
        parts: list[RenderableType] = []
        if step is None:
            return parts
        if step.lines:
            parts.append(Folded(Text("\n".join(step.lines))))
        if step.state:
            parts.append(state_table(step.state))
        elif with_data and step.data and not step.lines:
            parts.append(data_table(step.data))
        return parts
