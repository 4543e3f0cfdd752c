"""The stepper's data: the evaluation as a call tree in true Python order, with `and` short-circuiting.

Step kinds: "call" (function entered with its argument sub-list), "branch" (the `if len(x) == N` taken,
or no branch -> False), "term" (one term of the conjunction with its value; the failing one carries
`short_circuit` and the terms it skips), "return" (the call's value). A call step and its return step
share a depth; the steps inside the call are one deeper. Every step highlights the active line of
`instance.code` (1-based) and the active sub-list of the probe (an index path); term steps also give the
term's column span [start, end) in that line.

For the generic stepper the trace has one document, the code (our rendering of the condition, which the
line numbers refer to); every step focuses its line (and, for a term, the term's columns) and has state
rows (except on returns, whose label says everything): the call being evaluated, the branch taken and
the term's value.

The title carries notes a reader of `sembench trace` must not miss: a trace cut at `max_steps` (its last
step says so too) and an instance whose `code` does not match its `condition` (the condition is traced).
"""

from __future__ import annotations

import json
from typing import Any

from core.families.membership.evaluate import PythonError, type_error_message
from core.families.membership.model import CallTerm, MembershipInstance, function_name, path_text
from core.families.membership.render import Rendered, instance_code_matches, rendered_for, term_text
from core.trace import Document, Focus, StateRow, Trace, TraceStep
from core.verdict import Answer

FAMILY = "membership"
DOCUMENT = "code"
MAX_STEPS = 50_000  # a positive probe with b=3, d=10 has ~10^5 calls; the stepper does not need them all
SHOW_CHARS = 60
MAX_ARGUMENT_CHARS = 400


def short(value: Any, limit: int = SHOW_CHARS) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Recorder:
    def __init__(self, instance: MembershipInstance, rendered: Rendered, max_steps: int) -> None:
        self.condition = instance.condition
        self.layout = rendered.functions
        self.steps: list[TraceStep] = []
        self.max_steps = max_steps
        self.truncated = False
        self.calls = 0
        self.total_steps = 0  # steps the full evaluation has, recorded or not

    def add(self, kind: str, label: str, depth: int, line: int, path: list[int], **data: Any) -> None:
        self.total_steps += 1
        if len(self.steps) >= self.max_steps:
            self.truncated = True
            return
        highlight: dict[str, Any] = {"line": line, "path": list(path)}
        focus = Focus(document=DOCUMENT, line=max(1, line))
        if "span" in data:
            span = list(data.pop("span"))
            highlight["span"] = span
            focus = Focus(document=DOCUMENT, line=max(1, line), col_start=span[0], col_end=span[1])
        call = f"{data.get('function', '?')}({path_text(path[:len(path)])})"
        if kind == "return":  # the step's label says it all: "f(x) returns v"
            self.steps.append(TraceStep(index=len(self.steps), kind=kind, label=label, depth=depth,
                                        data=data, highlight=highlight, focus=focus))
            return
        state = [StateRow(name="call", value=call, status="pending")]
        if data.get("branch") is not None or kind == "branch":
            taken = data.get("length")
            state.append(StateRow(name="branch", value="none" if data.get("branch") is None and kind == "branch"
                                  else f"#{data.get('branch')}" + (f" (len {taken})" if taken is not None else ""),
                                  status="fail" if data.get("branch") is None and kind == "branch" else "kept"))
        if "value" in data:
            value = data.get("value")
            state.append(StateRow(name="value", value=str(value),
                                  status="unknown" if value is None else "ok" if value else "fail"))
        self.steps.append(TraceStep(index=len(self.steps), kind=kind, label=label, depth=depth,
                                    data=data, highlight=highlight, focus=focus, state=state))

    def call(self, fn: int, x: Any, path: list[int], depth: int, parent: int | None) -> bool:
        """Record is_member_fn(x) and return its value (raises PythonError like the Python code would)."""
        self.calls += 1
        call_id = self.calls - 1
        name = function_name(fn)
        arg = path_text(path)
        layout = self.layout[fn]
        common = {"call_id": call_id, "parent": parent, "function": name, "family": fn}
        shown = json.dumps(x)
        # the argument itself rides along when small; big ones are reachable through highlight["path"]
        brief = shown if len(shown) <= SHOW_CHARS else shown[: SHOW_CHARS - 1] + "…"
        self.add("call", f"call {name}({arg}) with {arg} = {brief}", depth, layout.def_line, path,
                 **common, argument=x if len(shown) <= MAX_ARGUMENT_CHARS else None, branch=None)
        if not isinstance(x, list):
            message = type_error_message(x)
            self.add("return", f"{name}({arg}) raises {message}", depth, layout.def_line, path,
                     **common, branch=None, value=None, error=message)
            raise PythonError(message, path)
        hit = self.condition.functions[fn].branch_for(len(x))
        if hit is None:
            self.add("branch", f"len({arg}) = {len(x)}: no branch for this length -> return False", depth + 1,
                     layout.else_line, path, **common, branch=None, length=len(x), value=False)
            self.add("return", f"{name}({arg}) returns False", depth, layout.return_false_line, path,
                     **common, branch=None, value=False)
            return False
        b, branch = hit
        blayout = layout.branches[b]
        kind = "terminal" if branch.terminal else f"{len(branch.calls())} call(s)"
        self.add("branch", f"len({arg}) = {len(x)}: take branch `len(x) == {branch.length}` ({kind})", depth + 1,
                 blayout.if_line, path, **common, branch=b, length=len(x), terminal=branch.terminal)
        result = True
        for t, term in enumerate(branch.terms):
            sub = [*path, term.index]
            element = x[term.index]
            where = term_text(term, arg)
            tdata = {**common, "branch": b, "term": t, "term_text": term_text(term), "term_at": where,
                     "span": blayout.term_spans[t]}
            if isinstance(term, CallTerm):
                try:
                    value = self.call(term.target, element, sub, depth + 1, call_id)
                except PythonError:
                    self.add("return", f"{name}({arg}) raises (from {where})", depth, blayout.res_line, path,
                             **common, branch=b, value=None, error="propagated")
                    raise
                shown = f"({where}) -> {value}"
            else:
                if isinstance(element, list):
                    value = term.op == "!="
                else:
                    value = (element == term.value) == (term.op == "==")
                shown = f"({where}): {path_text(sub)} = {short(element, 30)} -> {value}"
            skipped = [term_text(s, arg) for s in branch.terms[t + 1:]] if not value else []
            if skipped:
                shown += f"; short-circuit skips {', '.join(f'({s})' for s in skipped)}"
            self.add("term", shown, depth + 1, blayout.res_line, sub, **tdata, value=value,
                     short_circuit=bool(skipped), skipped=skipped,
                     **({} if isinstance(term, CallTerm) else {"actual": element}))
            if not value:
                result = False
                break
        self.add("return", f"{name}({arg}) returns {result}", depth, layout.return_res_line, path,
                 **common, branch=b, value=result)
        return result


