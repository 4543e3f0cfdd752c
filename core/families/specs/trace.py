"""Traces for the generic stepper: WP's goals on the annotated program, in source order, each focused
on its line, with status, prover and time; then the counterexample (if any) on its line."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

from core.families.specs.model import SpecsInstance
from core.trace import Document, Focus, StateRow, Trace, TraceStep
from core.verdict import Answer

DOC = "annotated.c"
_STATUS_WORD = {"valid": "ok", "unknown": "unknown", "timeout": "unknown", "failed": "fail", "invalid": "fail"}


def _line(line: int | None, text: str) -> int:
    total = max(1, text.count("\n") + 1)
    return min(max(1, line or 1), total)


def _where(g: dict[str, Any], annotated: str, function: str) -> int | None:
    """A function-wide goal (assigns, behaviors) has no line in WP's output: point at its clause."""
    if g["line"]:
        return g["line"]
    kind = g["kind"].lower()
    words = ["complete behaviors", "disjoint behaviors"] if "behaviors" in kind else (["assigns"] if "assigns" in kind else [])
    lines = annotated.split("\n")
    for word in words:
        for i, line in enumerate(lines):
            if word in line and "loop assigns" not in line:
                return i + 1
    for i, line in enumerate(lines):
        if f"{function}(" in line:
            return i + 1
    return None


# Traces by (instance, annotated program): WP and the counterexample search take seconds, and the
# workbench traces the same (program, answer) each time an attempt is opened. Copies go out (callers
# attach a reference and a divergence to what they get).
TRACE_CACHE_SIZE = 256
_TRACES: OrderedDict[tuple[str, str, str], Trace] = OrderedDict()
_TRACES_LOCK = threading.Lock()


def trace_text(instance: SpecsInstance, annotated: str, title: str) -> Trace:
    key = (hashlib.sha256(instance.model_dump_json().encode()).hexdigest(), annotated, title)
    with _TRACES_LOCK:
        hit = _TRACES.get(key)
        if hit is not None:
            _TRACES.move_to_end(key)
            return hit.model_copy(deep=True)
    made = _trace_text(instance, annotated, title)
    with _TRACES_LOCK:
        _TRACES[key] = made.model_copy(deep=True)
        while len(_TRACES) > TRACE_CACHE_SIZE:
            _TRACES.popitem(last=False)
    return made


def _trace_text(instance: SpecsInstance, annotated: str, title: str) -> Trace:
    from core.families.specs.verify import consistency

    info = consistency(instance, annotated)
    goals = [dict(g, line=_where(g, annotated, instance.function)) for g in info["goals"]]
    goals = sorted(goals, key=lambda g: (g["line"] or 0, g["kind"]))
    steps: list[TraceStep] = []
    proved = 0
    if info.get("error"):
        steps.append(TraceStep(index=0, kind="error", label=f"{info['category']}: {info['error']}",
                               focus=Focus(document=DOC, line=_line(info.get("error_line"), annotated)),
                               state=[StateRow(name="outcome", value="failure", status="fail"),
                                      StateRow(name="category", value=info["category"], status="fail")]))
    for g in goals:
        proved += g["status"] == "valid"
        word = _STATUS_WORD.get(g["status"], "unknown")
        state = [StateRow(name="goal", value=g["kind"]),
                 StateRow(name="status", value=g["status"], status=word),
                 StateRow(name="prover", value=g["prover"] or "-"),
                 StateRow(name="time", value=f"{g['time_s']:.3f} s" if g["time_s"] is not None else "-"),
                 StateRow(name="proved so far", value=f"{proved}/{len(goals)}", status="changed")]
        if g["category"]:
            state.append(StateRow(name="category", value=g["category"], status="fail"))
        if g["prove"]:
            state.append(StateRow(name="to prove", value=g["prove"][:300], status=word))
        steps.append(TraceStep(index=len(steps), kind="goal", label=f"{g['kind']} (line {g['line']}): {g['status']}",
                               data={k: g[k] for k in ("kind", "line", "status", "prover", "time_s", "category")},
                               focus=Focus(document=DOC, line=_line(g["line"], annotated)), state=state,
                               highlight={"line": g["line"]}))
    cex = info.get("counterexample")
    if cex:
        steps.append(TraceStep(index=len(steps), kind="counterexample",
                               label=f"counterexample: {cex['input']} breaks the {cex['kind'].lower()}",
                               focus=Focus(document=DOC, line=_line(cex["line"], annotated)),
                               state=[StateRow(name="input", value=cex["input"], status="fail"),
                                      StateRow(name="violated", value=cex["message"], status="fail")]))
    steps.append(TraceStep(index=len(steps), kind="outcome", label=f"outcome: {info['outcome']}",
                           focus=Focus(document=DOC, line=1),
                           state=[StateRow(name="outcome", value=info["outcome"],
                                           status="ok" if info["outcome"] == "success" else "fail"),
                                  StateRow(name="goals proved", value=f"{proved}/{len(goals)}")]))
    return Trace(family="specs", instance_id=instance.id, title=title,
                 documents=[Document(name=DOC, language="c", text=annotated)], steps=steps,
                 meta={"outcome": info["outcome"], "category": info.get("category", "")})


def trace(instance: SpecsInstance, answer: Answer | None = None) -> Trace:
    reference = instance.reference()
    ref_trace = trace_text(instance, reference, f"{instance.function}: WP goals of the reference contract") \
        if reference else None
    if answer is None:
        if ref_trace is not None:
            return ref_trace
        return Trace(family="specs", instance_id=instance.id, title=f"{instance.function}: the program (no contract)",
                     documents=[Document(name=DOC, language="c", text=instance.code)],
                     steps=[TraceStep(index=0, kind="program", label="no reference contract to verify",
                                      focus=Focus(document=DOC, line=1))])
    value: Any = answer.value
    if answer.ok and isinstance(value, dict) and isinstance(value.get("annotated"), str):
        out = trace_text(instance, value["annotated"], f"{instance.function}: WP goals of the answer")
    else:
        text = answer.details.get("annotated") or instance.code
        out = Trace(family="specs", instance_id=instance.id, title=f"{instance.function}: the answer was not usable",
                    documents=[Document(name=DOC, language="c", text=text)],
                    steps=[TraceStep(index=0, kind="response", label=f"{answer.error}: {answer.message}",
                                     focus=Focus(document=DOC, line=_line(answer.details.get("got_line"), text)),
                                     state=[StateRow(name="outcome", value="failure", status="fail")])])
    out.reference = ref_trace if ref_trace is not None else trace(instance)
    first_bad = next((s for s in out.steps if s.kind in ("goal", "error", "response")
                      and s.state and any(r.status == "fail" or r.status == "unknown" for r in s.state)), None)
    if first_bad is not None:
        out.divergence = {"step": first_bad.index, "line": first_bad.focus.line if first_bad.focus else None,
                          "label": first_bad.label}
    return out
