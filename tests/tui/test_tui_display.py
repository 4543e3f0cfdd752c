"""The workbench shows exactly the text that was verified, for every registered family.

Each family's first kit instance is opened in the real app on a temporary log database; a human answer
holding Rich markup look-alikes is pasted and sent, and the Solve, Verdict and History tabs must show it
character for character (Rich never reads it as markup)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import DataTable, Select, TextArea

from core.family import Family, all_families
from tests.kit.pilot import render_text, settle
from tests.kit.test_tui_kit import kit_log, require_tools
from tui.screens.instance import InstanceScreen

SIZE = (160, 60)
# Every shape Rich markup would eat or act on: a tag, a style, a closing tag, a link and a backslash escape.
MARKUP = r"[a] [bold] [/] [link=x] \[k] \ "
TYPE_MARKUP = "[a] -> [bold]"  # a Haskell type that is also markup


def reply_for(family_id: str, instance: Any) -> tuple[str, list[str]]:
    """(a reply holding MARKUP that the family extracts an answer from, the texts the extracted answer
    section must show as they are)."""
    if family_id == "cascade":
        return ('```python\ns = s.replace("[a]", "[bold]")\ns = s.replace("[/]", "[link=x]")\n```\n' + MARKUP,
                ['replace("[a]", "[bold]")', 'replace("[/]", "[link=x]")'])
    if family_id == "typeinf":
        name = instance.name
        return f"{MARKUP}\n\n{name} :: {TYPE_MARKUP}\n", [f"{name} :: {TYPE_MARKUP}", TYPE_MARKUP]
    if family_id == "specs":
        code = instance.code.strip("\n")
        return (f"{MARKUP}\n```c\n/*@ requires a[k] == 0; [link=x] */\n{code}\n```\n",
                ["a[k] == 0; [link=x]"])
    if family_id == "imports":
        return f"{MARKUP}\n```java\nimport java.util.Map;\n```\n", ["java.util.Map"]
    return f"{MARKUP}\nTrue\n", []


async def whole_verdict(app, pilot, screen: InstanceScreen) -> str:
    """The Verdict tab as read top to bottom (scrolled to its end when it is longer than the screen)."""
    top = render_text(app)
    screen.query_one("#verdict-scroll").scroll_end(animate=False)
    await pilot.pause()
    bottom = render_text(app)
    screen.query_one("#verdict-scroll").scroll_home(animate=False)
    await pilot.pause()
    return top + "\n" + bottom


def extracted(screen: str) -> str:
    """The Verdict tab's extracted answer section."""
    return screen.split("extracted answer", 1)[-1].split("raw response", 1)[0]


async def open_on(app, snapshot: str, instance_id: str, pilot, tab: str = "solve") -> InstanceScreen:
    await settle(pilot)
    app.open_instance(snapshot, instance_id, tab=tab)
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, InstanceScreen)
    return screen


async def send_human(pilot, screen: InstanceScreen, text: str) -> None:
    solver = screen.query_one("#solver", Select)
    solver.value = "human"
    await pilot.pause()
    editor = screen.query_one("#human-answer", TextArea)
    editor.focus()
    editor.select_all()
    pilot.app.post_message(events.Paste(text))  # as a terminal delivers a paste
    await pilot.pause()
    await pilot.press("ctrl+s")
    await settle(pilot)


@pytest.fixture
def quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for var in ("SEMBENCH_CONFIG", "OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY",
                "OLLAMA_HOST", "SEMBENCH_DB"):
        monkeypatch.delenv(var, raising=False)


