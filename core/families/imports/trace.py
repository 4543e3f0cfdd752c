"""Traces for the generic stepper.

- `trace(instance)`: the baseline's derivation. Step 0 lists each simple name's candidates from the
  knowledge base; then one step per constraint (source order; later rounds only when they still
  narrow something), focused on the constraint's span, with one state row per simple name (its
  remaining candidates; `changed` when this constraint narrowed it, `ok` once one is left); the last
  step is the tie-break (a heuristic preference, said so), marked against the ground truth.
- `trace(instance, answer)`: one step per simple name (expected or answered), focused on its first use,
  with the expected and the answered FQN and why the answer's was accepted or not (the knowledge base's
  candidates for the name, javac's errors on it with the answer's imports); `reference` is the ground truth's trace and `divergence` the
  first simple name the answer gets wrong.
- `ddmin_trace(result)`: one step per ddmin round (tokens kept), the kept text as the document.
"""

from __future__ import annotations

import re
from typing import Any

from core.families.imports.model import ImportsInstance
from core.families.imports.prompt import prompt_code
from core.trace import Document, Focus, StateRow, Trace, TraceStep
from core.verdict import Answer

DOC = "snippet"
FAMILY = "imports"


def _rows(domains: dict[str, list[str]], changed: list[str]) -> list[StateRow]:
    rows = []
    for name, cands in sorted(domains.items()):
        status = "changed" if name in changed else ("ok" if len(cands) == 1 else "kept")
        if not cands:
            status = "fail"
        rows.append(StateRow(name=name, value=", ".join(cands) if cands else "(none)", status=status))
    return rows


def _focus_first(code: str, name: str) -> Focus:
    import re

    for i, line in enumerate(code.split("\n"), start=1):
        m = re.search(rf"(?<![\w$.]){re.escape(name)}(?![\w$])", line)
        if m:
            return Focus(document=DOC, line=i, col_start=m.start(), col_end=m.end())
    return Focus(document=DOC, line=1)


def baseline_trace(instance: ImportsInstance) -> Trace:
    from core.families.imports.baseline import solve_instance

    code = prompt_code(instance)
    solution = solve_instance(instance)
    steps: list[TraceStep] = []
    for step in solution.steps:
        c = step.constraint
        if c is None:
            first = next(iter(sorted(solution.analysis.spans.items(), key=lambda kv: kv[1])), None)
            focus = (Focus(document=DOC, line=first[1][0], col_start=first[1][1], col_end=first[1][2])
                     if first else Focus(document=DOC, line=1))
            label = f"{len(step.domains)} simple name(s) to resolve; candidates from the knowledge base"
            if solution.analysis.unresolved:
                label += f" (unknown: {', '.join(solution.analysis.unresolved)})"
            kind = "candidates"
        else:
            focus = Focus(document=DOC, line=c.line, col_start=c.col_start,
                          col_end=max(c.col_end, c.col_start + 1) if c.line_end == c.line else None,
                          line_end=c.line_end if c.line_end != c.line else None)
            label = c.text + (f" (round {step.round})" if step.round > 1 else "")
            if step.changed:
                label += " → narrows " + ", ".join(step.changed)
            kind = f"constraint:{c.kind}"
        steps.append(TraceStep(index=len(steps), kind=kind, label=label, focus=focus,
                               state=_rows(step.domains, step.changed),
                               data={"kind": kind, "changed": step.changed, "constraint": c.text if c else None,
                                     "candidates": {k: list(v) for k, v in step.domains.items()}}))
    expected = {e.rsplit(".", 1)[-1]: e for e in instance.expected()}
    rows = []
    for name, fqn in sorted(solution.chosen.items()):
        want = expected.get(name)
        status = "ok" if want == fqn else ("fail" if want else "unknown")
        rows.append(StateRow(name=name, value=fqn + (f" (expected {want})" if want and want != fqn else ""),
                             status=status))
    for name, want in sorted(expected.items()):
        if name not in solution.chosen:
            rows.append(StateRow(name=name, value=f"(none; expected {want})", status="fail"))
    steps.append(TraceStep(index=len(steps), kind="choose", label="tie-break (a heuristic, not a deduction): "
                           "choose one FQN per simple name by preference (library, package of the others, JDK, "
                           "alphabetical) where the constraints leave several", focus=Focus(document=DOC, line=1),
                           state=rows, data={"kind": "choose",
                                                     "candidates": {k: [v] for k, v in solution.chosen.items()}}))
    meta: dict[str, Any] = {"imports": solution.imports, "contradictions": solution.contradictions,
                            "unresolved": solution.analysis.unresolved, "constraints": len(solution.analysis.constraints)}
    return Trace(family=FAMILY, instance_id=instance.id, title=f"baseline: {len(solution.analysis.constraints)} "
                 f"constraint(s) over {len(solution.analysis.names)} simple name(s) -> "
                 f"{len(solution.imports)} import(s)", documents=[Document(name=DOC, language="java", text=code)],
                 steps=steps, meta=meta)


