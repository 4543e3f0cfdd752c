"""The verdict and its diff: expected vs got row by row, the differing parts marked, the explanation.

The extracted answer and the diff are drawn by the family's view when it has its own (`tui.families`),
else by the generic ones here."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from core.verdict import Verdict
from tui.data import AttemptView, fmt_seconds
from tui.widgets.fold import Folded, pieces

if TYPE_CHECKING:
    from core.family import Family
    from tui.families import FamilyView

EXPECTED_STYLE = "bold black on green"
GOT_STYLE = "bold white on red"
RESPONSE_CHARS = 4000
ANSWER_CHARS = 600


def marked(text: str, spans: list[Any], style: str) -> Text:
    out = Text(text if text else "ε", style="" if text else "dim")
    for span in spans:
        try:
            start, end = int(span[0]), int(span[1])
        except (TypeError, ValueError, IndexError):
            continue
        if end > start and text:
            out.stylize(style, start, min(end, len(text)))
    return out


class DiffTable:
    """`Verdict.diff` (DiffRow list): ✓/✗, where, expected, got, note. Expected and got fold at spaces and
    dots (`tui.widgets.fold`), so a qualified name keeps its parts whole. When the width cannot give
    expected and got each their longest part side by side (80 columns, an import's class name), every row
    is stacked instead: where, then expected, got and note each on a line of the whole width."""

    GAP = 3  # padding either side and the box's divider

    def __init__(self, rows: list[Any]) -> None:
        self.rows = rows
        self.notes = any(row.note for row in rows)

    def side_by_side_width(self) -> int:
        """The narrowest width at which no part of an expected or got value has to be cut."""
        longest = max((cell_len(p) for row in self.rows for value in (row.expected, row.got)
                       for line in (value or "ε").split("\n") for p in pieces(line)), default=1)
        where = max((cell_len(row.label) for row in self.rows), default=5)
        note = max((cell_len(p) for row in self.rows for p in pieces(row.note or "")), default=0)
        longest = max(longest, 8)
        if self.notes:  # expected, got and note share the rest equally
            return 1 + max(where, 5) + max(2 * longest + max(note, 4), 3 * longest) + self.GAP * 4
        return 1 + max(where, 5) + 2 * longest + self.GAP * 3

    def cells(self, row: Any) -> tuple[Text, Folded, Folded]:
        mark = Text("✓", style="green") if row.ok else Text("✗", style="bold red")
        return (mark, Folded(marked(row.expected, row.expected_spans, EXPECTED_STYLE)),
                Folded(marked(row.got, row.got_spans, GOT_STYLE)))

    def table(self) -> Table:
        table = Table(box=box.SIMPLE_HEAD, expand=True, show_edge=False, pad_edge=False)
        table.add_column("", width=1)
        table.add_column("where", style="bold", no_wrap=True)
        table.add_column("expected", ratio=2)
        table.add_column("got", ratio=2)
        if self.notes:  # without any note the column would only take width from expected and got
            table.add_column("note", ratio=2, style="italic")
        for row in self.rows:
            mark, expected, got = self.cells(row)
            table.add_row(mark, Text(row.label), expected, got, *([Text(row.note or "")] if self.notes else []))
        return table

    def stacked(self) -> Table:
        grid = Table.grid(padding=(0, 1), expand=True)
        grid.add_column(width=1)
        grid.add_column(style="dim", no_wrap=True)
        grid.add_column(ratio=1)
        for k, row in enumerate(self.rows):
            mark, expected, got = self.cells(row)
            if k:
                grid.add_row("", "", "")
            grid.add_row(mark, "where", Folded(Text(row.label, style="bold")))
            grid.add_row("", "expected", expected)
            grid.add_row("", "got", got)
            if row.note:
                grid.add_row("", "note", Folded(Text(row.note, style="italic")))
        return grid

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        fits = options.max_width >= self.side_by_side_width()
        yield self.table() if fits else self.stacked()


def diff_table(rows: list[Any]) -> DiffTable:
    return DiffTable(rows)


def generic_answer(family: Family | None, value: Any) -> RenderableType:
    """An extracted answer's value: text in the family's answer language, fields as a table, else compact
    JSON (cut)."""
    language = family.answer_language if family is not None else "text"
    if isinstance(value, str):
        if language and language != "text":
            # numbered: a verdict that cites "line 2" of the answer is read beside it
            return Syntax(value[:ANSWER_CHARS], language, theme="ansi_dark", word_wrap=True,
                          line_numbers="\n" in value.strip())
        return Text(value[:ANSWER_CHARS])
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        table = Table(box=box.SIMPLE, show_header=False, pad_edge=False, show_edge=False)
        table.add_column(style="bold")
        table.add_column(overflow="fold")
        for key, item in value.items():
            shown = item if isinstance(item, str) else json.dumps(item, default=str)
            # Text, never a str: a table reads a str as markup, and `[a]` in a type or `a[k]` in a contract
            # would vanish as a tag
            table.add_row(Text(key), Folded(Text(shown[:ANSWER_CHARS] + ("…" if len(shown) > ANSWER_CHARS else ""))))
        return table
    if value is None or isinstance(value, bool | int | float):
        return Text(str(value))  # True reads as the answer was written, not as JSON's true
    blob = json.dumps(value, default=str)
    return Text(blob if len(blob) <= ANSWER_CHARS else blob[:ANSWER_CHARS] + "…")


def generic_diff(family: Family | None, verdict: Verdict) -> RenderableType:
    return diff_table(verdict.diff)


def answer_text(answer: Any, family: Family | None = None, view: FamilyView | None = None) -> RenderableType:
    if answer is None:
        return Text("no answer extracted", style="dim")
    if not answer.ok:
        return Text(f"extraction failed ({answer.error}): {answer.message}", style="red")
    if view is not None and view.answer is not None and view.answer is not generic_answer:
        try:
            shown = view.answer(family, answer.value)
        except Exception:  # a view that does not understand this value: the generic rendering
            shown = None
        if shown is not None:
            return shown
    return generic_answer(family, answer.value)


def diff_renderable(verdict: Verdict, family: Family | None = None, view: FamilyView | None = None) -> RenderableType:
    if view is not None and view.diff is not None and view.diff is not generic_diff:
        try:
            shown = view.diff(family, verdict)
        except Exception:
            shown = None
        if shown is not None:
            return shown
    return generic_diff(family, verdict)


def verdict_renderable(attempt: AttemptView | None, family: Family | None = None,
                       view: FamilyView | None = None) -> RenderableType:
    if attempt is None:
        return Text("No verdict yet: solve this instance (Solve tab) or open an attempt from History.",
                    style="dim italic")
    verdict = attempt.verdict
    head = Text()
    if attempt.error:
        head.append(" ERROR ", style="bold white on red")
    elif verdict is not None and verdict.correct:
        head.append(" ✓ CORRECT ", style="bold black on green")
    else:
        head.append(" ✗ INCORRECT ", style="bold white on red")
    head.append(f"  {attempt.title}", style="bold")
    if verdict is not None:
        head.append(f"   status {verdict.status} · score {verdict.score:.3f}")
    elif attempt.status:
        head.append(f"   status {attempt.status}")
    meta = Text(style="dim")
    if attempt.human_time_s is not None:
        meta.append(f"human time {fmt_seconds(attempt.human_time_s)}")
    elif attempt.elapsed_s is not None:
        meta.append(f"solver time {fmt_seconds(attempt.elapsed_s)}")
    parts: list[RenderableType] = [head, meta]
    if attempt.pending:
        parts.append(Text(attempt.pending, style="italic yellow"))
    if attempt.error:
        parts.append(Panel(Text(attempt.error), title=Text(f"error ({attempt.error_kind or 'unknown'})"),
                           border_style="red", title_align="left"))
    if verdict is not None:
        if verdict.explanation:
            parts.append(Panel(Text(verdict.explanation), title="why", border_style="blue", title_align="left"))
        if verdict.diff:
            parts.append(Text("diff: expected vs got (differing parts marked)", style="bold underline"))
            parts.append(diff_renderable(verdict, family, view))
    if attempt.reasoning:
        reasoning = attempt.reasoning
        if len(reasoning) > RESPONSE_CHARS:
            reasoning = reasoning[:RESPONSE_CHARS] + "\n… (cut)"
        parts.append(Panel(Text(reasoning, style="italic"), title="model reasoning", border_style="magenta",
                           title_align="left"))
    parts.append(Text("extracted answer", style="bold underline"))
    parts.append(answer_text(attempt.answer, family, view))
    if attempt.response:
        shown = attempt.response
        if len(shown) > RESPONSE_CHARS:
            shown = shown[:RESPONSE_CHARS] + "\n… (cut)"
        parts.append(Panel(Syntax(shown, "markdown", theme="ansi_dark", word_wrap=True),
                           title="raw response", border_style="dim", title_align="left"))
    return Group(*parts)
