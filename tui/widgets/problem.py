"""The Problem tab: the prompt as a model sees it (highlighted), and the generic view of an instance's payload
(a family's own view, if any, is in `tui/families/<id>.py`).

The generic view shows the payload fields: short scalars as a table, code-like strings as highlighted
panels (in the language a field's name says, else the family's `answer_language`), lists of strings as
lists, anything else as a pretty-printed structure. It never shows the ground truth, the meta (where
spoilers live) or a field named like an answer, a spoiler or a hint feature.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.pretty import Pretty
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from core.family import Family
from core.instance import Instance
from core.trace import Prompt, Trace

THEME = "ansi_dark"
BASE_FIELDS = {"id", "family", "params", "seed", "index", "ground_truth", "meta"}
# Fields that would give the answer away, whatever a family calls its payload.
ANSWER_FIELDS = {"answer", "answers", "solution", "solutions", "expected", "expected_answer", "label", "labels",
                 "oracle", "ground_truth", "reference", "gold", "target_answer"}
# A field name word that names a language (a pygments lexer).
LANGUAGE_WORDS = {
    "python": "python", "py": "python", "haskell": "haskell", "hs": "haskell", "java": "java", "c": "c",
    "cpp": "cpp", "acsl": "c", "ocaml": "ocaml", "coq": "coq", "lean": "lean", "rust": "rust", "go": "go",
    "js": "javascript", "javascript": "javascript", "sql": "sql", "json": "json", "yaml": "yaml",
}
# A field name word that says "this is code" (in the family's answer language when nothing else says).
CODE_WORDS = {"code", "source", "src", "program", "programs", "snippet", "snippets", "body", "function",
              "functions", "definition", "definitions", "context", "dependencies", "deps", "signature",
              "signatures", "prelude", "header", "contract", "spec", "specs", "module", "class", "method",
              "file", "files", "imports", "annotations", "declarations", "template"}
SCALAR_CHARS = 120  # a longer single-line string gets a panel of its own
LIST_ITEMS = 200
TEXT_CHARS = 20_000


def prompt_renderable(prompt: Prompt) -> RenderableType:
    parts: list[RenderableType] = []
    for message in prompt.messages:
        role = message.get("role", "?")
        body = Syntax(message.get("content", ""), "markdown", theme=THEME, word_wrap=True)
        parts.append(Panel(body, title=role, title_align="left",
                           border_style="cyan" if role == "system" else "green"))
    if prompt.completion:
        parts.append(Panel(Syntax(prompt.completion, "markdown", theme=THEME, word_wrap=True),
                           title="completion-style prompt", title_align="left", border_style="dim"))
    return Group(*parts)


def hidden_fields(family: Family | None) -> set[str]:
    """Payload fields the problem view never shows: the answer, a spoiler, and a hint feature (imports'
    `library`: a model's prompt does not name it; the header shows it to a researcher not answering)."""
    if family is None:
        return BASE_FIELDS | ANSWER_FIELDS
    return BASE_FIELDS | ANSWER_FIELDS | set(family.spoiler_features) | set(family.hint_features)


def language_for(field: str, family: Family | None) -> str | None:
    """The language a field's text is in: a language its name says (`java_code`, `c_source`), else the
    family's answer language for a code-like name (`code`, `dependencies`), else None (plain text)."""
    words = [w for w in re.split(r"[^a-z0-9]+", field.lower()) if w]
    for word in words:
        if word in LANGUAGE_WORDS:
            return LANGUAGE_WORDS[word]
    if any(word in CODE_WORDS for word in words):
        language = family.answer_language if family is not None else "text"
        return language if language and language != "text" else "text"
    return None


def is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float) or (
        isinstance(value, str) and "\n" not in value and len(value) <= SCALAR_CHARS)


def scalar_text(value: Any) -> Text:
    if value is None:
        return Text("—", style="dim")
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, str):
        return Text(value if value else "ε", style="" if value else "dim")
    return Text(str(value))


