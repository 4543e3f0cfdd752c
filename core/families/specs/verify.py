"""Verification of a contract: consistency (WP), counterexamples (E-ACSL), completeness (mutants).

Outcomes are the paper's (§3.2, Appendix G): *success* (every WP goal proved), *failure* (the annotations
do not parse or type-check, the reply is not an annotated copy of the task's program, or a goal the
provers answer without timing out is not proved: "the prover cannot establish an assertion"), *unknown*
(only time-outs: a goal whose prover answer is Timeout, or the run's budget spent). A second, stricter
convention is kept beside it (`outcome_cex`, `category_cex`): failure only with evidence (a refuted goal,
a rejected annotation, an edited program, or a concrete input that meets the precondition and breaks the
contract at run time), every other unproved contract unknown. *error* (no verdict) when the goals read
from WP's output do not add up to WP's own count. A verdict is correct only on success.

Completeness (CR) is computed for contracts that verify, in `verify_many` (batch verification: `sembench
verify`, runs) and not in the single `verify` (the workbench's immediate verdict), because it costs one
WP run per mutant: the fraction of the program's non-equivalent
mutants (at most `SEMBENCH_SPECS_MUTANTS`, default 8, evenly spread over the list) whose verification with the same
annotations does not succeed. Every tool run goes through the cached tool runner; at most `workers()`
tool processes run at once, whatever the number of threads asking.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import Any

from core.families.specs import inputs as inputs_mod
from core.families.specs.csyntax import signature
from core.families.specs.model import SpecsInstance
from core.families.specs.mutant_runs import MutantRuns, run_mutants
from core.families.specs.mutate import Mutant, apply, mutants, transfer
from core.families.specs.runtime import ContractRun, check_contract, differential
from core.families.specs.wp import DEFAULT_OPTIONS, WpOptions, WpResult, run_wp
from core.verdict import Answer, DiffRow, Verdict


def completeness_enabled() -> bool:
    """Whether batch verification computes completeness (core.completeness: `--completeness off`)."""
    from core.completeness import wanted

    return wanted()


def run_first_enabled() -> bool:
    """`SEMBENCH_SPECS_RUN_MUTANTS=0` sends every mutant to WP without running it first (the slower way to
    the same completeness rate, kept so that the two can be compared side by side: tests/bench)."""
    return os.environ.get("SEMBENCH_SPECS_RUN_MUTANTS", "1") != "0"


def max_mutants() -> int:
    return max(1, int(os.environ.get("SEMBENCH_SPECS_MUTANTS", "8")))


def workers() -> int:
    return max(1, int(os.environ.get("SEMBENCH_SPECS_WORKERS", "0")) or (os.cpu_count() or 2))


_SLOTS = threading.BoundedSemaphore(workers())
_POOL = ThreadPoolExecutor(max_workers=4 * workers(), thread_name_prefix="specs-tool")


def _slot(fn: Any, *args: Any) -> Any:
    with _SLOTS:
        return fn(*args)


def wp(annotated: str, options: WpOptions = DEFAULT_OPTIONS) -> WpResult:
    return _slot(run_wp, annotated, options)


# ---- inputs --------------------------------------------------------------------------------------
def harness(instance: SpecsInstance) -> tuple[Any, list[dict[str, Any]], str]:
    """(signature, cases, reason-if-unsupported): the instance's tests then its random inputs, at most
    inputs.MAX_INPUTS in all."""
    sig = signature(instance.code, instance.function)
    if instance.function == "main":  # the harness is itself a `main`: a task about main has no inputs
        return sig, [], "the function is main, which the input harness cannot call"
    reason = inputs_mod.supported(sig)
    if reason:
        return sig, [], reason
    spec = inputs_mod.HarnessSpec(arrays=instance.arrays, ranges=instance.ranges)
    cases = [c for c in (inputs_mod.normalise(sig, spec, t) for t in instance.tests) if c is not None]
    cases = cases[:inputs_mod.MAX_TESTS]
    key = str(instance.meta.get("program") or instance.function) if isinstance(instance.meta, dict) else instance.function
    cases += inputs_mod.random_inputs(sig, spec, key, min(inputs_mod.RANDOM_INPUTS, inputs_mod.MAX_INPUTS - len(cases)))
    return sig, cases, ""


def show_case(case: dict[str, Any], sig: Any) -> str:
    parts = []
    for p in sig.params:
        value = case.get(p.name)
        if inputs_mod.is_char(p):
            value = "".join(chr(v) if 32 <= v < 127 else f"\\x{v & 0xff:02x}" for v in value) \
                if isinstance(value, list) else (chr(value) if isinstance(value, int) and 32 <= value < 127 else value)
            parts.append(f"{p.name}={value!r}")
        else:
            parts.append(f"{p.name}={value}")
    return ", ".join(parts)


# ---- counterexamples ------------------------------------------------------------------------------
_CE_CATEGORY = {"Postcondition": "PostconditionFailure", "Invariant": "LoopInvariantPreserve",
                "Variant": "LoopVariant", "Assertion": "AssertionFailure", "RuntimeError": "MemoryAccess"}


def counterexample(instance: SpecsInstance, annotated: str) -> dict[str, Any]:
    sig, cases, reason = harness(instance)
    if reason:
        return {"checked": False, "reason": reason}
    checked: ContractRun = _slot(check_contract, annotated, instance.function, sig, cases)
    if not checked.ok:
        return {"checked": False, "reason": checked.error[:400]}
    trusted = []
    for o in checked.outcomes:
        # E-ACSL evaluates \at(..., Pre) inside loop invariants in the wrong state (false alarms on
        # proved references), so such invariant failures are not taken as counterexamples.
        if o.status == "violation" and o.kind == "Invariant" and "\\at(" in o.message:
            continue
        if o.status in ("violation", "crash"):
            trusted.append(o)
    pre = sum(1 for o in checked.outcomes if o.status == "pre")
    info: dict[str, Any] = {"checked": True, "inputs": len(cases), "precondition_rejected": pre,
                            "unchecked": checked.unchecked}
    if pre == len(cases) and cases:
        info["vacuous_on_inputs"] = True
    if trusted:
        o = trusted[0]
        info["counterexample"] = {"input": show_case(cases[o.index], sig), "index": o.index, "kind": o.kind,
                                  "line": o.line, "message": o.message,
                                  "category": _CE_CATEGORY.get(o.kind.split()[0] if o.kind else "", "PostconditionFailure")}
    return info


# ---- completeness ---------------------------------------------------------------------------------
_LIVE: dict[tuple[str, str, str], tuple[list[int], int]] = {}
_LIVE_LOCK = threading.Lock()


def live_mutants(instance: SpecsInstance) -> tuple[list[Mutant], list[int]]:
    found = mutants(instance.code, instance.function)
    key = (instance.code, instance.function, repr((instance.tests, instance.arrays, instance.ranges)))
    with _LIVE_LOCK:
        if key in _LIVE:
            return found, _LIVE[key][0]
    sig, cases, reason = harness(instance)
    if reason or not found:
        live: list[int] = []
    else:
        programs = [instance.code] + [apply(instance.code, m) for m in found]
        # each mutant until its first difference: that is all it takes to be non-equivalent
        table = _slot(functools.partial(differential, first_difference=True), programs, instance.function, sig, cases)
        if table is None:
            live = []
        else:
            base = table[0]
            usable = [i for i, out in enumerate(base) if not out.startswith("signal") and out != "missing"]
            live = [m.ordinal for m, row in zip(found, table[1:], strict=True)
                    if any(row[i] != base[i] for i in usable)]
    with _LIVE_LOCK:
        _LIVE[key] = (live, len(found))
    return found, live


def sample(live: list[int], limit: int) -> list[int]:
    if len(live) <= limit:
        return list(live)
    step = len(live) / limit
    return [live[int(k * step)] for k in range(limit)]


def completeness_plan(instance: SpecsInstance, annotated: str,
                      limit: int | None = None) -> tuple[dict[str, Any], list[str]]:
    """What completeness needs: (the plan, the annotated mutants to run WP on). The mutants are run first
    with the contract checked at run time (mutant_runs): one that breaks it is killed with the input as
    evidence and never reaches WP. With nothing left for WP the plan is already the final result. Split
    from `completeness` so that a cluster can run each mutant's WP as a task of its own (core.cluster) and
    combine them with `completeness_from`."""
    found, live = live_mutants(instance)
    chosen = sample(live, limit or max_mutants())
    located = transfer(found, annotated, instance.function)
    if not chosen or located is None:
        # the rows left out are counted (the summary reports them), never silently dropped
        return {"cr": None, "mutants": len(found), "nonequivalent": len(live), "evaluated": 0,
                "left_out": len(chosen) if located is None else 0,
                "note": "no non-equivalent mutants" if located is not None else "mutants could not be located"}, []
    texts = [apply(annotated, located[o]) for o in chosen]
    plan: dict[str, Any] = {"chosen": chosen, "described": [found[o].describe() for o in chosen],
                            "mutants": len(found), "nonequivalent": len(live)}
    tests: list[dict[str, Any] | None] = [None] * len(chosen)
    if run_first_enabled():
        runs = mutants_first(instance, annotated, texts)
        plan["run_first"] = {"ran": runs.ran, "inputs": runs.inputs, "reason": runs.reason}
        tests = [runs.killed[k].model_dump() if k in runs.killed else None for k in range(len(chosen))]
    plan["tests"] = tests
    plan["to_wp"] = [k for k, evidence in enumerate(tests) if evidence is None]
    todo = [texts[k] for k in plan["to_wp"]]
    if not todo:
        return completeness_from(plan, []), []
    return plan, todo


def mutants_first(instance: SpecsInstance, annotated: str, texts: list[str]) -> MutantRuns:
    """The mutated programs run on the harness's inputs with the contract checked at run time."""
    sig, cases, reason = harness(instance)
    if reason:
        return MutantRuns(ran=False, reason=reason)
    return _slot(run_mutants, annotated, instance.function, sig, cases, texts, lambda case: show_case(case, sig))


