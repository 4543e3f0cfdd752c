"""Extraction: the annotated program from a reply (code fences, prose around it, reasoning stripped: see
core.extraction).

The block chosen is the last fenced block that defines the task's function (replies often show the
bare program first and the annotated one last); without fences, the text from the first annotation or
declaration on. The code outside the annotations must be the task's code, token for token (layout and
comments aside), and its preprocessor directives exactly the task's (`cpp.directives`, directive lines
inside annotations included: Frama-C preprocesses those too): a reply that edits the code, or adds,
removes or changes a directive (an added `#include` would make gcc and Frama-C read any file), is
reported as `code_modified`, with the first place it differs. Ghost code that declares or calls a
function the program does not define (the C library, the system) is refused as `foreign_ghost_code`
(core.families.specs.ghost).
"""

from __future__ import annotations

import re

from core.extraction import code_fences, split_reasoning
from core.families.specs import ghost
from core.families.specs.cpp import compare_directives
from core.families.specs.csyntax import annotations, compare_code, function_names, parse
from core.verdict import Answer

MAX_REPLY = 200_000
_ANNOT = re.compile(r"/\*@|//@")
_DIGRAPH = re.compile(r"^([ \t]*)%:", re.M)
_START = re.compile(r"^\s*(/\*@|//@|#include|(?:static\s+)?(?:const\s+)?(?:unsigned\s+)?(?:int|void|char|long|short|_Bool)\b)",
                    re.M)


def candidates(text: str) -> list[str]:
    """The programs a reply offers, last one likeliest; the reasoning is not read (but see below)."""
    reply = split_reasoning(text)
    found = _programs(reply.answer)
    if not found and reply.status == "unclosed":
        # Unlike the other families, a reply cut off while thinking (max_tokens) is read inside its
        # unclosed block when it has nothing after it: reasoning models draft the whole annotated
        # program there, and that draft is what the budget bought; it still has to keep the task's code
        # and pass the provers, so this reports what was written instead of a bare "no_code".
        found = _programs(reply.unclosed)
    return found


def _programs(body: str) -> list[str]:
    # an unclosed last fence (a program cut off) is no block; with no other block, it is read as bare code
    blocks = [fence.code for fence in code_fences(body) if fence.closed]
    if blocks:
        return blocks
    starts = [m.start() for m in (_START.search(body), _ANNOT.search(body)) if m is not None]
    if not starts:
        return []
    return [_until_last_function(body[min(starts):])]


def _until_last_function(text: str) -> str:
    """Bare code followed by prose: keep up to the end of the last function definition."""
    tree, data = parse(text)
    ends = [n.end_byte for n in tree.root_node.children if n.type == "function_definition"]
    return data[:max(ends)].decode("utf-8", "replace") if ends else text


def extract(text: str, instance: object = None) -> Answer:
    try:
        return _extract(text, instance)
    except Exception as exc:  # extraction never takes a run down
        return Answer.failure("internal", f"extraction failed: {type(exc).__name__}")


def _extract(text: str, instance: object) -> Answer:
    if not isinstance(text, str):
        return Answer.failure("not_text", f"expected text, got {type(text).__name__}")
    if not text.strip():
        return Answer.failure("empty", "the response is empty")
    if len(text) > MAX_REPLY:
        return Answer.failure("too_long", f"the response is longer than {MAX_REPLY} characters")
    function = getattr(instance, "function", None)
    code = getattr(instance, "code", None)
    blocks = candidates(text)
    if not blocks:
        return Answer.failure("no_code", "the response contains no C program (no code block, no declaration)")
    chosen = None
    for block in reversed(blocks):
        # `%:` (the digraph of `#`) and line splicing defeat tree-sitter: undo both to find the function
        if function is None or function in function_names(_DIGRAPH.sub(r"\1#", block.replace("\\\n", ""))):
            chosen = block
            break
    if chosen is None:
        return Answer.failure("no_function", f"no code block in the response defines `{function}`")
    chosen = chosen.replace("\r\n", "\n").strip("\n") + "\n"
    found = annotations(chosen)
    if not found:
        return Answer.failure("no_annotations", "the program in the response has no ACSL annotations "
                                                "(/*@ ... */ or //@ ...)", annotated=chosen)
    if isinstance(code, str):
        changed = compare_directives(code, chosen)
        if changed is not None:
            where = f"line {changed.got_line}" if changed.got_line else "the end"
            return Answer.failure(
                "code_modified",
                f"the reply changes the program's preprocessor directives: the task's "
                f"{'line ' + str(changed.expected_line) if changed.expected_line else 'program'} has "
                f"`{changed.expected}` where the reply's {where} has `{changed.got}`",
                annotated=chosen, expected_line=changed.expected_line, got_line=changed.got_line,
                expected_token=changed.expected, got_token=changed.got)
        diff = compare_code(code, chosen)
        if not diff.same:
            return Answer.failure(
                "code_modified",
                f"the reply changes the program outside the annotations: the task's line {diff.expected_line} has "
                f"`{diff.expected}` where the reply's line {diff.got_line} has `{diff.got}`",
                annotated=chosen, expected_line=diff.expected_line, got_line=diff.got_line,
                expected_token=diff.expected, got_token=diff.got)
        foreign = ghost.check(code, chosen)
        if foreign:
            return Answer.failure("foreign_ghost_code", f"{foreign}: ghost code may use only the program's own "
                                  "functions and its own ghost variables", annotated=chosen)
    return Answer.success({"annotated": chosen, "annotations": len(found)}, blocks=len(blocks))
