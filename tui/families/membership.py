"""The membership family's TUI: the graded code and the probe as a tree (Problem), the verdict's decisive
path as a path (not as an expected/got pair), and the stepper: the call tree in evaluation order
(short-circuits marked), the rendered code with the active line (and term) highlighted, and the probe with
the active sub-list highlighted.

Everything here comes through the Family's public methods (the prompt says whether the file's code was
replaced by the rendering of its condition; the ground-truth trace carries that rendering)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group, RenderableType
from rich.measure import Measurement
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from core.family import Family
from core.instance import Instance
from core.trace import Trace
from core.verdict import Verdict
from tui.families import FamilyView
from tui.widgets.diff import diff_table
from tui.widgets.steppers.base import StepperView

WINDOW = 14
PROBE_CHARS = 1500
ACTIVE_STYLE = "bold black on yellow"
LINE_STYLE = "on grey27"  # the active code line's background (the active term on top of it)
MIN_TREE = 40  # narrower than this beside the code: the call tree goes above the code instead
MIN_RIGHT = 40
TREE_NODES = 400
THEME = "ansi_dark"
PATH_LABEL = "decisive path"  # the verifier's DiffRow that explains the result rather than compares


def sublist(probe: Any, path: list[int]) -> Any:
    node = probe
    for i in path:
        if not isinstance(node, list) or i >= len(node):
            return None
        node = node[i]
    return node


def path_label(path: list[int], root: str = "x") -> str:
    return root + "".join(f"[{i}]" for i in path)


def probe_text(probe: Any, path: list[int] | None, limit: int = PROBE_CHARS) -> Text:
    """The probe as Python prints it, the sub-list at `path` highlighted; cut near `limit` characters."""
    text = Text()
    span: list[int] = []
    budget = [limit]

    def walk(node: Any, here: list[int]) -> None:
        if budget[0] <= 0:
            return
        start = len(text)
        if isinstance(node, list):
            text.append("[")
            for k, child in enumerate(node):
                if budget[0] <= 0:
                    text.append("…")
                    break
                if k:
                    text.append(", ")
                walk(child, [*here, k])
            text.append("]")
        else:
            chunk = json.dumps(node)
            text.append(chunk)
            budget[0] -= len(chunk)
        budget[0] -= 2
        if path is not None and here == path:
            span[:] = [start, len(text)]

    walk(probe, [])
    if span:
        text.stylize(ACTIVE_STYLE, span[0], span[1])
    return text


def call_tree(trace: Trace, index: int, window: int = WINDOW) -> Text:
    """The evaluation so far, nested by depth, the active step reversed. Later steps stay hidden (only
    counted) so stepping does not give the result away before the evaluation reaches it. On an answer's
    trace, the step where the execution settles the other value than the answer's is flagged once reached."""
    active = min(index, len(trace.steps) - 1)
    divergence = trace.divergence or {}
    disagree = divergence.get("step") if isinstance(divergence.get("step"), int) else None
    lo, hi = max(0, active - 2 * window), active + 1
    text = Text()
    if lo > 0:
        text.append(f"  … {lo} earlier steps\n", style="dim")
    for step in trace.steps[lo:hi]:
        is_active = step.index == active
        text.append("▶ " if is_active else "  ")
        text.append("│ " * step.depth, style="dim")
        icon = {"call": "→ ", "branch": "? ", "term": "· ", "return": "← "}.get(step.kind, "")
        style = ""
        value = step.data.get("value")
        if step.kind == "return" and value is True:
            style = "green"
        elif step.kind == "return" and value is False:
            style = "red"
        elif step.data.get("error"):
            style = "bold red"
        if step.data.get("short_circuit"):
            style = "yellow"
            icon = "⤼ "
        if is_active:
            style = (style + " reverse bold").strip()
        text.append(icon + step.label, style=style)
        if step.index == disagree:
            said = divergence.get("predicted")
            text.append("\n  " + "│ " * step.depth, style="dim")
            text.append(f"✗ the answer {'(none)' if said is None else said} disagrees here", style="bold magenta")
        text.append("\n")
    if hi < len(trace.steps):
        text.append(f"  … {len(trace.steps) - hi} more steps (n to continue)\n", style="dim")
    text.rstrip()
    return text