def completeness_from(plan: dict[str, Any], outcomes: Sequence[str]) -> dict[str, Any]:
    """The completeness result from its plan and the WP outcome of each mutant it sent to WP (in order)."""
    if "chosen" not in plan:
        return plan
    chosen = plan["chosen"]
    tests = plan.get("tests") or [None] * len(chosen)
    wp_outcomes = dict(zip(plan.get("to_wp", range(len(chosen))), outcomes, strict=True))
    rows = []
    for k, (o, described) in enumerate(zip(chosen, plan["described"], strict=True)):
        evidence = tests[k]
        if evidence is not None:
            rows.append({"ordinal": o, "mutant": described, "killed": True, "killed_by": "test",
                         "outcome": "contract broken at run time", "input": evidence["input"], "evidence": evidence})
            continue
        outcome = wp_outcomes[k]
        killed = outcome != "proved"
        rows.append({"ordinal": o, "mutant": described, "killed": killed, "killed_by": "wp" if killed else None,
                     "outcome": outcome})
    killed = sum(r["killed"] for r in rows)
    by_test = sum(r["killed_by"] == "test" for r in rows)
    out = {"cr": killed / len(rows), "killed": killed, "evaluated": len(rows), "mutants": plan["mutants"],
           "nonequivalent": plan["nonequivalent"], "killed_by_test": by_test,
           "killed_by_wp": killed - by_test, "wp_runs": len(wp_outcomes), "rows": rows}
    if "run_first" in plan:
        out["run_first"] = plan["run_first"]
    return out