def clip(text: str, limit: int = TEXT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "\n… (cut)"


def code_panel(text: str, language: str, title: str) -> Panel:
    text = text.rstrip("\n")  # a file's final newline is not a line of its own
    many = "\n" in text
    return Panel(Syntax(clip(text), language, theme=THEME, line_numbers=many, word_wrap=True), title=Text(title),
                 title_align="left", border_style="blue")


def string_list(field: str, items: list[str], language: str | None) -> RenderableType:
    """Strings as a numbered list; code (by the field's name) as highlighted lines or one panel per item."""
    title = f"{field} ({len(items)})"
    if not items:
        return Text.assemble((f"{field}: ", "bold"), ("(none)", "dim"))
    shown = items[:LIST_ITEMS]
    more = Text(f"… {len(items) - LIST_ITEMS} more", style="dim") if len(items) > LIST_ITEMS else None
    if language is not None and language != "text":
        if any("\n" in item for item in shown):
            panels = [code_panel(item, language, f"{field}[{i}]") for i, item in enumerate(shown)]
            return Group(Text(title, style="bold"), *panels, *([more] if more else []))
        return code_panel("\n".join(shown), language, title)
    table = Table(box=box.SIMPLE, show_header=False, pad_edge=False, show_edge=False, title=Text(title),
                  title_justify="left", title_style="bold")
    table.add_column(justify="right", style="dim")
    table.add_column(overflow="fold")
    for i, item in enumerate(shown):
        table.add_row(str(i + 1), Text(item) if item else Text("ε", style="dim"))
    return Group(table, more) if more else table


def field_view(field: str, value: Any, family: Family | None) -> RenderableType:
    language = language_for(field, family)
    if isinstance(value, str):
        return code_panel(value, language or "text", field)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return string_list(field, value, language)
    if isinstance(value, dict) and value and all(is_scalar(v) for v in value.values()):
        table = Table(box=box.SIMPLE_HEAD, title=Text(field), title_justify="left", title_style="bold")
        table.add_column("key", style="bold")
        table.add_column("value", overflow="fold")
        for key, item in value.items():
            table.add_row(Text(str(key)), scalar_text(item))
        return table
    return Panel(Pretty(value, max_length=LIST_ITEMS, max_string=2000, max_depth=8), title=Text(field), title_align="left",
                 border_style="dim")


def generic_problem(family: Family | None, instance: Instance, trace: Trace | None = None) -> RenderableType:
    """The instance's payload fields, never its ground truth, meta or a spoiler."""
    hidden = hidden_fields(family)
    payload = {k: v for k, v in instance.payload().items() if k not in hidden}
    if not payload:
        return Text("(no payload fields: the prompt below is the problem)", style="dim")
    scalars = Table(box=box.SIMPLE_HEAD, show_header=False, pad_edge=False, show_edge=False)
    scalars.add_column(style="bold")
    scalars.add_column(overflow="fold")
    parts: list[RenderableType] = []
    for key, value in payload.items():
        if is_scalar(value) and language_for(key, family) in (None, "text"):
            scalars.add_row(Text(key), scalar_text(value))
        elif isinstance(value, list) and value and all(is_scalar(v) and not isinstance(v, str) for v in value) \
                and len(json.dumps(value)) <= SCALAR_CHARS:
            scalars.add_row(Text(key), Text(", ".join(scalar_text(v).plain for v in value)))
        else:
            parts.append(field_view(key, value, family))
    if scalars.row_count:
        parts.insert(0, scalars)
    return Group(*parts)


def meta_line(instance: Instance, features: tuple[str, ...], values: dict[str, Any]) -> Text:
    text = Text()
    from tui.data import fmt_value

    for key in features:
        text.append(f"{key}=", style="dim")
        text.append(f"{fmt_value(values.get(key))}  ")
    return text
