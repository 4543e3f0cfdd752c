"""imports: the verdict's diff, then javac's errors marked on the snippet's own lines (the verifier maps
them back from the file with the answer's imports prepended), each diagnostic whole (`symbol:`,
`location:`)."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from core.family import Family
from core.verdict import Verdict
from tui.families import FamilyView
from tui.widgets.diff import GOT_STYLE, diff_table

DIAGNOSTICS = 10


def marked_line(d: dict[str, Any]) -> Text:
    """`  3 │ PriorityQueue q = …` with javac's column (1-based) to the end of its word marked."""
    text = str(d.get("text", ""))
    out = Text(f"{d['line']:>4} │ ", style="dim")
    line = Text(text)
    col = int(d.get("col") or 0) - 1
    if 0 <= col < len(text):
        end = col
        while end < len(text) and (text[end].isalnum() or text[end] in "_$"):
            end += 1
        line.stylize(GOT_STYLE, col, max(end, col + 1))
    out.append_text(line)
    return out


def compile_errors(verdict: Verdict) -> RenderableType | None:
    info = verdict.details.get("compile") if isinstance(verdict.details, dict) else None
    if not isinstance(info, dict) or not info.get("checked") or info.get("ok"):
        return None
    parts: list[RenderableType] = [Text(f"javac: {info.get('errors', '?')} compile error(s) with these imports, "
                                        "on the snippet's own lines", style="bold underline")]
    for d in (info.get("diagnostics") or [])[:DIAGNOSTICS]:
        if d.get("import"):
            parts.append(Text.assemble(("  in the answer's ", "dim"), (str(d["import"]), "bold")))
        elif d.get("text") is not None:
            parts.append(marked_line(d))
        else:
            parts.append(Text(f"line {d.get('line')}", style="dim"))
        for message_line in str(d.get("message", "")).split("\n"):
            parts.append(Text("       " + message_line.strip(), style="red" if message_line.strip() else ""))
    more = int(info.get("errors") or 0) - DIAGNOSTICS
    if more > 0:
        parts.append(Text(f"… {more} more", style="dim"))
    return Group(*parts)


def imports_diff(family: Family, verdict: Verdict) -> RenderableType:
    errors = compile_errors(verdict)
    table = diff_table(verdict.diff)
    return Group(table, Text(""), errors) if errors is not None else table


VIEW = FamilyView(diff=imports_diff)