def decisive_step(steps: list[TraceStep]) -> int | None:
    """The step that settles the result: the first False comparison or missing branch (with `and` only,
    any False reaches the entry), else the first error, else the last term."""
    for step in steps:
        if step.kind == "term" and step.data.get("value") is False and "actual" in step.data:
            return step.index
        if step.kind == "branch" and step.data.get("branch") is None:
            return step.index
        if step.kind == "return" and step.data.get("error") not in (None, "propagated"):
            return step.index
    terms = [s.index for s in steps if s.kind == "term"]
    return terms[-1] if terms else None


def trace(instance: MembershipInstance, answer: Answer | None = None, max_steps: int = MAX_STEPS) -> Trace:
    rendered = rendered_for(instance)
    recorder = _Recorder(instance, rendered, max_steps)
    entry = instance.entry_index()
    value: bool | None
    error: str | None = None
    try:
        value = recorder.call(entry, instance.probe, [], 0, None)
    except PythonError as exc:
        value, error = None, str(exc)
    result = "raises " + error if error else str(value)
    title = (f"{instance.entry}(x) with x = {short(instance.probe)} -> {result} "
             f"({recorder.calls} call(s), {len(recorder.steps)} step(s))")
    meta: dict[str, Any] = {"result": value, "error": error, "entry": instance.entry, "calls": recorder.calls,
                            "steps": len(recorder.steps), "expected": instance.expected_answer()}
    notes: list[str] = []
    if recorder.truncated:
        meta["truncated"] = True
        meta["max_steps"] = max_steps
        meta["total_steps"] = recorder.total_steps
        cut = (f"trace truncated: only the first {len(recorder.steps)} of {recorder.total_steps} steps are shown; "
               f"the result comes from the full evaluation")
        notes.append(cut)
        if recorder.steps:  # the stepper's last step says so too, not only the title
            last = recorder.steps[-1]
            recorder.steps[-1] = last.model_copy(update={"label": f"{last.label}  [{cut}]"})
    if rendered.code != instance.code:
        # Line numbers refer to our rendering of the condition; show that text when the file's differs.
        meta["code_matches"] = False
        meta["rendered_code"] = rendered.code
    if not instance_code_matches(instance):
        # Beyond layout: the file's code says something else. The condition is what is evaluated and graded.
        meta["code_mismatch"] = True
        notes.append("code mismatch: the instance's code does not match its condition; this traces the "
                     "condition (its rendering is in meta.rendered_code)")
    if notes:
        title += "".join(f" [{note}]" for note in notes)
    decisive = decisive_step(recorder.steps)
    meta["decisive_step"] = decisive
    divergence: dict[str, Any] | None = None
    if answer is not None:
        predicted = answer.value if answer.ok and isinstance(answer.value, bool) else None
        correct = predicted is not None and error is None and predicted == value
        meta.update({"predicted": predicted, "actual": value, "correct": correct,
                     "answer_ok": answer.ok, "answer_error": answer.error})
        if not correct:
            said = "no answer" if predicted is None else str(predicted)
            divergence = {"step": decisive, "predicted": predicted, "actual": value,
                          "reason": f"answered {said}, but {instance.entry}(x) "
                                    + (result if error else f"returns {result}")}
    document = Document(name=DOCUMENT, language="python", text=rendered.code)
    # An answer is one boolean: its trace is the evaluation that grades it, told from the answer's side
    # (prediction, divergence at the deciding step); the ground truth's plain evaluation goes beside it.
    reference = trace(instance, None, max_steps) if answer is not None else None
    return Trace(family=FAMILY, instance_id=instance.id, title=title, documents=[document], steps=recorder.steps,
                 meta=meta, divergence=divergence, reference=reference)
