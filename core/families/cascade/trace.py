"""Traces for the stepper: every example's string after each rule, with where the rule fired.

Step 0 (kind "start") holds the inputs; step t (kind "rule") is after rule t (labels count rules from 1,
`highlight["rule"]` and `data["index"]` are 0-based indices into the cascade). Rule step data:
    {"index", "rule": [lhs, rhs] | None, "source", "valid", "error",
     "before": [...], "after": [...], "changed": [bool per example],
     "spans": [[[s, e], ...] per example]}
`spans` are [s, e) ranges in the AFTER strings where the rule's rhs was written, one per occurrence of lhs
(a deletion is the empty range [s, s] at the point where lhs was). An invalid rule is the identity: no
spans, nothing changed. The last step also carries "match" (per example: equals the output) and
"all_match".

Each step's `state` rows (what `Trace.to_text` prints under it, and the generic stepper's table) are the
examples, numbered from 1, as Python literals with each written span in brackets, e.g.
`example 1 = "dbebc" -> "[jf]ebc"  (changed)` (a deletion is an empty `[]` where lhs was; brackets are
markup there, not characters of the string), status "changed" or "kept"; on the last step "ok" or "fail"
against the expected output.

For an answer, the trace is of its cascade (last code block, first K programs), `reference` is the ground
truth's trace, and `divergence` says where the answer first parts from the ground truth:

- Every example's reference path is the set of strings the ground-truth cascade takes it through
  (input, after rule 1, ..., output). Comparing sets rather than step t with step t lets a cascade that
  merges, splits or reorders rules stay "on the path" as long as it only produces strings the reference
  produces too.
- kind "left_path": the first step t (smallest t, then smallest example) at which an example's string
  is not on its reference path. `reference_step` is the furthest reference step the example had reached
  before (its string at t-1), `reference_next` the string the reference makes next.
- kind "stopped_short": the answer never leaves the paths but some final string is not the output (it
  stopped early); reported at the last step for the first such example.
- None when every example stays on its path and ends at its output (or there is no ground truth).
Indices: `example` and `rule` are 0-based (into the inputs and the cascade, like data/highlight);
`example_no` and `rule_no` are the 1-based numbers people read, the ones the step labels, the lines and
the `note` use (`rule_no` is None at step 0: no rule has run). `step` is the step index (= rule_no).
Other cascades can be correct too (a different route to the same outputs), so this is a guide to read the
trace by, not the verdict.

For the generic stepper each trace has one document, the cascade it steps through written one program per
line (`s = s.replace("a", "b")`, an invalid program as written with a comment), and every step focuses
its program's line (step 0 the first line). An instance without a ground truth (real sound-law data) has
no reference: its trace's meta says so (`no_reference`).
"""

from __future__ import annotations

from typing import Any

from core.families.cascade.model import CascadeInstance
from core.families.cascade.prompt import py_literal
from core.families.cascade.verify import Program, apply_capped, block_programs, length_limit
from core.trace import Document, Focus, StateRow, Trace, TraceStep
from core.verdict import Answer

DIVERGENCE_NOTE = "other cascades can be correct too, so this is a guide, not the verdict"
NO_REFERENCE = "no reference: the instance has no ground-truth cascade"
DOCUMENT = "cascade"
MAX_STATE_ROWS = 60  # examples shown in a step's state table (all of them in every released file)


def trace(instance: CascadeInstance, answer: Answer | None = None) -> Trace:
    truth = instance.cascade()
    truth_programs = [Program(lhs, rhs, bool(lhs), None if lhs else "empty_lhs", _render(lhs, rhs))
                      for lhs, rhs in truth] if truth is not None else None
    reference = build(instance, truth_programs or [], "ground truth")
    if truth_programs is None:
        reference.meta["note"] = "the instance has no ground-truth cascade"
        reference.meta["no_reference"] = NO_REFERENCE
    if answer is None:
        return reference
    programs = (block_programs(answer, "last", instance) or [])[: instance.max_programs()]
    title = "answer (last code block)" if answer.ok else "answer (no code block: the identity)"
    result = build(instance, programs, title)
    if truth_programs is not None:
        result.reference = reference
        result.divergence = divergence(instance, result, reference)
    else:
        result.meta["no_reference"] = NO_REFERENCE
    return result