def completeness(instance: SpecsInstance, annotated: str, limit: int | None = None,
                 options: WpOptions = DEFAULT_OPTIONS) -> dict[str, Any]:
    plan, texts = completeness_plan(instance, annotated, limit)
    results = list(_POOL.map(lambda t: wp(t, options), texts))
    return completeness_from(plan, [r.outcome for r in results])


# ---- the verdict ----------------------------------------------------------------------------------
def goal_dict(g: Any) -> dict[str, Any]:
    return {"kind": g.kind, "line": g.line, "status": g.status, "prover": g.prover, "time_s": g.time_s,
            "category": "" if g.proved else g.category, "prove": g.prove}


def consistency(instance: SpecsInstance, annotated: str, *, search: bool = True,
                options: WpOptions = DEFAULT_OPTIONS) -> dict[str, Any]:
    """WP, then (when not proved) the counterexample search. Returns the outcome under both conventions
    (module docstring) and its evidence."""
    result = wp(annotated, options)
    out: dict[str, Any] = {"wp_outcome": result.outcome, "goals": [goal_dict(g) for g in result.goals],
                           "wp_elapsed_s": round(result.elapsed_s, 3), "wp_cached": result.cached}
    if result.outcome == "error":
        # a WP output whose goals do not add up to WP's own count is no verdict on the answer
        outcome = "error" if result.error_kind == "WpOutputMismatch" else "failure"
        out.update(outcome=outcome, outcome_cex=outcome, category=result.error_kind,
                   category_cex=result.error_kind, categories=[result.error_kind], error=result.error_message,
                   error_line=result.error_line)
        return out
    if result.outcome == "proved":
        out.update(outcome="success", outcome_cex="success", category="", category_cex="", categories=[])
        return out
    failing = result.failing
    categories = list(dict.fromkeys(g.category for g in failing)) or ["Timeout"]
    out.update(categories=categories)
    refuted = [g for g in failing if g.status == "invalid"]
    if refuted:
        out.update(outcome="failure", outcome_cex="failure", category=refuted[0].category,
                   category_cex=refuted[0].category)
        return out
    if search:
        ce = counterexample(instance, annotated)
        out["runtime"] = {k: v for k, v in ce.items() if k != "counterexample"}
        if "counterexample" in ce:
            cex = ce["counterexample"]
            same_line = [g for g in failing if g.line == cex["line"]]
            cex["category"] = same_line[0].category if same_line else cex["category"]
            out.update(outcome="failure", outcome_cex="failure", category=cex["category"],
                       category_cex=cex["category"], counterexample=cex)
            return out
    # the stricter convention: without a counterexample, anything unproved is unknown
    timeouts = all(g.status in ("timeout", "failed") for g in failing) or result.outcome == "timeout"
    out.update(outcome_cex="unknown", category_cex="Timeout/Unknown" if timeouts else categories[0])
    # the paper's: a goal the provers answered (Unknown, Failed) without timing out is a failure; only a
    # time-out (a prover's Timeout answer, or the run's budget spent) is unknown
    answered = [g for g in failing if g.status != "timeout"]
    if answered and result.outcome != "timeout":
        out.update(outcome="failure", category=answered[0].category)
    else:
        out.update(outcome="unknown", category="Timeout")
    return out