def _mentions(d: dict[str, Any], name: str) -> bool:
    """Whether a javac diagnostic is about this simple name: the word it points at, or its `symbol:`."""
    word = rf"(?<![\w$.]){re.escape(name)}(?![\w$])"
    text, col = str(d.get("text") or ""), int(d.get("col") or 0) - 1
    if 0 <= col < len(text) and re.match(word, text[col:]):
        return True
    # `symbol: class Period`, `constructor Period in class java.time.Period`; never `location: class A`
    message = "\n".join(line for line in str(d.get("message", "")).split("\n")
                        if not line.strip().startswith("location:"))
    kinds = r"(?:symbol:\s+\w+|constructor|class|interface|enum)"
    return bool(re.search(rf"{kinds}\s+(?:[\w$]+\.)*{re.escape(name)}(?![\w$])", message))


def _why(name: str, e: str | None, g: str | None, candidates: list[str] | None,
         diagnostics: list[dict[str, Any]]) -> tuple[list[StateRow], list[str]]:
    """Why the answer's FQN for `name` was or was not accepted: the knowledge base's candidates for the
    simple name, and javac's errors on that name with the answer's imports."""
    from core.families.imports.verify import diagnostic_text

    rows: list[StateRow] = []
    if candidates is not None:
        rows.append(StateRow(name="knowledge base", value=", ".join(candidates) if candidates else "(no such type)",
                             status="ok" if g in candidates else "fail" if g else "kept"))
    errors = [diagnostic_text(d) for d in diagnostics if _mentions(d, name)]
    if g is not None and g == e:
        why = "accepted: it is the expected FQN"
    elif g is None:
        why = "rejected: the answer imports nothing for it"
    elif e is None:
        why = "rejected: the snippet needs no import of it"
    elif candidates is not None and g not in candidates:
        why = f"rejected: {g} is not a type the knowledge base knows as `{name}`"
    else:
        why = f"rejected: a {name} the knowledge base has, but not the expected {e}"
    if errors:
        why += f"; javac: {len(errors)} error(s) on `{name}` with these imports"
    elif g is not None and g != e and diagnostics:
        why += f"; javac reports no error on `{name}` itself"
    rows.append(StateRow(name="why", value=why, status="ok" if why.startswith("accepted") else "fail"))
    return rows, errors


def _answer_steps(code: str, expected: list[str], got: list[str] | None,
                  candidates: dict[str, list[str]] | None = None,
                  diagnostics: list[dict[str, Any]] | None = None) -> tuple[list[TraceStep], int | None]:
    exp = {e.removeprefix("static ").rsplit(".", 1)[-1]: e for e in expected}
    ans = {g.removeprefix("static ").rsplit(".", 1)[-1]: g for g in (got or [])}
    steps: list[TraceStep] = []
    first_bad = None
    for name in sorted(set(exp) | set(ans), key=lambda n: (_focus_first(code, n).line, n)):
        e, g = exp.get(name), ans.get(name)
        ok = e == g if got is not None else True  # the reference (no answer) states the ground truth
        if not ok and first_bad is None:
            first_bad = len(steps)
        label = f"`{name}`: " + (f"{e}" if ok else f"expected {e or '(nothing)'}, got {g or '(nothing)'}")
        state = [StateRow(name="expected", value=e or "(not imported)", status="ok" if ok and e else "kept")]
        lines: list[str] = []
        if got is not None:
            state.append(StateRow(name="answer", value=g or "(missing)", status="ok" if ok else "fail"))
            why, lines = _why(name, e, g, None if candidates is None else candidates.get(name, []),
                              diagnostics or [])
            state += why
        steps.append(TraceStep(index=len(steps), kind="name", label=label, focus=_focus_first(code, name),
                               state=state, lines=lines,
                               data={"kind": "name", "simple_name": name, "expected": e, "answer": g}))
    return steps, first_bad


def _compile_step(instance: ImportsInstance, answer: Answer, code: str, index: int) -> TraceStep | None:
    """javac on the snippet with the answer's imports (the verifier's check, cached): its errors on the
    snippet's own lines, the first one in focus, each diagnostic whole."""
    from core.families.imports.verify import diagnostic_text, verify

    info = verify(instance, answer).details.get("compile") or {}
    if not info.get("checked") or info.get("ok"):
        return None
    diagnostics = info.get("diagnostics") or []
    first = next((d for d in diagnostics if d.get("line")), None)
    focus = Focus(document=DOC, line=1)
    if first is not None:
        lines = code.split("\n")
        row = min(int(first["line"]), len(lines))
        col = max(int(first.get("col") or 1) - 1, 0)
        word = re.match(r"[\w$]+", lines[row - 1][col:]) if col < len(lines[row - 1]) else None
        focus = Focus(document=DOC, line=row, col_start=col, col_end=col + len(word.group()) if word else None)
    errors = info.get("errors", len(diagnostics))
    return TraceStep(index=index, kind="compile", label=f"javac with the answer's imports: {errors} compile error(s)",
                     focus=focus, lines=[diagnostic_text(d) for d in diagnostics[:10]],
                     state=[StateRow(name="compiles", value="no", status="fail")])