def code_syntax(code: str, line: Any, span: Any) -> Syntax:
    """The code with line numbers; the active line on a background bar (padded to the longest line, so the
    bar is one width) and the active term highlighted on it."""
    lines = code.split("\n")
    active = line if isinstance(line, int) and 1 <= line <= len(lines) else None
    longest = max((len(text) for text in lines), default=0)
    if active is not None:
        lines[active - 1] = lines[active - 1].ljust(longest)
    syntax = Syntax("\n".join(lines), "python", theme="ansi_dark", line_numbers=True,
                    highlight_lines={active} if active is not None else None, word_wrap=False)
    if active is not None:
        syntax.stylize_range(LINE_STYLE, (active, 0), (active, longest))
        if isinstance(span, list) and len(span) == 2:
            syntax.stylize_range(ACTIVE_STYLE, (active, int(span[0])), (active, int(span[1])))
    return syntax


def answer_line(trace: Trace) -> Text | None:
    """On an answer's trace: what was submitted, what the execution gives, and the step where they part."""
    meta = trace.meta if isinstance(trace.meta, dict) else {}
    if "answer_ok" not in meta:
        return None  # the ground truth's own trace
    predicted, actual = meta.get("predicted"), meta.get("actual")
    text = Text("submitted answer  ", style="bold")
    text.append("no usable answer" if predicted is None else str(predicted), style="bold magenta")
    text.append("   the execution gives  ", style="bold")
    text.append("an error" if actual is None else str(actual), style="bold green" if actual else "bold red")
    step = (trace.divergence or {}).get("step")
    if meta.get("correct"):
        text.append("   ✓ they agree", style="bold green")
    elif isinstance(step, int):
        text.append(f"   ✗ they disagree at step {step + 1} (the step that settles the result)", style="bold red")
    else:
        text.append("   ✗ they disagree", style="bold red")
    return text


class MembershipStepper(StepperView):
    def render_pair(self, trace: Trace, reference: Trace, index: int) -> RenderableType:
        # An answer is one boolean and its trace is the execution that grades it: the reference's call tree
        # would be the same one again. One call tree at full width, with the answer and the disagreement.
        self.columns = 1
        return self.render_step(trace, index)

    def render_step(self, trace: Trace, index: int) -> RenderableType:
        step = self.step_at(trace, index)
        assert step is not None
        said = answer_line(trace)
        shown = self._render_step(trace, index, step)
        return shown if said is None else Group(said, Text(""), shown)

    def _render_step(self, trace: Trace, index: int, step: Any) -> RenderableType:
        # line numbers refer to the rendering of the condition when the file's code disagrees with it
        code = str(trace.meta.get("rendered_code") or getattr(self.instance, "code", "") or "")
        probe = getattr(self.instance, "probe", None)
        path = step.highlight.get("path")
        path = list(path) if isinstance(path, list) else None
        syntax = code_syntax(code, step.highlight.get("line"), step.highlight.get("span"))

        right: list[RenderableType] = [Text("code", style="bold underline"), syntax, Text("")]
        if path is not None:
            active = sublist(probe, path)
            head = Text("probe ", style="bold underline")
            head.append(f"  active: {path_label(path)}", style="bold yellow")
            right.append(head)
            right.append(probe_text(probe, path))
            if isinstance(active, list) and len(json.dumps(active)) <= 80:
                right.append(Text(f"{path_label(path)} = {json.dumps(active)} (len {len(active)})", style="yellow"))
            elif active is not None and not isinstance(active, list):
                right.append(Text(f"{path_label(path)} = {json.dumps(active)}", style="yellow"))
        left = Group(Text("call tree (evaluation order)", style="bold underline"), call_tree(trace, index))
        # The code at its natural width (never wrapped or squeezed); the call tree takes the rest, or goes
        # above it when the terminal is too narrow for both.
        available = (self.content_size.width or 120) // self.columns - 2 * (self.columns - 1)
        console = self.app.console
        code_width = Measurement.get(console, console.options.update(width=max(available, 1)), syntax).maximum
        right_width = max(code_width, MIN_RIGHT)
        if available - right_width - 2 < MIN_TREE:
            return Group(left, Text(""), *right)
        grid = Table.grid(expand=True, padding=(0, 2))
        grid.add_column(ratio=1)
        grid.add_column(width=right_width)
        grid.add_row(left, Group(*right))
        return grid