def _failure_from_answer(instance: SpecsInstance, answer: Answer) -> Verdict:
    category = "CodeModified" if answer.error == "code_modified" else "InvalidResponse"
    got = answer.details.get("annotated", "")
    rows = [DiffRow(label="response", expected="the task's program with ACSL annotations",
                    got=answer.message or answer.error or "nothing usable", ok=False, note=category)]
    if answer.error == "code_modified":
        rows.append(DiffRow(label=f"task line {answer.details.get('expected_line')}",
                            expected=str(answer.details.get("expected_token")),
                            got=f"reply line {answer.details.get('got_line')}: {answer.details.get('got_token')}",
                            ok=False, note="the code outside the annotations must stay as given"))
    return Verdict(correct=False, score=0.0, status="failure", expected=instance.reference(), got=got or None,
                   diff=rows, explanation=f"Failure ({category}): {answer.message or answer.error}",
                   details={"outcome": "failure", "outcome_cex": "failure", "category": category,
                            "category_cex": category, "categories": [category], "extraction_error": answer.error})


def verify(instance: SpecsInstance, answer: Answer, *, with_completeness: bool | None = None) -> Verdict:
    if not answer.ok or not isinstance(answer.value, dict) or not isinstance(answer.value.get("annotated"), str):
        return _failure_from_answer(instance, answer)
    annotated = answer.value["annotated"]
    info = consistency(instance, annotated)
    outcome = info["outcome"]
    goals = info["goals"]
    proved = sum(1 for g in goals if g["status"] == "valid")
    rows: list[DiffRow] = []
    if info.get("error"):
        where = f" (line {info['error_line']})" if info.get("error_line") else ""
        rows.append(DiffRow(label=f"Frama-C{where}", expected="annotations that parse and type-check",
                            got=info["error"], ok=False, note=info["category"]))
    for g in goals:
        if g["status"] != "valid":
            rows.append(DiffRow(label=f"line {g['line']}: {g['kind']}", expected="proved",
                                got=f"{g['status']}" + (f" ({g['prover']})" if g["prover"] else ""), ok=False,
                                note=g["category"] + (f" — to prove: {g['prove']}" if g["prove"] else "")))
    cex = info.get("counterexample")
    if cex:
        rows.insert(0, DiffRow(label="counterexample", expected="the contract holds on every admissible input",
                               got=f"{cex['input']} breaks the {cex['kind'].lower()} at line {cex['line']}",
                               ok=False, note=cex["message"]))
    details: dict[str, Any] = {**info, "proved": proved, "total_goals": len(goals)}
    if outcome == "success":
        rows.append(DiffRow(label="goals", expected="all proved", got=f"{proved}/{len(goals)} proved", ok=True))
        explanation = f"Success: all {len(goals)} goals proved."
    elif outcome == "failure":
        if cex:
            explanation = (f"Failure ({info['category']}): the input {cex['input']} satisfies the precondition but "
                           f"breaks the {cex['kind'].lower()} at line {cex['line']}.")
        elif info.get("error"):
            explanation = f"Failure ({info['category']}): Frama-C rejects the annotations: {info['error']}"
        elif any(g["status"] == "invalid" for g in goals):
            explanation = f"Failure ({info['category']}): a goal is refuted."
        else:
            unproved = [g for g in goals if g["status"] not in ("valid", "timeout")]
            explanation = (f"Failure ({info['category']}): the provers cannot establish {len(unproved)} of "
                           f"{len(goals)} goals (answered without a time-out); no counterexample on the test and "
                           "random inputs, so it is unknown under the counterexample convention.")
    elif outcome == "error":
        explanation = f"Error, no verdict: {info['error']}."
    else:
        explanation = (f"Unknown ({info['category']}): {proved}/{len(goals)} goals proved, the rest timed out; "
                       "no counterexample on the test and random inputs.")
    if not rows:
        rows.append(DiffRow(label="verification", expected="success", got=outcome, ok=outcome == "success"))
    success = outcome == "success"
    verdict = Verdict(correct=success, score=1.0 if success else 0.0, status=outcome, expected=instance.reference(),
                      got=annotated, diff=rows, explanation=explanation, details=details)
    if success and with_completeness:
        verdict = add_completeness(verdict, completeness(instance, annotated))
    return verdict


