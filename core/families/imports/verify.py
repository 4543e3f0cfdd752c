"""The verifier: set comparison on FQNs (paper §4.1) plus a compile check by the JVM compile service.

Scores per snippet (the paper's definitions, including its 0/0 = 1 convention): precision = correct /
predicted, recall = correct / expected, F1 their harmonic mean. An answer is `correct` when its set of
entries equals the ground truth's. Entries are compared as written: a wildcard `java.util.*` does not
count as `java.util.List` (the paper's prompt forbids wildcards and its scorer does not expand them);
the diff says when a wildcard would have covered a missing FQN.

The diff has one row per simple name: right, missing, extra, or wrong ("`Logger`: expected
`java.util.logging.Logger`, got `org.apache.log4j.Logger`"), then a row for the compile check, whose
javac diagnostics are also in `details.compile`. The compile check never changes `correct`: it tells
whether the snippet compiles with the predicted imports (an ambiguous snippet may compile with another
choice, and an imported snippet may not compile at all).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.errors import UserError
from core.families.imports.extract import answer_imports
from core.families.imports.model import ImportsInstance
from core.families.imports.snippet import simple_name, with_imports
from core.verdict import Answer, DiffRow, Verdict


def ratio(top: int, bottom: int) -> float:
    """The paper's divide(): 0/0 is 1."""
    if bottom == 0:
        return 1.0 if top == 0 else 0.0
    return top / bottom


def score(expected: Sequence[str], got: Sequence[str]) -> dict[str, Any]:
    exp, pred = set(expected), set(got)
    tp = len(exp & pred)
    precision = ratio(tp, len(pred))
    recall = ratio(tp, len(exp))
    f1 = ratio(2 * precision * recall, precision + recall) if precision + recall else 0.0
    return {"tp": tp, "fp": len(pred - exp), "fn": len(exp - pred), "n_expected": len(exp), "n_predicted": len(pred),
            "precision": precision, "recall": recall, "f1": f1}


def _key(entry: str) -> str:
    return simple_name(entry.removeprefix("static "))


def diff_rows(expected: Sequence[str], got: Sequence[str]) -> list[DiffRow]:
    """One row per simple name, sorted by name; wrong FQNs for one name are paired in sorted order."""
    exp_by: dict[str, list[str]] = {}
    got_by: dict[str, list[str]] = {}
    for e in sorted(set(expected)):
        exp_by.setdefault(_key(e), []).append(e)
    for g in sorted(set(got)):
        got_by.setdefault(_key(g), []).append(g)
    wildcards = [g[:-1] for g in got if g.endswith(".*") and not g.startswith("static ")]
    rows: list[DiffRow] = []
    for name in sorted(set(exp_by) | set(got_by)):
        exp_list = list(exp_by.get(name, []))
        got_list = list(got_by.get(name, []))
        for e in [e for e in exp_list if e in got_list]:
            rows.append(DiffRow(label=f"`{name}`", expected=e, got=e, ok=True))
            exp_list.remove(e)
            got_list.remove(e)
        while exp_list and got_list:
            e, g = exp_list.pop(0), got_list.pop(0)
            rows.append(DiffRow(label=f"`{name}`", expected=e, got=g, ok=False, expected_spans=[(0, len(e))],
                                got_spans=[(0, len(g))], note=f"`{name}`: expected `{e}`, got `{g}`"))
        for e in exp_list:
            covered = next((w for w in wildcards if e.startswith(w) and "." not in e[len(w):]), None)
            note = f"`{name}`: expected `{e}`, missing"
            if covered:
                note += f" (the wildcard `{covered}*` would import it, but wildcards are scored as written)"
            rows.append(DiffRow(label=f"`{name}`", expected=e, got="", ok=False, expected_spans=[(0, len(e))],
                                note=note))
        for g in got_list:
            rows.append(DiffRow(label=f"`{name}`", expected="", got=g, ok=False, got_spans=[(0, len(g))],
                                note=f"`{name}`: not expected, got `{g}`"))
    return rows


NOT_CHECKED = "javac is not installed (Debian package openjdk-17-jdk-headless)"


def line_map(code: str, compiled: str) -> tuple[int, list[str]]:
    """Where `with_imports` put the answer's import lines: (how many snippet lines come before them, the
    inserted lines). javac counts the lines of `compiled`; a person reads the snippet's."""
    before, after = code.split("\n"), compiled.split("\n")
    at = next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), len(before))
    return at, after[at:at + len(after) - len(before)]


def diagnostic_view(d: Any, at: int, inserted: list[str], code_lines: list[str]) -> dict[str, Any]:
    """A javac diagnostic on the snippet's own lines (`line`, with that line's `text` to mark it on; None
    on an answer's import line, named in `import`), javac's line kept as `compiled_line`, the whole
    message (its `symbol:` and `location:` lines)."""
    out = d.model_dump()
    out["compiled_line"] = d.line
    index = d.line - 1 - at
    if 0 <= index < len(inserted):
        out["line"], out["import"] = None, inserted[index].strip()
    elif index >= len(inserted):
        out["line"] = d.line - len(inserted)
    if out.get("line") and 0 < out["line"] <= len(code_lines):
        out["text"] = code_lines[out["line"] - 1][:300]
    return out