# The display and template tests read verdicts: the app's workspace keeps the session's tool cache
# (tests/conftest.py), so the specs reference's WP run is read when another test ran it first.
@pytest.mark.parametrize("family_id", sorted(all_families()))
async def test_answer_text_is_never_markup(family_id: str, tmp_path: Path, quiet,
                                           session_tool_cache_everywhere) -> None:
    from tui.app import SembenchApp

    family = all_families()[family_id]
    require_tools(family)
    log, snapshot, instances = kit_log(tmp_path, family)
    instance = instances[0]
    reply, wanted = reply_for(family_id, instance)
    app = SembenchApp(db=log, snapshots=tmp_path / "none.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_on(app, snapshot, instance.id, pilot)
        await send_human(pilot, screen, reply)
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert len(rows) == 1 and rows[0]["response"] == reply
        # Solve: the reply as sent
        await pilot.press("3")
        solve = render_text(app)
        assert MARKUP.strip() in solve, f"Solve tab lost the reply:\n{solve}"
        # Verdict: the extracted answer and the raw reply
        await pilot.press("4")
        verdict = await whole_verdict(app, pilot, screen)
        assert MARKUP.strip() in verdict, f"Verdict tab lost the reply:\n{verdict}"
        for text in wanted:
            assert text in extracted(verdict), f"Verdict tab lost {text!r}:\n{verdict}"
        # History: the attempt, re-opened in Verdict
        await pilot.press("5")
        history = screen.query_one("#history-table", DataTable)
        history.focus()
        await pilot.press("enter")
        await settle(pilot)
        again = await whole_verdict(app, pilot, screen)
        assert MARKUP.strip() in again
        for text in wanted:
            assert text in extracted(again), f"the attempt opened from History lost {text!r}:\n{again}"


async def test_divergence_reads_as_a_sentence(tmp_path: Path, quiet) -> None:
    """Where an answer and the truth part is a sentence, never `step=…, reason=…`."""
    from tui.app import SembenchApp

    family = all_families()["membership"]
    log, snapshot, instances = kit_log(tmp_path, family)
    instance = instances[0]
    wrong = "False" if instance.ground_truth["answer"] else "True"
    app = SembenchApp(db=log, snapshots=tmp_path / "none.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_on(app, snapshot, instance.id, pilot)
        await send_human(pilot, screen, wrong)
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert rows[0]["correct"] == 0, rows[0]["status"]
        await pilot.press("2")
        assert screen.showing == "answer"
        text = render_text(app)
        assert "The answer and the ground truth first disagree at step" in text, text
        assert f"the answer says {wrong}" in text
        assert "step=" not in text and "reason=" not in text and "predicted=" not in text


def type_keys(text: str) -> list[str]:
    """The keys a person presses to type `text`."""
    return ["enter" if ch == "\n" else ch for ch in text]


def no_loop(instance: Any) -> bool:
    return not re.search(r"\b(for|while|do)\b", getattr(instance, "code", ""))


def keystrokes(family: Family, instance: Any, template: str) -> list[str]:
    """The ground truth typed into the family's template as a person would: the part the template leaves
    open, line by line, moving with the arrow and End keys."""
    fid = family.id
    if fid == "cascade":
        rules = re.findall(r'^s = s\.replace\("(.*)", "(.*)"\)$', family.oracle_response(instance), re.M)
        keys = type_keys(rules[0][0]) + ["right"] * 4 + type_keys(rules[0][1])
        for lhs, rhs in rules[1:]:
            keys += ["end", "enter", *type_keys(f's = s.replace("{lhs}", "{rhs}")')]
        return keys
    if fid == "typeinf":
        return type_keys(instance.ground_truth["signature"].split(" :: ", 1)[1])
    if fid == "imports":
        first, *rest = instance.ground_truth["imports"]
        keys = type_keys(first)
        for fqn in rest:
            keys += ["end", "enter", *type_keys(f"import {fqn};")]
        return keys
    if fid == "specs":
        contract = instance.ground_truth["contract"]
        return type_keys(contract[len("/*@ "):contract.index("\n*/")])
    if fid == "membership":
        return type_keys(str(bool(instance.ground_truth["answer"])))
    oracle = family.oracle_response(instance)
    assert oracle.startswith(template), f"no keystrokes known for {fid}"
    return type_keys(oracle[len(template):])


@pytest.mark.parametrize("family_id", sorted(all_families()))
async def test_template_plus_ground_truth_verifies(family_id: str, tmp_path: Path, quiet,
                                                   session_tool_cache_everywhere) -> None:
    """The human editor's template (the task's program for specs, the function's name for
    typeinf, the cursor inside the fence on the line to edit) plus the ground truth typed as a person
    would is a correct answer, through the real app."""
    from tui.app import SembenchApp

    family = all_families()[family_id]
    require_tools(family)
    log, snapshot, instances = kit_log(tmp_path, family)
    instance = next((i for i in instances if no_loop(i)), instances[0]) if family_id == "specs" else instances[0]
    app = SembenchApp(db=log, snapshots=tmp_path / "none.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_on(app, snapshot, instance.id, pilot)
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        editor = screen.query_one("#human-answer", TextArea)
        assert app.focused is editor
        template = editor.text
        if "```" in template:  # the cursor starts inside the fence
            row = editor.cursor_location[0]
            fences = [i for i, line in enumerate(template.split("\n")) if line.startswith("```")]
            assert fences[0] < row < fences[-1], (template, editor.cursor_location)
        if family_id == "typeinf":
            assert template.startswith(f"{instance.name} :: ") or template.startswith(f"({instance.name}) :: ")
        if family_id == "specs":
            assert instance.code.strip() in template and template.startswith("```c\n")
        await pilot.press(*keystrokes(family, instance, template))
        await pilot.press("ctrl+s")
        await settle(pilot)
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert len(rows) == 1 and rows[0]["solver"] == "human"
        assert rows[0]["correct"] == 1, (rows[0]["status"], rows[0]["response"], rows[0]["error"])


@pytest.mark.javac
async def test_imports_compile_errors_on_the_snippets_lines(tmp_path: Path, quiet) -> None:
    """javac's errors (the imports prepended) are shown on the snippet's own lines, marked on its
    code in Verdict and Step, each diagnostic whole (`symbol:`, `location:`)."""
    from tui.app import SembenchApp

    family = all_families()["imports"]
    require_tools(family)
    log, snapshot, instances = kit_log(tmp_path, family)
    instance = next(i for i in instances if len(i.ground_truth["imports"]) >= 3)
    kept, dropped = instance.ground_truth["imports"][1:], instance.ground_truth["imports"][0]
    name = dropped.rsplit(".", 1)[-1]
    code_lines = instance.code.split("\n")
    line = next(n for n, text in enumerate(code_lines, start=1) if re.search(rf"\b{name}\b", text))
    reply = "```java\n" + "".join(f"import {fqn};\n" for fqn in kept) + "```\n"
    app = SembenchApp(db=log, snapshots=tmp_path / "none.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_on(app, snapshot, instance.id, pilot)
        await send_human(pilot, screen, reply)
        await pilot.press("4")
        text = render_text(app)
        assert f"line {line}: cannot find symbol (symbol: class {name}" in text, text
        assert f"{line:>4} │ {code_lines[line - 1]}" in text  # the code, marked
        assert f"symbol:   class {name}" in text and "location: class" in text
        await pilot.press("2")
        trace = screen.stepper.trace
        assert trace is not None and trace.steps[-1].kind == "compile"
        assert trace.steps[-1].focus is not None and trace.steps[-1].focus.line == line
        await pilot.press("G")
        assert f"line {line}: cannot find symbol" in render_text(app)
