"""The verifier: evaluate the condition exactly and compare; explain with the decisive path."""

from __future__ import annotations

import json
from typing import Any

from core.families.membership.evaluate import Frame, Outcome, explain
from core.families.membership.model import MembershipInstance, function_name, path_text, probe_at
from core.families.membership.render import instance_code_matches, term_text
from core.verdict import Answer, DiffRow, Verdict


def frame_dict(instance: MembershipInstance, frame: Frame) -> dict[str, Any]:
    """One decisive-path frame as JSON: function, branch, the sub-list it ran on, the deciding term."""
    arg = path_text(frame.path)
    out: dict[str, Any] = {"function": function_name(frame.function), "family": frame.function,
                           "path": frame.path, "argument": arg, "length": frame.length, "branch": frame.branch}
    if frame.error:
        out["error"] = frame.error
        return out
    if frame.branch is None:
        out["value"] = False
        return out
    branch = instance.condition.functions[frame.function].branches[frame.branch]
    out["branch_length"] = branch.length
    out["terminal"] = branch.terminal
    if frame.term is not None:
        term = branch.terms[frame.term]
        out.update({"term": frame.term, "term_text": term_text(term), "term_at": term_text(term, arg),
                    "value": frame.value})
        out["skipped"] = len(branch.terms) - frame.term - 1 if frame.value is False else 0
        if term.kind == "compare":
            out["element"] = path_text([*frame.path, term.index])
            out["actual"] = probe_at(instance.probe, [*frame.path, term.index])
    return out


def describe(instance: MembershipInstance, outcome: Outcome, path: list[dict[str, Any]]) -> str:
    """The decisive path in words."""
    parts: list[str] = []
    for frame in path:
        where = f"{frame['function']}({frame['argument']})"
        if "error" in frame:
            parts.append(f"{where} raises {frame['error']}")
        elif frame["branch"] is None:
            parts.append(f"{where} has no branch for length {frame['length']}, so it returns False")
        elif "term_text" not in frame:
            continue
        elif "element" not in frame:  # a call term: the next frame says what happened inside
            parts.append(f"{where} takes the len(x) == {frame['branch_length']} branch and calls {frame['term_at']}")
        else:
            seen = f"{frame['element']} is {json.dumps(frame.get('actual'))}"
            head = f"{where} takes the len(x) == {frame['branch_length']} branch"
            if frame["value"] is False:
                rest = ", and `and` skips the remaining terms" if frame.get("skipped") else ""
                parts.append(f"{head}, where ({frame['term_text']}) is False because {seen}{rest}")
            else:
                parts.append(f"{head}, where the last check ({frame['term_text']}) holds ({seen})")
    chain = "; ".join(parts)
    if outcome.value is True:
        return (f"{instance.entry}(x) is True: all {outcome.terms} term(s) in {outcome.calls} call(s) hold. "
                f"Last check: {chain}.")
    if outcome.value is False:
        return f"{instance.entry}(x) is False: {chain}."
    return f"{instance.entry}(x) does not return a bool: {chain}."


def _instance_part(instance: MembershipInstance) -> dict[str, Any]:
    """What the verdict says about the instance whatever the answer (the evaluation, its decisive path in
    data and in words, the code check), computed once per instance object: a run verifies many answers
    to the same instance, and this is most of the work."""
    cache = instance.derived()
    part = cache.get("verify")
    if part is not None:
        return part
    outcome = explain(instance.condition, instance.probe, instance.entry_index())
    path = [frame_dict(instance, f) for f in outcome.chain]
    truth = outcome.value
    details: dict[str, Any] = {"label": instance.meta.get("label"), "actual": truth, "decisive_path": path,
                               "calls": outcome.calls, "terms_evaluated": outcome.terms}
    recorded = instance.expected_answer()
    if recorded is not None and recorded != truth:
        # The evaluator is the authority; a file whose ground truth disagrees is flagged, not trusted.
        details["ground_truth_mismatch"] = {"recorded": recorded, "evaluated": truth}
    why = describe(instance, outcome, path)
    if not instance_code_matches(instance):
        # Graded against the condition; the file's `code` says something else and was not shown to the model.
        details["code_mismatch"] = True
        why += (" Note: this instance's `code` does not match its `condition`; the condition was graded and "
                "its rendering is what the prompt showed.")
    last = path[-1] if path else {}
    part = {
        "truth": truth,
        "details": details,
        "why": why,
        "path_calls": " -> ".join(f"{f['function']}({f['argument']})" for f in path),
        "path_decider": last.get("term_at") or ("no branch" if last.get("branch") is None else ""),
    }
    cache["verify"] = part
    return part


def verify(instance: MembershipInstance, answer: Answer) -> Verdict:
    part = _instance_part(instance)
    truth, why = part["truth"], part["why"]
    details = dict(part["details"])  # the decisive path itself is shared between verdicts, never changed
    expected_text = "error" if truth is None else str(truth)
    predicted = answer.value if answer.ok and isinstance(answer.value, bool) else None
    correct = truth is not None and predicted == truth
    # The decisive path explains the expected result (the calls, the term that settles it, the value); what
    # the answer claims is the other side. The deciding term is never presented as something "got".
    decider = f", decided by {part['path_decider']}" if part["path_decider"] else ""
    path_row = DiffRow(
        label="decisive path",
        expected=f"{part['path_calls']}{decider} => {expected_text}",
        got=f"the answer says {predicted}" if predicted is not None else "(no answer)",
        ok=correct,
        note=why,
    )
    if not answer.ok:
        details["extraction_error"] = answer.error
        row = DiffRow(label="answer", expected=expected_text, got="(none)", ok=False,
                      note=f"no answer could be extracted: {answer.message}")
        return Verdict(correct=False, score=0.0, status="extraction_error", expected=truth, got=None,
                       diff=[row, path_row], details=details,
                       explanation=f"No True/False answer could be extracted ({answer.error}). {why}")
    details["predicted"] = predicted
    if truth is None:
        row = DiffRow(label="answer", expected=expected_text, got=str(predicted), ok=False,
                      note="the code raises, so neither True nor False is right")
        return Verdict(correct=False, score=0.0, status="invalid_instance", expected=None, got=predicted,
                       diff=[row, path_row], details=details, explanation=why)
    row = DiffRow(label="answer", expected=expected_text, got=str(predicted), ok=correct,
                  expected_spans=[] if correct else [(0, len(expected_text))],
                  got_spans=[] if correct else [(0, len(str(predicted)))])
    lead = f"Correct: answered {predicted}." if correct else f"Wrong: answered {predicted}, but the result is {truth}."
    return Verdict(correct=correct, score=1.0 if correct else 0.0, status="correct" if correct else "wrong",
                   expected=truth, got=predicted, diff=[row, path_row], details=details,
                   explanation=f"{lead} {why}")
