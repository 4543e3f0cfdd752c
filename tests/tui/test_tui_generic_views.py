"""The generic views a family without a TUI module gets: the Problem tab's payload fields and the source
stepper's document with its focus span, state table and step list (rendered with rich, no app needed)."""

from __future__ import annotations

import io
from typing import Any, ClassVar, Literal

from rich.console import Console, RenderableType

from core.family import Family
from core.instance import Instance
from core.trace import Document, Focus, StateRow, Trace, TraceStep
from tui.widgets.diff import generic_answer
from tui.widgets.problem import generic_problem, language_for
from tui.widgets.steppers.source import (
    LINE_STYLE,
    SPAN_STYLE,
    STATUS_STYLES,
    document_view,
    focus_at,
    step_list,
)


class CodeFamily(Family):  # never registered: only its class attributes are read
    id = "codefam"
    answer_language = "haskell"
    spoiler_features: ClassVar[tuple[str, ...]] = ("secret",)


class CodeInstance(Instance):
    family: Literal["codefam"] = "codefam"
    code: str
    dependencies: list[str]
    java_snippet: str
    steps_allowed: int
    hints: list[str]
    secret: str
    answer: str
    extra: dict[str, Any]


def text_of(renderable: RenderableType, width: int = 100) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system="truecolor")
    console.print(renderable)
    return console.export_text()


def test_generic_problem_shows_payload_never_the_answer() -> None:
    instance = CodeInstance(
        code="f x = x\ng = f 1", dependencies=["map :: (a -> b) -> [a] -> [b]", "id :: a -> a"],
        java_snippet="class A {}", steps_allowed=3, hints=["look at g", "and at f"], secret="THE-SPOILER",
        answer="THE-ANSWER", extra={"k": "v"}, ground_truth={"type": "GROUND-TRUTH"}, meta={"secret": "META-SPOILER"})
    shown = text_of(generic_problem(CodeFamily(), instance))
    for hidden in ("THE-SPOILER", "THE-ANSWER", "GROUND-TRUTH", "META-SPOILER"):
        assert hidden not in shown
    assert "f x = x" in shown and "g = f 1" in shown and "class A {}" in shown
    assert "map :: (a -> b) -> [a] -> [b]" in shown and "steps_allowed" in shown
    assert "look at g" in shown and "and at f" in shown and "hints (2)" in shown  # a list of strings, as a list
    # the language each field is highlighted in: named by the field, else the family's answer language
    assert language_for("java_snippet", CodeFamily()) == "java"
    assert language_for("code", CodeFamily()) == "haskell"
    assert language_for("dependencies", CodeFamily()) == "haskell"
    assert language_for("hints", CodeFamily()) is None


def test_document_view_marks_the_focus_span() -> None:
    doc = Document(name="main.c", language="c", text="int f(int x) {\n  return x + 1;\n}\n")
    console = Console(width=80, file=io.StringIO(), color_system="truecolor")
    one = console.render_lines(document_view(doc, Focus(document="main.c", line=2, col_start=9, col_end=14)),
                               console.options, pad=False)
    span_bg = console.get_style(SPAN_STYLE).bgcolor
    line_bg = console.get_style(LINE_STYLE).bgcolor
    marked = "".join(s.text for s in one[1] if s.style and s.style.bgcolor == span_bg)
    assert marked == "x + 1" and "❱" in "".join(s.text for s in one[1])
    assert any(s.style and s.style.bgcolor == line_bg for s in one[1])
    assert not any(s.style and s.style.bgcolor in (span_bg, line_bg) for s in one[0])
    # several lines (line_end), from a column on the first to a column on the last
    many = console.render_lines(document_view(doc, Focus(document="main.c", line=1, col_start=4, col_end=8,
                                                         line_end=2)), console.options, pad=False)
    first = "".join(s.text for s in many[0] if s.style and s.style.bgcolor == span_bg)
    second = "".join(s.text for s in many[1] if s.style and s.style.bgcolor == span_bg)
    assert first.startswith("f(int x) {") and second == "  return"


def test_long_document_shows_a_window_around_the_focus() -> None:
    doc = Document(name="big", language="python", text="\n".join(f"x{i} = {i}" for i in range(1, 501)))
    shown = text_of(document_view(doc, Focus(document="big", line=300)))
    assert "x300 = 300" in shown and "x1 = 1\n" not in shown and "x500" not in shown


def test_focus_without_a_step_focus_keeps_the_last_document() -> None:
    docs = [Document(name="a", text="A"), Document(name="b", text="B")]
    steps = [TraceStep(index=0, kind="k", label="one", focus=Focus(document="b", line=1)),
             TraceStep(index=1, kind="k", label="two")]
    trace = Trace(family="x", instance_id="i", title="t", documents=docs, steps=steps)
    assert focus_at(trace, 0) == (docs[1], steps[0].focus)
    assert focus_at(trace, 1) == (docs[1], None)


def test_step_list_nests_by_depth_and_marks_the_active_step() -> None:
    steps = [TraceStep(index=i, kind="k", label=f"step {i}", depth=d) for i, d in enumerate((0, 1, 2, 1))]
    text = step_list(Trace(family="x", instance_id="i", title="t", steps=steps), 2).plain.splitlines()
    assert text[2] == "▶ │ │ step 2" and text[1] == "  │ step 1" and text[0] == "  step 0"


def test_state_statuses_have_colours_and_answers_read_as_written() -> None:
    assert set(STATUS_STYLES) == {"new", "changed", "kept", "ok", "fail", "unknown", "pending"}
    from tui.widgets.steppers.source import state_table

    shown = text_of(state_table([StateRow(name="t1", value="Int -> Int", status="new"),
                                 StateRow(name="goal 3", value="x >= 0", status="fail")]))
    assert "t1" in shown and "Int -> Int" in shown and "fail" in shown
    assert text_of(generic_answer(None, True)).strip() == "True"
    assert "f :: a -> a" in text_of(generic_answer(CodeFamily(), {"signature": "f :: a -> a"}))
