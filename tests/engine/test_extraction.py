"""The shared reply helpers: reasoning apart from the answer, fenced code blocks with a language filter;
and every family reads replies through them."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import core
from core.extraction import code_fences, split_reasoning
from core.family import Family, get_family
from core.instance import Instance
from core.models.think import split_think
from core.verdict import Answer

FAMILIES_DIR = Path(core.__file__).parent / "families"
FAMILY_IDS = sorted(p.name for p in FAMILIES_DIR.iterdir() if (p / "extract.py").is_file())


def test_think_blocks_are_reasoning() -> None:
    reply = split_reasoning("<think>hmm, 2+2</think>Answer: 4")
    assert (reply.answer, reply.reasoning, reply.status) == ("Answer: 4", "hmm, 2+2", "stripped")


def test_an_unclosed_block_is_reasoning_to_the_end() -> None:
    reply = split_reasoning("Answer: 4 <think>but wait, maybe 5")
    assert reply.answer == "Answer: 4 " and reply.reasoning == "but wait, maybe 5" and reply.status == "unclosed"


def test_a_stray_close_tag_ends_the_reasoning() -> None:
    reply = split_reasoning("I think it is 5.\n</think>\nAnswer: 4")
    assert reply.answer == "\nAnswer: 4" and reply.reasoning == "I think it is 5."


def test_tags_in_any_case() -> None:
    assert split_reasoning("<THINK>x</Think>y").answer == "y"


def test_no_tags_no_change() -> None:
    reply = split_reasoning("plain\ntext")
    assert reply.answer == "plain\ntext" and reply.reasoning == "" and reply.status == "none"


@pytest.mark.parametrize(
    ("text", "kept", "status"),
    [
        ("plain", "plain", "none"),
        ("a<think>b</think>c<think>d</think>e", "ace", "stripped"),
        ("reasoning</think>answer", "answer", "stripped"),
        ("x<think>cut off", "x", "unclosed"),
        ("a</think>b<think>c</think>d</think>e", "e", "stripped"),
        ("a<thinking>b</thinking>c<REASONING>d</Reasoning>e", "ace", "stripped"),
        ("a<think>b</thinking>c</think>d", "ad", "stripped"),  # a block ends only at its own closing tag
        ("a<reasoning>b<think>c</think>d</reasoning>e", "ae", "stripped"),
        ("notes</reasoning>answer", "answer", "stripped"),
        ("a<thinking>cut off", "a", "unclosed"),
        ("<think >, <thin>, <think/>, <\u212athink> are no tags", "<think >, <thin>, <think/>, <\u212athink> are no tags",
         "none"),
        ("<th\u0131nk>x</th\u0131nk>", "<th\u0131nk>x</th\u0131nk>", "none"),  # ASCII case only
    ],
)
def test_answer_and_status(text: str, kept: str, status: str) -> None:
    reply = split_reasoning(text)
    assert (reply.answer, reply.status) == (kept, status)


def test_the_unclosed_block_is_kept_apart() -> None:
    reply = split_reasoning("<think>a</think>answer<Thinking> draft ```c\nint f();")
    assert reply.unclosed == " draft ```c\nint f();" and reply.reasoning == "a\n\ndraft ```c\nint f();"
    assert split_reasoning("<think>a</think>b").unclosed == ""


def test_many_tags_split_in_linear_time() -> None:
    reply = split_reasoning("</think>" * 200_000 + "tail")
    assert (reply.answer, reply.status) == ("tail", "stripped")
    assert split_reasoning("<think></think>x" * 100_000).answer == "x" * 100_000
    assert split_reasoning("<think>" * 200_000).status == "unclosed"


TAG_PIECES = ["<think>", "</think>", "<Thinking>", "</thinking>", "<reasoning>", "</REASONING>", "ing>", "a",
              "b ", "\n", "<", "think>"]
CLOSING_TAG = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)


@given(st.lists(st.sampled_from(TAG_PIECES), max_size=30))
def test_agrees_with_the_streaming_splitter(parts: list[str]) -> None:
    text = "".join(parts)
    ours = split_reasoning(text)
    streamed, reasoning = split_think(text)
    if CLOSING_TAG.search(streamed) is None:
        # without a stray closing tag (which the streaming splitter leaves in the text) both say the same
        assert (ours.answer.strip(), ours.reasoning) == (streamed, reasoning or "")


@given(st.text(max_size=300))
def test_never_raises_and_loses_no_answer_text(text: str) -> None:
    reply = split_reasoning(text)
    assert len(reply.answer) <= len(text)
    if "<think>" not in text.lower() and "</think>" not in text.lower():
        assert reply.answer == text


def test_fences_in_order_with_language_filter() -> None:
    text = "intro\n```python\nx = 1\n```\nthen\n~~~haskell\nf :: Int\n~~~\n```\nplain\n```\n```java\nint a;"
    fences = code_fences(text)
    assert [(f.lang, f.code, f.closed) for f in fences] == [
        ("python", "x = 1", True), ("haskell", "f :: Int", True), ("", "plain", True), ("java", "int a;", False)]
    assert fences[0].line == 3
    assert [f.code for f in code_fences(text, ("haskell", "hs"))] == ["f :: Int"]
    assert [f.code for f in code_fences(text, ("",))] == ["plain"]


def test_fences_report_language_and_line() -> None:
    fences = code_fences("intro\n```Python title\ncode\n```\n~~~~\nmore\n~~~~")
    assert [(f.lang, f.line, f.code) for f in fences] == [("python", 3, "code"), ("", 6, "more")]


def test_a_fence_glued_to_the_last_line_closes_it() -> None:
    assert [f.code for f in code_fences("```python\ns = s.replace('a', 'b')```\nafter")] == ["s = s.replace('a', 'b')"]


@given(st.text(alphabet="`~ \npyth\na", max_size=200))
def test_fences_never_raise(text: str) -> None:
    for fence in code_fences(text):
        assert fence.code in text or not fence.closed or "`" in text


# ---- every family reads replies through these helpers ----------------------------------------------
@cache
def decoy_case(family_id: str) -> tuple[Family, Instance, str, str]:
    """(family, instance, its oracle reply, another instance's oracle reply that reads as another answer)."""
    fam = get_family(family_id)
    name, preset = next(iter(fam.presets().items()))
    params = fam.resolve_params(name)
    inst = fam.generate_one(params, preset.seed, 0)
    right = fam.oracle_response(inst)
    for index in range(1, 12):
        decoy = fam.oracle_response(fam.generate_one(params, preset.seed, index))
        if reading(fam.extract(decoy, inst)) != reading(fam.extract(right, inst)):
            return fam, inst, right, decoy
    raise AssertionError(f"{family_id}: no instance among the first 12 has another answer")


def reading(answer: Answer) -> tuple[bool, str | None, object]:
    return answer.ok, answer.error, answer.value


LAYOUTS = {
    # the real answer right after the tag, so that the lines it reports (cascade's) are those of `right`
    "block_before": "<think>\n{decoy}\n</think>{right}",
    "stray_close": "{decoy}\n</Thinking>{right}",  # the opening tag was in the chat template
    "unclosed_after": "{right}\n<reasoning>\nOn second thought:\n{decoy}",  # cut off while thinking again
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("family_id", FAMILY_IDS)
def test_every_family_drops_a_reasoning_decoy(family_id: str, layout: str) -> None:
    fam, inst, right, decoy = decoy_case(family_id)
    text = LAYOUTS[layout].format(decoy=decoy, right=right)
    assert reading(fam.extract(text, inst)) == reading(fam.extract(right, inst))


def _tag_strings(path: Path) -> list[str]:
    """String literals that look like a reasoning tag or a pattern for one, docstrings aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            low = node.value.lower()
            if ("think" in low or "reasoning" in low) and ("<" in low or ">" in low):
                found.append(node.value)
    return found


def test_no_family_handles_reasoning_tags_itself() -> None:
    assert FAMILY_IDS, "no family found"
    offenders = {}
    for path in sorted(FAMILIES_DIR.rglob("*.py")):
        if path.name != "prompt.py":  # a prompt may well ask for tags; reading them is core.extraction's job
            strings = _tag_strings(path)
            if strings:
                offenders[str(path.relative_to(FAMILIES_DIR))] = strings
    assert offenders == {}
    for family_id in FAMILY_IDS:
        tree = ast.parse((FAMILIES_DIR / family_id / "extract.py").read_text(encoding="utf-8"))
        shared = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                  and node.module == "core.extraction" for alias in node.names}
        assert "split_reasoning" in shared, f"{family_id}/extract.py does not use core.extraction.split_reasoning"