def build(instance: CascadeInstance, programs: list[Program], what: str) -> Trace:
    limit = length_limit(instance)
    current = list(instance.inputs)
    n = len(current)
    document = Document(name=DOCUMENT, language="python", text=program_document(programs))
    steps = [TraceStep(index=0, kind="start", label=f"start: {n} inputs",
                       data={"before": current, "after": current, "changed": [False] * n,
                             "spans": [[] for _ in current]},
                       focus=Focus(document=DOCUMENT, line=1),
                       state=[StateRow(name=f"example {e + 1}", value=py_literal(text), status="kept")
                              for e, text in enumerate(current[:MAX_STATE_ROWS])])]
    for i, program in enumerate(programs):
        after: list[str] = []
        spans: list[list[list[int]]] = []
        for text in current:
            new, where = _apply(text, program, limit)
            after.append(new)
            spans.append(where)
        label = f"rule {i + 1}: {program.source}"
        if not program.valid:
            label = f"rule {i + 1}: identity (invalid: {program.error}) {program.source}"
        data = {
            "index": i,
            "rule": [program.lhs, program.rhs] if program.valid else None,
            "source": program.source,
            "valid": program.valid,
            "error": program.error,
            "before": current,
            "after": after,
            "changed": [a != b for a, b in zip(current, after, strict=True)],
            "spans": spans,
        }
        state = [StateRow(name=f"example {e + 1}", value=f"{py_literal(b)} -> {marked(a, where)}", status="changed")
                 if a != b else StateRow(name=f"example {e + 1}", value=py_literal(b), status="kept")
                 for e, (b, a, where) in enumerate(zip(current[:MAX_STATE_ROWS], after, spans, strict=False))]
        steps.append(TraceStep(index=i + 1, kind="rule", label=label, data=data,
                               highlight={"rule": i, "spans": spans}, state=state,
                               focus=Focus(document=DOCUMENT, line=i + 1)))
        current = after
    match = [a == b for a, b in zip(current, instance.outputs, strict=True)]
    steps[-1].data.update({"match": match, "all_match": all(match)})
    steps[-1].highlight["match"] = match
    # the last step's rows also say whether each output is the expected one
    steps[-1].state = [row.model_copy(update={"status": "ok" if match[e] else "fail",
                                              "value": row.value if match[e] else
                                              f"{row.value} (expected {py_literal(instance.outputs[e])})"})
                       for e, row in enumerate(steps[-1].state)]
    title = f"{instance.id or 'instance'}: {what}, {len(programs)} rules, {sum(match)} of {n} outputs match"
    meta = {"outputs_match": match, "correct": all(match), "rules": len(programs)}
    return Trace(family="cascade", instance_id=instance.id, title=title, documents=[document], steps=steps,
                 meta=meta)


def program_document(programs: list[Program]) -> str:
    """The cascade as code, one program per line (the lines the steps focus)."""
    lines = []
    for program in programs:
        if program.valid and program.lhs is not None and program.rhs is not None:
            lines.append(f"s = s.replace({py_literal(program.lhs)}, {py_literal(program.rhs)})")
        else:
            lines.append(f"# invalid ({program.error}), the identity: {program.source}")
    return "\n".join(lines) or "# no programs: the identity cascade"
def _apply(text: str, program: Program, limit: int) -> tuple[str, list[list[int]]]:
    """The string after one rule and the spans (in it) where the rule's rhs was written."""
    if not program.valid or not program.lhs or program.rhs is None:
        return text, []
    lhs, rhs = program.lhs, program.rhs
    new, cut = apply_capped(text, lhs, rhs, limit)
    spans: list[list[int]] = []
    shift = len(rhs) - len(lhs)
    hit = text.find(lhs)
    while hit >= 0:
        start = hit + len(spans) * shift  # earlier occurrences moved this one by `shift` each
        if cut and start >= len(new):
            break  # beyond the cut of an overflowing string
        spans.append([start, min(start + len(rhs), len(new))])
        hit = text.find(lhs, hit + len(lhs))
    return new, spans


def marked(text: str, spans: list[list[int]]) -> str:
    """`text` as a Python literal with each [s, e) span bracketed: "dbebc" -> "[jf]ebc"."""
    parts: list[str] = []
    pos = 0
    for start, end in spans:
        start = max(start, pos)  # spans are sorted and disjoint; this only guards the slicing
        end = max(end, start)
        parts.extend((_escaped(text[pos:start]), "[", _escaped(text[start:end]), "]"))
        pos = end
    parts.append(_escaped(text[pos:]))
    return '"' + "".join(parts) + '"'


def _escaped(text: str) -> str:
    return py_literal(text)[1:-1]


def divergence(instance: CascadeInstance, answer: Trace, reference: Trace) -> dict[str, Any] | None:
    """Where the answer first leaves the ground truth's paths (definition in the module docstring)."""
    paths = [[step.data["after"][e] for step in reference.steps] for e in range(len(instance.inputs))]
    furthest = [{s: t for t, s in enumerate(path)} for path in paths]  # string -> last reference step
    for step in answer.steps[1:]:
        for e, string in enumerate(step.data["after"]):
            if string in furthest[e]:
                continue
            at = furthest[e].get(step.data["before"][e], 0)
            rule_no = step.data["index"] + 1
            note = (f"rule {rule_no} takes example {e + 1} to {py_literal(string)}, a string the "
                    f"reference never produces; {DIVERGENCE_NOTE}")
            return _divergence("left_path", step.index, e, string, step.data["index"], paths[e], at, note)
    final = answer.steps[-1]
    for e, string in enumerate(final.data["after"]):
        if string != instance.outputs[e]:
            at = furthest[e].get(string, 0)
            rule = final.data.get("index")
            rule_no = rule + 1 if isinstance(rule, int) else None
            when = f"after rule {rule_no}" if rule_no is not None else "with no rule applied"
            note = (f"{when}, example {e + 1} is still on the reference path but only at reference step "
                    f"{at} of {len(paths[e]) - 1}; {DIVERGENCE_NOTE}")
            return _divergence("stopped_short", final.index, e, string, rule, paths[e], at, note)
    return None


def _render(lhs: str, rhs: str) -> str:
    return f"replace({py_literal(lhs)}, {py_literal(rhs)})"


def _divergence(kind: str, step: int, e: int, string: str, rule: int | None, path: list[str], at: int,
                note: str) -> dict[str, Any]:
    """The divergence record: 0-based indices for the UI, 1-based `*_no` for people."""
    return {
        "kind": kind,
        "step": step,
        "example": e,
        "example_no": e + 1,
        "string": string,
        "rule": rule,
        "rule_no": rule + 1 if isinstance(rule, int) else None,
        "reference_step": at,
        "reference_string": path[at],
        "reference_next": path[at + 1] if at + 1 < len(path) else None,
        "note": note,
    }