def complete_verdict(instance: SpecsInstance, answer: Answer, verdict: Verdict) -> Verdict | None:
    """A verified contract's verdict with its completeness added, for a verdict given without it (the
    workbench's immediate check, a run made with `--completeness off`); None when there is nothing to add."""
    if verdict.status != "success" or isinstance(verdict.details.get("completeness"), dict):
        return None
    annotated = answer.value.get("annotated") if isinstance(answer.value, dict) else None
    if not isinstance(annotated, str):
        return None
    if not isinstance(instance, SpecsInstance):
        instance = SpecsInstance.model_validate(instance.model_dump())
    return add_completeness(verdict, completeness(instance, annotated))


def add_completeness(verdict: Verdict, comp: dict[str, Any]) -> Verdict:
    """A verified contract's verdict with its completeness result added (rows, explanation, details)."""
    rows = list(verdict.diff)
    if comp.get("left_out"):
        rows.append(DiffRow(label="completeness", expected="the task's mutants located in the reply",
                            got=f"{comp['left_out']} mutants could not be located: no CR", ok=False,
                            note="counted in the summary as cr_left_out"))
    explanation = verdict.explanation
    if comp.get("cr") is not None:
        rows.append(DiffRow(label="completeness", expected="every non-equivalent mutant rejected",
                            got=f"{comp['killed']}/{comp['evaluated']} mutants rejected (CR {comp['cr']:.2f})",
                            ok=comp["killed"] == comp["evaluated"],
                            note="; ".join(r["mutant"] for r in comp["rows"] if not r["killed"])[:500]))
        explanation += f" Completeness {comp['cr']:.2f}."
    return verdict.model_copy(update={"diff": rows, "explanation": explanation,
                                      "details": {**verdict.details, "completeness": comp}})


