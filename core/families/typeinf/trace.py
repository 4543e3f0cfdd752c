"""The derivation for the stepper: the inference's events as typed trace steps.

Documents: the code (focus spans point into it) and the dependencies. Each step shows the
sub-expression under focus, the equation, and the state: the substitution so far (new entries marked),
the constraints collected. An answer's trace re-runs the inference with the answer assumed as the
function's type (its variables rigid, its constraints given): the first step that fails is where the
answer and the code part ways; `reference` holds the plain derivation of the ground truth. The answer's
steps name type variables as the derivation does (its own `q` and the checker's fresh `t1` become the
derivation's `t2` where aligned steps show they are the same), so the two sides read in one naming.
"""

from __future__ import annotations

import difflib
import re

from core.families.typeinf.baseline import renamed_types
from core.families.typeinf.env import task_env
from core.families.typeinf.hsparse import HsParseError, parse_type
from core.families.typeinf.infer import Event, infer_code, rename_scheme
from core.families.typeinf.model import TypeinfInstance
from core.families.typeinf.types import scheme_vars, show, show_pred, show_scheme
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


TOKEN = re.compile(r"[A-Za-z_][\w']*|\S")
FRESH = re.compile(r"t\d+")


def name_map(steps: list[TraceStep], reference: list[TraceStep], rigid: set[str]) -> dict[str, str]:
    """The answer's type variables (its own, and the checker's fresh `tN`) named as the derivation names
    them: steps of the two traces are aligned by kind, and two aligned labels of the same shape (the same
    tokens but for variables) pair their variables; the first pairing of a variable wins."""
    mapping: dict[str, str] = {}
    kinds = difflib.SequenceMatcher(None, [s.kind for s in steps], [s.kind for s in reference], autojunk=False)
    for block in kinds.get_matching_blocks():
        for k in range(block.size):
            ours, theirs = TOKEN.findall(steps[block.a + k].label), TOKEN.findall(reference[block.b + k].label)
            if len(ours) != len(theirs):
                continue
            pairs = [(a, b) for a, b in zip(ours, theirs, strict=True) if a != b]
            variable = [(a, b) for a, b in pairs if (a in rigid or FRESH.fullmatch(a)) and b[:1].islower()]
            if len(variable) != len(pairs):
                continue  # not the same shape: a different equation, not a renaming
            for a, b in variable:
                mapping.setdefault(a, b)
    return {a: b for a, b in mapping.items() if a != b}


def renamed(steps: list[TraceStep], mapping: dict[str, str]) -> list[TraceStep]:
    """The steps with the variables renamed at once (a swap `t1 <-> t2` stays right)."""
    if not mapping:
        return steps

    def sub(text: str) -> str:
        return TOKEN.sub(lambda m: mapping.get(m.group(), m.group()), text)

    out = []
    for step in steps:
        state = [row.model_copy(update={"name": sub(row.name), "value": sub(row.value)}) for row in step.state]
        out.append(step.model_copy(update={"label": sub(step.label), "state": state}))
    return out


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
    # One naming on both sides: the answer's variables as the derivation names them.
    mapping = name_map(steps, reference.steps, set(scheme_vars(scheme)))
    steps = renamed(steps, mapping)
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
    if mapping:
        title += " (type variables named as in the derivation: " + ", ".join(
            f"{a} as {b}" for a, b in sorted(mapping.items()) if not FRESH.fullmatch(a)) + ")"
        title = title.replace(" ()", "").replace(" (type variables named as in the derivation: )", "")
    return Trace(family="typeinf", instance_id=instance.id, title=title, documents=documents, steps=steps,
                 reference=reference, divergence=divergence, meta={"renamed": mapping})
