"""The verifier: set comparison on FQNs (paper §4.1) plus a compile check by the JVM compile service.

Scores per snippet (the paper's definitions, including its 0/0 = 1 convention): precision = correct /
predicted, recall = correct / expected, F1 their harmonic mean. An answer is `correct` when its set of
entries equals the ground truth's.

Wildcards in the ground truth (StatType-SO's released import lines hold `javax.persistence.*`,
`java.util.*`, `static org.junit.Assert.*`): a wildcard truth stands for the types of its package that
the snippet uses, so every answered entry in that package (`javax.persistence.Entity`; a member type
`java.util.Map.Entry`; `static org.junit.Assert.assertEquals` for a static one) counts as expected and
right; a wildcard that no answered entry falls under stays one expected entry, which the answer's own
`javax.persistence.*` matches. The scores and `correct` are those of this reading; the literal one (a
wildcard is one entry, matched only by the same wildcard) is kept as `*_literal` in the details. A
wildcard in the answer is matched as written: `java.util.*` does not count as `java.util.List` (the
paper's prompt forbids wildcards and its scorer does not expand them); the diff says when it would have
covered a missing FQN.

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


def is_wildcard(entry: str) -> bool:
    return entry.endswith(".*")


def in_wildcard(wildcard: str, entry: str) -> bool:
    """Does `import wildcard;` bring in what `import entry;` names? `p.*` covers `p.C` and member types
    `p.C.D` (capitalised names: Java's package names are lower case), `static p.C.*` covers
    `static p.C.m`; a wildcard covers no other wildcard."""
    if is_wildcard(entry) or entry.startswith("static ") != wildcard.startswith("static "):
        return False
    owner = wildcard.removeprefix("static ")[:-2]
    name = entry.removeprefix("static ")
    if not owner or not name.startswith(owner + "."):
        return False
    rest = name[len(owner) + 1:].split(".")
    if wildcard.startswith("static "):
        return len(rest) == 1 and bool(rest[0])
    return all(part[:1].isupper() for part in rest)


def wildcard_matches(expected: Sequence[str], got: Sequence[str]) -> dict[str, list[str]]:
    """Each wildcard of the ground truth -> the answered entries it covers (sorted)."""
    answered = sorted(set(got))
    return {w: [g for g in answered if in_wildcard(w, g)] for w in dict.fromkeys(expected) if is_wildcard(w)}


def expanded_truth(expected: Sequence[str], got: Sequence[str]) -> list[str]:
    """The ground truth as the answer is scored against it: its concrete entries, the answered entries a
    wildcard of it covers, and each wildcard that covers none (or that the answer also writes)."""
    matches = wildcard_matches(expected, got)
    out = [e for e in dict.fromkeys(expected) if not is_wildcard(e)]
    answered = set(got)
    for wildcard, covered in matches.items():
        if wildcard in answered or not covered:
            out.append(wildcard)
        out.extend(covered)
    return list(dict.fromkeys(out))


def score_wildcards(expected: Sequence[str], got: Sequence[str]) -> dict[str, Any]:
    """`score` against the wildcard-aware truth, with the literal reading as `<key>_literal`."""
    literal = score(expected, got)
    out = score(expanded_truth(expected, got), got)
    out.update({f"{key}_literal": literal[key] for key in LITERAL_KEYS})
    return out


LITERAL_KEYS = ("tp", "fp", "fn", "n_expected", "precision", "recall", "f1")


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
        details = {**score_wildcards(expected, []), "correct_literal": False, "extraction_error": answer.error}
        return Verdict(correct=False, score=0.0, status="extraction_error", expected=expected, got=None, diff=rows,
                       details=details, explanation=f"No imports could be extracted ({answer.error}): {answer.message}")
    s = score_wildcards(expected, got)
    matches = wildcard_matches(expected, got)
    truth = expanded_truth(expected, got)
    rows = wildcard_rows(matches) + diff_rows([e for e in truth if e in expected],
                                              [g for g in got if not _matched_only(g, matches, expected)])
    compile_info = _compile_details(compiled, instance.code, with_imports(instance.code, got))
    rows.append(_compile_row(compile_info))
    correct = set(truth) == set(got)
    details: dict[str, Any] = {**s, "correct_literal": set(expected) == set(got), "compile": compile_info}
    wildcards = [g for g in got if g.endswith(".*")]
    if wildcards:
        details["wildcards"] = wildcards
    if matches:
        details["wildcard_matches"] = matches
    wrong = [r.note for r in rows[:-1] if not r.ok]
    compiles = compile_info.get("summary", "compile check not run")
    if correct:
        status, lead = "correct", f"Correct: all {len(truth)} import(s)."
    else:
        status = "partial" if s["tp"] else "wrong"
        lead = (f"P={s['precision']:.2f} R={s['recall']:.2f} F1={s['f1']:.2f} "
                f"({s['tp']} right, {s['fn']} missing or wrong, {s['fp']} extra). " + "; ".join(wrong[:6]))
        if len(wrong) > 6:
            lead += f"; and {len(wrong) - 6} more"
        lead += "."
    used = {w: c for w, c in matches.items() if c}
    if used:
        lead += (" The ground truth's " + ", ".join(f"`{w}` covers {len(c)}" for w, c in used.items())
                 + " of the answered imports, counted right (read literally, as one entry each: "
                 f"P={s['precision_literal']:.2f} R={s['recall_literal']:.2f} F1={s['f1_literal']:.2f}).")
    return Verdict(correct=correct, score=s["f1"], status=status, expected=expected, got=got, diff=rows,
                   details=details, explanation=f"{lead} With these imports the snippet: {compiles}.")


def _matched_only(entry: str, matches: dict[str, list[str]], expected: Sequence[str]) -> bool:
    """An answered entry that counts only through a wildcard of the truth (its row is the wildcard's)."""
    return entry not in expected and any(entry in covered for covered in matches.values())


def wildcard_rows(matches: dict[str, list[str]]) -> list[DiffRow]:
    """One row per wildcard of the truth that covers answered entries: right, naming them."""
    rows = []
    for wildcard, covered in matches.items():
        if not covered:
            continue  # the wildcard itself is an expected entry: diff_rows shows it
        listed = ", ".join(f"`{c}`" for c in covered[:8]) + (f" and {len(covered) - 8} more" if len(covered) > 8 else "")
        rows.append(DiffRow(label=f"`{wildcard}`", expected=wildcard, got=", ".join(covered), ok=True,
                            note=f"`{wildcard}` (a wildcard of the ground truth) covers the answer's {listed}: "
                                 "counted right, one entry each"))
    return rows


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
