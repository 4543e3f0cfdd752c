"""Self-repair (§4.4.2): feed the failure category, the failing goals and category-specific guidance
back to the solver, for up to N rounds; each round is an attempt linked to the previous one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from core.families.specs.extract import extract
from core.families.specs.model import SpecsInstance
from core.families.specs.prompt import sections
from core.families.specs.verify import verify
from core.trace import Prompt
from core.verdict import Answer, Verdict

GUIDANCE = {
    "SyntaxError": "To resolve the syntax error: 1. find whether it is a C or an ACSL syntax issue; 2. look at the "
                   "reported line; 3. correct it following the ACSL grammar (clauses end with ';').",
    "TypeError": "The annotations do not type-check: every name must be a parameter, a variable in scope, "
                 "\\result (only in ensures), or a logic function or predicate you declared.",
    "UnsupportedConstruct": "WP cannot reason with this construct. Replace extended quantifiers (\\sum, \\numof, "
                            "\\max, \\min) by a logic function defined inductively in an axiomatic block, or by "
                            "\\forall/\\exists.",
    "PostconditionFailure": "The postcondition cannot be established. 1. Check that it states what the function "
                            "really computes; 2. check that the preconditions are strong enough; 3. add loop "
                            "invariants or assertions that carry the needed facts to the end.",
    "LoopInvariantEstablish": "A loop invariant does not hold when the loop starts: check it against the values "
                              "the variables have before the first iteration and the preconditions.",
    "LoopInvariantPreserve": "A loop invariant is not preserved by an iteration: strengthen it (add the facts the "
                             "body needs) or correct it; remember loop assigns must list every variable written.",
    "LoopVariant": "The loop variant must be non-negative at each iteration and strictly decrease.",
    "ArithmeticOverflow": "An arithmetic operation may overflow (WP checks it with -wp-rte): add preconditions "
                          "bounding the inputs and loop invariants bounding the accumulated values.",
    "MemoryAccess": "A memory access may be invalid: require \\valid / \\valid_read over the accessed ranges and "
                    "bound the indices with loop invariants.",
    "AssignsFailure": "The assigns clauses must list every location the function (or loop) writes.",
    "Timeout/Unknown": "The provers could not decide the goals in time: add intermediate facts (loop invariants, "
                       "assertions) so each goal follows simply.",
    "Timeout": "The provers could not decide the goals in time: add intermediate facts (loop invariants, "
               "assertions) so each goal follows simply.",
    "PreconditionFailure": "A call does not meet the callee's precondition: strengthen the caller's preconditions "
                           "or loop invariants, or weaken the callee's precondition.",
    "InvalidResponse": "Answer with the whole program, unchanged, annotated with ACSL, in one ```c block.",
    "CodeModified": "Do not change the C code: only add annotations, and return the whole program.",
}


class RepairRound(BaseModel):
    round: int
    prompt: Prompt
    response: str
    status: str
    category: str = ""
    correct: bool = False
    previous: int | None = None  # the round this one repairs
    verdict: dict[str, Any] = Field(default_factory=dict)


def feedback(verdict: Verdict) -> tuple[str, str]:
    d = verdict.details
    lines = []
    if d.get("error"):
        lines.append(f"line {d.get('error_line')}: {d['error']}")
    cex = d.get("counterexample")
    if cex:
        lines.append(f"counterexample: {cex['input']} violates the {cex['kind'].lower()} at line {cex['line']}: "
                     f"{cex['message']}")
    for g in d.get("goals", []):
        if g["status"] != "valid":
            lines.append(f"line {g['line']}: {g['kind']} {g['status']}" + (f" — to prove: {g['prove']}" if g["prove"] else ""))
    if not lines:
        lines.append(verdict.explanation)
    return "\n".join(lines[:20]), d.get("category") or "Timeout/Unknown"


def repair_prompt(instance: SpecsInstance, current: str, verdict: Verdict) -> Prompt:
    """The next round's prompt. The feedback quotes what tools and the answer's own programs printed
    (a counterexample's message): it is redacted like everything stored, before it goes to a model."""
    from core.models.config import known_secrets
    from core.models.secrets import redact

    s = sections()
    errors, category = feedback(verdict)
    errors = redact(errors, known_secrets())
    user = (s["repair_user"].replace("{current}", current.rstrip()).replace("{errors}", errors)
            .replace("{category}", category).replace("{guidance}", GUIDANCE.get(category, "")))
    return Prompt(style="repair", messages=[{"role": "system", "content": s["repair_system"]},
                                            {"role": "user", "content": user}])


OnRound = Callable[[RepairRound, Answer, Verdict], bool]


def self_repair(instance: SpecsInstance, solve: Callable[[Prompt], str], first_prompt: Prompt | None = None,
                rounds: int = 3, verify_fn: Callable[..., Verdict] = verify,
                on_round: OnRound | None = None) -> list[RepairRound]:
    """Round 0 answers the task prompt; each later round answers a repair prompt built from the previous
    round's verdict, until one verifies or `rounds` repairs were tried. `on_round` sees each round as it
    is verified (the CLI records it as an attempt) and may stop the loop by returning False."""
    from core.families.specs.prompt import render_prompt

    prompt = first_prompt or render_prompt(instance, "few-shot")
    out: list[RepairRound] = []
    for k in range(rounds + 1):
        response = solve(prompt)
        answer = extract(response, instance)
        verdict = verify_fn(instance, answer)
        this = RepairRound(round=k, prompt=prompt, response=response, status=verdict.status,
                           category=str(verdict.details.get("category", "")), correct=verdict.correct,
                           previous=k - 1 if k else None,
                           verdict=verdict.model_dump(mode="json", include={"status", "explanation", "details"}))
        out.append(this)
        if on_round is not None and on_round(this, answer, verdict) is False:
            break
        if verdict.correct:
            break
        current = answer.value["annotated"] if answer.ok else (answer.details.get("annotated") or response)
        prompt = repair_prompt(instance, current, verdict)
    return out
