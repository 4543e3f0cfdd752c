"""The shared reply helpers: reasoning apart from the answer, fenced code blocks with a language filter."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.extraction import code_fences, split_reasoning
from core.models.think import split_think


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


@given(st.lists(st.sampled_from(["<think>", "</think>", "a", "b ", "\n", "<", "think>"]), max_size=30))
def test_answer_agrees_with_the_streaming_splitter(parts: list[str]) -> None:
    text = "".join(parts)
    ours = split_reasoning(text)
    if "</think>" not in text.lower() or "<think>" in text.lower().split("</think>")[0]:
        # without a stray close tag, the streaming splitter (which keeps stray tags) says the same
        streamed, _ = split_think(text)
        assert ours.answer.strip() == streamed.strip() or "</think>" in streamed


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


def test_a_fence_glued_to_the_last_line_closes_it() -> None:
    assert [f.code for f in code_fences("```python\ns = s.replace('a', 'b')```\nafter")] == ["s = s.replace('a', 'b')"]


@given(st.text(alphabet="`~ \npyth\na", max_size=200))
def test_fences_never_raise(text: str) -> None:
    for fence in code_fences(text):
        assert fence.code in text or not fence.closed or "`" in text