# ---- the Problem tab ------------------------------------------------------------------------------
def probe_tree(probe: Any, label: str = "probe") -> Tree:
    """The probe as a tree: lists are nodes (with their index path), numbers are leaves."""
    budget = [TREE_NODES]

    def describe(node: Any, path: str) -> str:
        if isinstance(node, list):
            return f"{path}  list of {len(node)}"
        return f"{path} = {json.dumps(node)}"

    tree = Tree(Text(describe(probe, label), style="bold"))

    def add(node: list[Any], parent: Tree, path: str) -> None:
        for k, child in enumerate(node):
            if budget[0] <= 0:
                parent.add(Text("…", style="dim"))
                return
            budget[0] -= 1
            sub = parent.add(describe(child, f"{path}[{k}]"))
            if isinstance(child, list):
                add(child, sub, f"{path}[{k}]")

    if isinstance(probe, list):
        add(probe, tree, "x")
    return tree


def graded_code(family: Family, instance: Instance, trace: Trace | None) -> str | None:
    """The code that is evaluated and graded: the file's `code`, unless the prompt had to show the rendering
    of the condition instead (then that rendering, from the ground-truth trace; None until it is there)."""
    code = str(getattr(instance, "code", ""))
    try:
        mismatch = bool(getattr(family.prompt(instance, "chat"), "code_mismatch", False))
    except Exception:
        mismatch = False
    if not mismatch:
        return code
    rendered = trace.meta.get("rendered_code") if trace is not None else None
    return str(rendered) if rendered else None


def membership_problem(family: Family, instance: Instance, trace: Trace | None = None) -> RenderableType:
    entry = getattr(instance, "entry", "is_member_0")
    code = graded_code(family, instance, trace)
    parts: list[RenderableType] = [Text(f"Does {entry}(x) return True for the probe x?", style="bold")]
    if code != str(getattr(instance, "code", "")):
        parts.append(Text("the file's `code` differs from its `condition`; shown (and graded) is the condition",
                          style="bold yellow"))
    if code is None:
        parts.append(Text("rendering the condition…", style="dim italic"))
    else:
        parts.append(Panel(Syntax(code, "python", theme=THEME, line_numbers=True), title="code", title_align="left"))
    parts.append(probe_tree(getattr(instance, "probe", None), "x"))
    return Group(*parts)


# ---- the verdict's diff ---------------------------------------------------------------------------
def membership_diff(family: Family, verdict: Verdict) -> RenderableType | None:
    """The answer row as expected/got; the decisive path as what it is: the calls that settle the result
    and the term that decides it (not an "expected" condition against a "got" one)."""
    rows = [row for row in verdict.diff if row.label != PATH_LABEL]
    paths = [row for row in verdict.diff if row.label == PATH_LABEL]
    if not paths:
        return None
    parts: list[RenderableType] = []
    if rows:
        parts.append(diff_table(rows))
    frames = verdict.details.get("decisive_path") if isinstance(verdict.details, dict) else None
    last = frames[-1] if isinstance(frames, list) and frames and isinstance(frames[-1], dict) else {}
    for row in paths:
        text = Text("decisive path  ", style="bold")
        if isinstance(frames, list) and frames:
            text.append(" -> ".join(f"{f.get('function')}({f.get('argument')})" for f in frames
                                    if isinstance(f, dict)))
        else:  # a verdict without its frames: the row says it all
            text.append(row.expected or "—")
        decider = last.get("term_at") or ("no branch" if last and last.get("branch") is None else "")
        if decider:
            text.append("\n  decided by  ", style="bold")
            text.append(str(decider), style="bold yellow")
        result = verdict.expected
        if isinstance(result, bool):
            text.append("\n  so the result is  ", style="bold")
            text.append(str(result), style="bold green" if result else "bold red")
        if row.note and row.note not in verdict.explanation:
            text.append(f"\n  {row.note}", style="italic")
        parts.append(text)
    return Group(*parts)


VIEW = FamilyView(problem=membership_problem, diff=membership_diff, stepper=MembershipStepper,
                  problem_uses_trace=True)