def diagnostic_text(d: dict[str, Any]) -> str:
    """`line 3: cannot find symbol (symbol: class PriorityQueue, location: class Main)`: one line."""
    first, *rest = str(d.get("message", "")).split("\n")
    where = f"`{d['import']}`" if d.get("import") else f"line {d.get('line')}"
    extra = ", ".join(" ".join(r.split()) for r in rest if r.strip())
    return f"{where}: {first}" + (f" ({extra})" if extra else "")


def _compile_details(result: Any, code: str = "", compiled: str = "") -> dict[str, Any]:
    if result is None or isinstance(result, str):
        return {"checked": False, "reason": result or NOT_CHECKED}
    at, inserted = line_map(code, compiled) if compiled else (0, [])
    code_lines = code.split("\n")
    diagnostics = [diagnostic_view(d, at, inserted, code_lines) for d in result.diagnostics[:20]]
    summary = result.summary()
    if result.decided and not result.ok:
        shown = "; ".join(diagnostic_text(d) for d in diagnostics[:3])
        more = f" (+{result.errors - 3} more)" if result.errors > 3 else ""
        summary = f"{result.errors} compile error(s): {shown}{more}"
    return {"checked": result.decided, "ok": result.ok, "errors": result.errors, "diagnostics": diagnostics,
            "error": result.error, "summary": summary}


def _compile_row(compile_info: dict[str, Any]) -> DiffRow:
    if not compile_info.get("checked"):
        return DiffRow(label="compile", expected="compiles", got="not checked", ok=True,
                       note=compile_info.get("reason") or compile_info.get("error") or "")
    ok = bool(compile_info.get("ok"))
    return DiffRow(label="compile", expected="compiles", got="compiles" if ok else "does not compile", ok=ok,
                   note=compile_info.get("summary", ""))


def build_verdict(instance: ImportsInstance, answer: Answer, compiled: Any) -> Verdict:
    expected = instance.expected()
    got = answer_imports(answer)
    if got is None:
        rows = [DiffRow(label=f"`{_key(e)}`", expected=e, got="", ok=False, expected_spans=[(0, len(e))],
                        note=f"`{_key(e)}`: expected `{e}`, missing") for e in expected]
        rows.append(DiffRow(label="answer", expected=f"{len(expected)} import(s)", got="(none)", ok=False,
                            note=f"no imports could be extracted: {answer.message}"))
        details = {**score(expected, []), "extraction_error": answer.error}
        return Verdict(correct=False, score=0.0, status="extraction_error", expected=expected, got=None, diff=rows,
                       details=details, explanation=f"No imports could be extracted ({answer.error}): {answer.message}")
    s = score(expected, got)
    rows = diff_rows(expected, got)
    compile_info = _compile_details(compiled, instance.code, with_imports(instance.code, got))
    rows.append(_compile_row(compile_info))
    correct = set(expected) == set(got)
    details: dict[str, Any] = {**s, "compile": compile_info}
    wildcards = [g for g in got if g.endswith(".*")]
    if wildcards:
        details["wildcards"] = wildcards
    wrong = [r.note for r in rows[:-1] if not r.ok]
    compiles = compile_info.get("summary", "compile check not run")
    if correct:
        status, lead = "correct", f"Correct: all {len(expected)} import(s)."
    else:
        status = "partial" if s["tp"] else "wrong"
        lead = (f"P={s['precision']:.2f} R={s['recall']:.2f} F1={s['f1']:.2f} "
                f"({s['tp']} right, {s['fn']} missing or wrong, {s['fp']} extra). " + "; ".join(wrong[:6]))
        if len(wrong) > 6:
            lead += f"; and {len(wrong) - 6} more"
        lead += "."
    return Verdict(correct=correct, score=s["f1"], status=status, expected=expected, got=got, diff=rows,
                   details=details, explanation=f"{lead} With these imports the snippet: {compiles}.")


def _javac_ok() -> bool:
    from core.families.imports.tools import JAVA, JAVAC

    return JAVAC.available() and JAVA.available()


def _cast(instance: Any) -> ImportsInstance:
    if isinstance(instance, ImportsInstance):
        return instance
    return ImportsInstance.model_validate(instance.model_dump())


def verify(instance: ImportsInstance, answer: Answer) -> Verdict:
    return verify_many([(instance, answer)])[0]


def verify_many(items: Sequence[tuple[ImportsInstance, Answer]]) -> list[Verdict]:
    """Verdicts for many answers; their compile checks go to the service in batches."""
    from core.families.imports import compiler

    items = [(_cast(instance), answer) for instance, answer in items]
    sources: list[str] = []
    where: list[int | None] = []
    for instance, answer in items:
        got = answer_imports(answer)
        if got is None:
            where.append(None)
            continue
        where.append(len(sources))
        sources.append(with_imports(instance.code, got))
    results: list[Any] = [None] * len(sources)
    if sources and _javac_ok():
        try:
            if len(sources) == 1:
                results = compiler.compile_sources(sources)
            else:
                results = compiler.compile_sources(sources, together=True, confirm=True)
        except UserError as exc:  # a library jar is missing: the verdict stands, the compile check says why
            results = [str(exc)] * len(sources)
    return [build_verdict(instance, answer, None if w is None else results[w])
            for (instance, answer), w in zip(items, where, strict=True)]