def _evidence(instance: ImportsInstance, answer: Answer,
              got: list[str] | None) -> tuple[dict[str, list[str]] | None, list[dict[str, Any]]]:
    """The knowledge base's candidates per simple name (None without a JDK) and javac's diagnostics with
    the answer's imports (the verifier's check, cached; none when it compiled or was not checked)."""
    from core.families.imports.verify import verify

    names = {n.removeprefix("static ").rsplit(".", 1)[-1] for n in [*instance.expected(), *(got or [])]}
    try:
        from core.families.imports.kb import load

        kb = load()
        candidates: dict[str, list[str]] | None = {name: sorted(kb.candidates(name)) for name in names}
    except Exception:  # no JDK here: the rest of the trace still shows
        candidates = None
    diagnostics: list[dict[str, Any]] = []
    if got is not None:
        info = verify(instance, answer).details.get("compile") or {}
        if info.get("checked") and not info.get("ok"):
            diagnostics = list(info.get("diagnostics") or [])
    return candidates, diagnostics


def trace(instance: ImportsInstance, answer: Answer | None = None) -> Trace:
    if answer is None:
        try:
            return baseline_trace(instance)
        except Exception as exc:  # no JDK / knowledge base: the ground truth per simple name still shows
            code = prompt_code(instance)
            steps, _ = _answer_steps(code, instance.expected(), None)
            if not steps:
                steps = [TraceStep(index=0, kind="name", label="no imports needed", focus=Focus(document=DOC, line=1))]
            return Trace(family=FAMILY, instance_id=instance.id, title=f"ground truth (baseline unavailable: {exc})",
                         documents=[Document(name=DOC, language="java", text=code)], steps=steps)
    from core.families.imports.extract import answer_imports

    code = prompt_code(instance)
    got = answer_imports(answer)
    steps, first_bad = _answer_steps(code, instance.expected(), got if got is not None else [],
                                     *_evidence(instance, answer, got))
    if not steps:
        steps = [TraceStep(index=0, kind="name", label="no imports expected and none given",
                           focus=Focus(document=DOC, line=1))]
    compile_step = _compile_step(instance, answer, code, len(steps)) if got is not None else None
    if compile_step is not None:
        steps.append(compile_step)
        if first_bad is None:
            first_bad = compile_step.index
    ref_steps, _ = _answer_steps(code, instance.expected(), None)
    if not ref_steps:
        ref_steps = [TraceStep(index=0, kind="name", label="no imports needed", focus=Focus(document=DOC, line=1))]
    docs = [Document(name=DOC, language="java", text=code)]
    reference = Trace(family=FAMILY, instance_id=instance.id, title="ground truth", documents=docs, steps=ref_steps)
    divergence = None
    if got is None:
        divergence = {"step": 0, "reason": f"no imports extracted ({answer.error})"}
    elif first_bad is not None:
        divergence = {"step": first_bad, "reason": steps[first_bad].label}
    title = "answer vs ground truth: " + ("agree" if divergence is None else "differ")
    return Trace(family=FAMILY, instance_id=instance.id, title=title, documents=docs, steps=steps,
                 reference=reference, divergence=divergence)


def ddmin_trace(instance_id: str, result: Any) -> Trace:
    """Rounds of a `ddmin.Minimized` result."""
    docs = [Document(name=DOC, language="java", text=result.original),
            Document(name="minimized", language="java", text=result.minimized or " ")]
    steps = [TraceStep(index=0, kind="ddmin", label=f"start: {result.tokens_before} tokens; keep answers "
                       f"{'equal to' if getattr(result, 'prop', 'equal') == 'equal' else 'containing'} {result.expected}",
                       focus=Focus(document=DOC, line=1),
                       state=[StateRow(name="tokens", value=str(result.tokens_before), status="new")])]
    for r in result.rounds:
        steps.append(TraceStep(index=len(steps), kind="ddmin", label=f"round {r.index}: {r.kept} token(s) kept "
                               f"(granularity {r.granularity}, {r.calls} solver call(s))",
                               focus=Focus(document="minimized", line=1), lines=[r.text[:500]],
                               state=[StateRow(name="tokens", value=str(r.kept), status="changed")],
                               data={"kind": "ddmin", "kept_tokens": r.kept}))
    rows = [StateRow(name=cat, value=f"{v['after']}/{v['before']}", status="kept") for cat, v in result.by_category.items()]
    steps.append(TraceStep(index=len(steps), kind="ddmin", label="done" if result.finished else "budget spent",
                           focus=Focus(document="minimized", line=1), state=rows,
                           data={"kind": "ddmin", "kept_tokens": result.tokens_after}))
    return Trace(family=FAMILY, instance_id=instance_id, title=f"ddmin: {result.tokens_before} -> {result.tokens_after} "
                 f"tokens in {result.calls} call(s)", documents=docs, steps=steps)
