"""The derivation for the stepper: the inference's events as typed trace steps.

Documents: the code (focus spans point into it) and the dependencies. Each step shows the
sub-expression under focus, the equation, and the state: the substitution so far (new entries marked),
the constraints collected. An answer's trace re-runs the inference with the answer assumed as the
function's type (its variables rigid, its constraints given): the first step that fails is where the
answer and the code part ways; `reference` holds the plain derivation of the ground truth.
"""

from __future__ import annotations

from core.families.typeinf.baseline import renamed_types
from core.families.typeinf.env import task_env
from core.families.typeinf.hsparse import HsParseError, parse_type
from core.families.typeinf.infer import Event, infer_code, rename_scheme
from core.families.typeinf.model import TypeinfInstance
from core.families.typeinf.types import show, show_pred, show_scheme
from core.trace import Document, Focus, StateRow, Trace, TraceStep
from core.verdict import Answer

MAX_STEPS_SHOWN = 400
MAX_STATE_ROWS = 24


def _focus(event: Event, code: str) -> Focus:
    lines = code.splitlines() or [""]
    if event.span is None or event.span == (0, 0, 0, 0):
        return Focus(document="code", line=1, line_end=len(lines))
    r1, c1, r2, c2 = event.span
    if r1 == r2:
        return Focus(document="code", line=r1 + 1, col_start=c1, col_end=max(c2, c1 + 1))
    return Focus(document="code", line=r1 + 1, line_end=r2 + 1)


def _steps(events: list[Event], code: str) -> list[TraceStep]:
    substitution: dict[str, str] = {}
    constraints: list[str] = []
    steps: list[TraceStep] = []
    for event in events[:MAX_STEPS_SHOWN]:
        new = {name: show(t) for name, t in event.bindings}
        for p in event.preds:
            text = show_pred(p)
            if event.kind in ("var", "lit", "constraint") and text not in constraints:
                constraints.append(text)
        rows = [StateRow(name=k, value=v, status="new") for k, v in new.items()]
        rows += [StateRow(name=k, value=v, status="kept") for k, v in substitution.items() if k not in new]
        substitution.update(new)
        rows = rows[:MAX_STATE_ROWS]
        if constraints:
            rows.append(StateRow(name="constraints", value=", ".join(constraints[-8:]),
                                 status="changed" if event.preds else "kept"))
        if event.kind == "fail":
            rows.insert(0, StateRow(name="result", value=event.label, status="fail"))
        steps.append(TraceStep(
            index=len(steps), kind=event.kind, label=event.label, depth=event.depth,
            data={"kind": event.kind, "equation": event.label,
                  "bindings": [[k, v] for k, v in new.items()],
                  "constraints": [show_pred(p) for p in event.preds]},
            focus=_focus(event, code), state=rows,
        ))
    return steps


def _documents(instance: TypeinfInstance) -> list[Document]:
    return [Document(name="code", language="haskell", text=instance.code),
            Document(name="dependencies", language="haskell", text="\n".join(instance.dependencies))]


def derivation(instance: TypeinfInstance) -> Trace:
    env = task_env(instance.dependencies)
    result = infer_code(instance.code, env, instance.name, record=True, pure=renamed_types(instance))
    steps = _steps(result.events, instance.code)
    if result.scheme is not None:
        title = f"derivation of {instance.name} :: {show_scheme(rename_scheme(result.scheme))}"
    else:
        title = f"derivation of {instance.name}: {result.error.message if result.error else 'fails'}"
    if not steps:
        steps = [TraceStep(index=0, kind="fail", label=title, focus=Focus(document="code", line=1),
                           state=[StateRow(name="result", value=title, status="fail")])]
    return Trace(family="typeinf", instance_id=instance.id, title=title, documents=_documents(instance),
                 steps=steps, meta={"steps": result.steps, "defaulted": result.defaulted})


def trace(instance: TypeinfInstance, answer: Answer | None = None) -> Trace:
    reference = derivation(instance)
    if answer is None:
        return reference
    documents = _documents(instance)
    if not answer.ok:
        step = TraceStep(index=0, kind="fail", label=f"no signature to check: {answer.message}",
                         focus=Focus(document="code", line=1),
                         state=[StateRow(name="answer", value=answer.message or "(none)", status="fail")])
        return Trace(family="typeinf", instance_id=instance.id, title="the answer", documents=documents,
                     steps=[step], reference=reference, divergence={"step": 0, "reason": answer.message})
    type_text = str((answer.value or {}).get("type", ""))
    try:
        scheme = parse_type(type_text).scheme
    except HsParseError as exc:
        step = TraceStep(index=0, kind="fail", label=f"the answer does not parse: {exc}",
                         focus=Focus(document="code", line=1),
                         state=[StateRow(name="answer", value=type_text, status="fail")])
        return Trace(family="typeinf", instance_id=instance.id, title="the answer", documents=documents,
                     steps=[step], reference=reference, divergence={"step": 0, "reason": str(exc)})
    env = task_env(instance.dependencies)
    checked = infer_code(instance.code, env, instance.name, expected=scheme, record=True,
                         pure=renamed_types(instance))
    steps = _steps(checked.events, instance.code)
    divergence = None
    first_fail = next((s for s in steps if s.kind == "fail"), None)
    if first_fail is not None:
        divergence = {"step": first_fail.index, "reason": first_fail.label}
        title = f"checking {instance.name} :: {type_text} — fails at step {first_fail.index}"
    else:
        from core.families.typeinf.verify import verify

        verdict = verify(instance, answer)
        if verdict.correct:
            title = f"checking {instance.name} :: {type_text} — the code has exactly this type"
        else:
            reason = ("the code type-checks at this type, but it is not the function's most general type: "
                      + verdict.explanation)
            steps.append(TraceStep(index=len(steps), kind="fail", label=reason, focus=Focus(document="code", line=1),
                                   state=[StateRow(name="derived", value=reference.title, status="ok"),
                                          StateRow(name="answer", value=type_text, status="fail")]))
            divergence = {"step": len(steps) - 1, "reason": reason}
            title = f"checking {instance.name} :: {type_text} — accepted by the code but not principal"
    if not steps:
        steps = [TraceStep(index=0, kind="assume", label=title, focus=Focus(document="code", line=1))]
    return Trace(family="typeinf", instance_id=instance.id, title=title, documents=documents, steps=steps,
                 reference=reference, divergence=divergence)
