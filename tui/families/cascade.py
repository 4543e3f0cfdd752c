"""The cascade family's TUI: the examples table (Problem), an answer's programs one per line, and the
stepper: rule by rule, every example's string before and after, the active rule marked, where the rule
matched (before) and what it wrote (after) highlighted, and whether the target is reached."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from core.family import Family
from core.instance import Instance
from core.trace import Trace
from tui.families import FamilyView
from tui.widgets.steppers.base import StepperView

MATCH_STYLE = "bold yellow underline"
WRITE_STYLE = "bold black on green"


def show(text: str) -> str:
    """Strings as they are, but an empty one visible."""
    return text if text else "ε"


def matches(text: str, lhs: str | None) -> list[tuple[int, int]]:
    """Where `str.replace(lhs, …)` matches: non-overlapping occurrences, left to right."""
    spans: list[tuple[int, int]] = []
    if not lhs:
        return spans
    hit = text.find(lhs)
    while hit >= 0:
        spans.append((hit, hit + len(lhs)))
        hit = text.find(lhs, hit + len(lhs))
    return spans


def styled(text: str, spans: list[Any], style: str) -> Text:
    out = Text(show(text))
    if text:
        for span in spans:
            start, end = int(span[0]), int(span[1])
            if end > start:
                out.stylize(style, start, end)
    return out


def rules_panel(trace: Trace, active: int | None) -> Text:
    text = Text()
    rules = [s for s in trace.steps if s.kind == "rule"]
    if not rules:
        return Text("(no rules: the identity cascade)", style="dim")
    for step in rules:
        i = int(step.data.get("index", step.index - 1))
        source = str(step.data.get("source") or step.label)
        valid = step.data.get("valid", True)
        if active is not None and i == active:
            text.append(f"▶ {i + 1:>2}. {source}", style="bold reverse")
        else:
            done = active is not None and i < active
            style = "" if done else "dim"
            if not valid:
                style += " red strike"
            text.append(f"  {i + 1:>2}. {source}", style=style.strip())
        if not valid:
            text.append(f"  (invalid: {step.data.get('error')})", style="red")
        text.append("\n")
    text.rstrip()
    return text


class CascadeStepper(StepperView):
    def render_step(self, trace: Trace, index: int) -> RenderableType:
        step = self.step_at(trace, index)
        assert step is not None
        data = step.data
        active = int(data["index"]) if step.kind == "rule" and "index" in data else None
        rule = data.get("rule") if active is not None else None
        lhs = rule[0] if isinstance(rule, list | tuple) and rule else None
        befores: list[str] = list(data.get("before") or [])
        afters: list[str] = list(data.get("after") or befores)
        spans: list[Any] = list(data.get("spans") or [[] for _ in afters])
        changed: list[bool] = list(data.get("changed") or [False] * len(afters))
        outputs: list[str] = list(getattr(self.instance, "outputs", []) or [])
        finished = index >= len(trace.steps)

        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, expand=False)
        table.add_column("#", justify="right", style="dim")
        if active is not None:
            table.add_column("before")
        table.add_column("after" if active is not None else "string")
        table.add_column("target")
        for e, after in enumerate(afters):
            cells: list[Text | str] = [str(e + 1)]
            if active is not None:
                before = befores[e] if e < len(befores) else ""
                cells.append(styled(before, matches(before, lhs), MATCH_STYLE))
            after_text = styled(after, spans[e] if e < len(spans) else [], WRITE_STYLE)
            if e < len(changed) and changed[e]:
                after_text.append(" •", style="green")
            cells.append(after_text)
            target = outputs[e] if e < len(outputs) else ""
            reached = after == target
            cells.append(Text(("✓ " if reached else "  ") + show(target), style="green" if reached else "dim"))
            table.add_row(*cells)
        parts: list[RenderableType] = [
            Text("cascade", style="bold underline"),
            rules_panel(trace, active),
            Text(""),
            table,
        ]
        if finished:
            parts.append(Text("(this cascade has no more rules)", style="dim italic"))
        if step.data.get("all_match") is not None and (index >= len(trace.steps) - 1):
            ok = bool(step.data.get("all_match"))
            parts.append(Text("all outputs reached" if ok else "not every output is reached",
                              style="bold green" if ok else "bold red"))
        return Group(*parts)


def cascade_problem(family: Family, instance: Instance, trace: Trace | None = None) -> RenderableType:
    inputs = list(getattr(instance, "inputs", []))
    outputs = list(getattr(instance, "outputs", []))
    table = Table(title="examples", box=box.SIMPLE_HEAD, title_justify="left", title_style="bold")
    table.add_column("#", justify="right", style="dim")
    table.add_column("input")
    table.add_column("")
    table.add_column("output")
    for i, (src, dst) in enumerate(zip(inputs, outputs, strict=False)):
        table.add_row(str(i + 1), Text(src) if src else Text("ε", style="dim"), "→",
                      Text(dst) if dst else Text("ε", style="dim"))
    max_programs = getattr(instance, "max_programs", None)
    note = Text(f"at most {max_programs()} rules are evaluated", style="dim") if callable(max_programs) else Text("")
    return Group(table, note)


def cascade_answer(family: Family, value: Any) -> Text | None:
    """The programs of the last code block, one per line, invalid ones marked."""
    block = value.get("last") if isinstance(value, dict) else None
    programs = block.get("programs") if isinstance(block, dict) else value if isinstance(value, list) else None
    if not isinstance(programs, list):
        return None
    text = Text()
    for i, program in enumerate(programs):
        if isinstance(program, dict):
            source = str(program.get("source") or f"replace({program.get('lhs')!r}, {program.get('rhs')!r})")
            valid = program.get("valid", True)
        else:
            source, valid = str(program), True
        text.append(f"{i + 1:>2}. {source}", style="" if valid else "red strike")
        if not valid:
            text.append(f"  (invalid: {program.get('error')})", style="red")
        text.append("\n")
    text.rstrip()
    return text if programs else Text("(no programs: the identity cascade)", style="dim")


VIEW = FamilyView(problem=cascade_problem, answer=cascade_answer, stepper=CascadeStepper)
