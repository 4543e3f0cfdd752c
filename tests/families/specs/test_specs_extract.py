"""Extraction: the annotated program from fenced or bare replies; never raises."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from specs_helpers import corpus_instance

from core.families.specs.csyntax import strip_annotations
from core.families.specs.extract import extract

INST = corpus_instance("max_of_two")


def test_last_block_defining_the_function_wins():
    text = (f"The code:\n```c\n{INST.code}```\nAnnotated:\n```c\n{INST.reference()}```\nDone.")
    answer = extract(text, INST)
    assert answer.ok and "/*@" in answer.value["annotated"] and answer.value["annotations"] == 1


def test_bare_reply_with_prose_and_reasoning():
    text = "<think>hmm /*@ ensures \\false; */</think>Sure! " + INST.reference() + "\nHope it helps."
    answer = extract(text, INST)
    assert answer.ok and "\\false" not in answer.value["annotated"]


def test_a_reply_cut_off_while_thinking_is_read_inside_its_unclosed_block():
    draft = "<think>Let me annotate it.\n```c\n" + INST.reference() + "```\nNow let me check the loop"
    answer = extract(draft, INST)
    assert answer.ok and answer.value["annotations"] == 1
    # but an answer given before the reasoning was cut off comes first
    first = "```c\n" + INST.code + "```\n" + draft
    assert extract(first, INST).error == "no_annotations"
    # and a closed block is never read
    assert extract(draft.replace("Now let me", "</think>Could not"), INST).error == "no_code"


def test_layout_and_comments_do_not_count_as_edits():
    squashed = INST.reference().replace("  if (a >= b) {", "  // the larger one\n  if (a>=b){")
    answer = extract("```c\n" + squashed + "```", INST)  # an added #include is an edit
    assert answer.ok, answer.message


def test_annotation_markers_inside_strings_and_comments_are_not_annotations():
    text = INST.code.replace("return b;", 'return b; /* not /*@ an annotation */')
    assert strip_annotations(text) == text
    assert extract("```c\n" + text + "```", INST).error == "no_annotations"


def test_failures_are_typed():
    assert extract("", INST).error == "empty"
    assert extract("no code at all", INST).error == "no_code"
    assert extract("```c\nint other(void) { return 0; }\n```", INST).error == "no_function"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=600))
def test_extract_never_raises(text):
    answer = extract(text, INST)
    assert answer.ok or answer.error