# ---- completeness as separate tasks (core.cluster) ----------------------------------------------------
_DEFERRED: ContextVar[bool] = ContextVar("specs_completeness_deferred", default=False)


def check_parts(items: Sequence[tuple[SpecsInstance, str]]) -> list[tuple[Answer, Verdict, dict[str, Any] | None,
                                                                           list[str]]]:
    """`check_many` without running the mutants: each answer with (its verdict so far, the completeness
    plan, the annotated mutants each to be run by `run_part`). An answer that needs no WP run for its
    completeness (none, or no mutant) comes back finished, with no parts. The cluster sends each part as a
    task of its own and finishes the verdict with `finish_parts`: the verdict is the one `check_many`
    gives."""
    from core.extraction import extract
    from core.family import get_family
    from core.groundtruth import checking_ground_truth

    fam = get_family("specs")
    answers = [extract(fam, response, instance) for instance, response in items]
    token = _DEFERRED.set(True)
    try:
        verdicts = verify_many([(instance, answer) for (instance, _), answer in zip(items, answers, strict=True)])
    finally:
        _DEFERRED.reset(token)
    cr = completeness_enabled() and not checking_ground_truth()
    out: list[tuple[Answer, Verdict, dict[str, Any] | None, list[str]]] = []
    for (instance, _), answer, verdict in zip(items, answers, verdicts, strict=True):
        if not cr or verdict.status != "success":
            out.append((answer, verdict, None, []))
            continue
        plan, texts = completeness_plan(instance, answer.value["annotated"])
        if not texts:
            out.append((answer, add_completeness(verdict, plan), None, []))
        else:
            out.append((answer, verdict, plan, texts))
    return out


def run_part(text: str) -> str:
    """One mutant of a completeness plan: WP's outcome on it."""
    return wp(text).outcome


def finish_parts(instance: SpecsInstance, verdict: Verdict, plan: dict[str, Any], outcomes: Sequence[str]) -> Verdict:
    return add_completeness(verdict, completeness_from(plan, outcomes))


def verify_many(items: Sequence[tuple[SpecsInstance, Answer]]) -> list[Verdict]:
    """Verdicts for many answers, verified concurrently (tool processes bounded by `workers()`)."""
    from core.groundtruth import checking_ground_truth

    cast = [(i if isinstance(i, SpecsInstance) else SpecsInstance.model_validate(i.model_dump()), a) for i, a in items]
    # an import's check of references asks only whether each verifies: no completeness (8 WP runs each)
    # (read here, in the caller's thread: the pool's threads do not see its context)
    cr = completeness_enabled() and not checking_ground_truth() and not _DEFERRED.get()
    ex = ThreadPoolExecutor(max_workers=max(1, 2 * workers()), thread_name_prefix="specs-verify")
    try:
        return list(ex.map(lambda item: verify(item[0], item[1], with_completeness=cr), cast))
    finally:  # interrupted (SIGINT/SIGTERM): answers not started are dropped, running ones finish and clean up
        ex.shutdown(wait=True, cancel_futures=True)
