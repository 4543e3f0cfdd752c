"""Frama-C WP on one annotated C file: run (through the cached tool runner) and read its goals.

Options (measured on the corpus, see the README): `-wp -wp-rte`, provers CVC4 and Z3 raced per goal
(`-wp-prover cvc4,z3`: CVC4 alone leaves a few goals Unknown, and Z3 through this Why3 reports its own
time-outs as "Failed Unknown error", so neither is enough alone), `-wp-timeout 5` per goal (the longest
reference goal takes 0.6 s alone; 3 s timed out on a loaded machine), `-wp-par 4` (WP waits on provers by polling, so a few goals in flight hide
that latency), and a total budget per run. `-wp-print` prints every goal with its kind, file and line
and each prover's answer, which is what this module parses (the goal names WP prints while proving do
not say where the property is).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from core.families.specs.cpp import unsafe_include
from core.families.specs.tools import FRAMAC, why3_config
from core.tools import run

FILE = "program.c"
Status = Literal["valid", "unknown", "timeout", "failed", "invalid"]


class WpOptions(BaseModel):
    provers: str = "cvc4,z3"
    timeout_s: int = 5  # per goal
    par: int = 4
    budget_s: float = 180.0  # the whole run

    def args(self) -> list[str]:
        return ["-wp", "-wp-rte", "-wp-prover", self.provers, "-wp-timeout", str(self.timeout_s), "-wp-par",
                str(self.par), "-wp-print", "-wp-no-warn-memory-model"]


DEFAULT_OPTIONS = WpOptions()


class Goal(BaseModel):
    kind: str  # "Post-condition", "Preservation of Invariant", "Assertion 'rte,signed_overflow'", ...
    line: int | None = None
    function: str | None = None
    part: str | None = None
    status: Status = "unknown"
    prover: str = ""
    time_s: float | None = None
    category: str = ""
    prove: str = ""  # the formula to prove, kept for goals that were not proved

    @property
    def proved(self) -> bool:
        return self.status == "valid"


class WpResult(BaseModel):
    outcome: Literal["proved", "unproved", "error", "timeout"]
    goals: list[Goal] = Field(default_factory=list)
    error_kind: str = ""  # SyntaxError, TypeError, UnsupportedConstruct
    error_message: str = ""
    error_line: int | None = None
    elapsed_s: float = 0.0
    cached: bool = False
    log: str = ""

    @property
    def failing(self) -> list[Goal]:
        return [g for g in self.goals if not g.proved]


_HEADER = re.compile(r"^Goal (?P<kind>.+?) \(file (?P<file>[^,]+), line (?P<line>\d+)\)"
                     r"(?: in '(?P<fn>[^']+)')?(?: \((?P<part>[^)]*)\))?:\s*$")
_HEADER_ANY = re.compile(r"^Goal (?P<kind>.+?):\s*$")
_PROVER = re.compile(r"^Prover (?P<prover>.+?) returns (?P<status>\w+)(?P<rest>.*)$")
_TIME = re.compile(r"\((\d+(?:\.\d+)?)(ms|s)\)")
_ERROR_LINE = re.compile(r"^\[kernel(?::[\w-]+)?\] (?:[^:\n]*/)?" + re.escape(FILE) + r":(\d+): (?:Warning|Failure|User Error): ?(.*)$")
_RANK = {"valid": 0, "invalid": 1, "unknown": 2, "timeout": 3, "failed": 4}


def category_of(kind: str) -> str:
    """The failure category of a goal that was not proved, from its kind."""
    k = kind.lower()
    if "rte," in k:
        if any(w in k for w in ("mem_access", "pointer", "index_bound", "valid")):
            return "MemoryAccess"
        return "ArithmeticOverflow"
    if "post-condition" in k or "exit-condition" in k:
        return "PostconditionFailure"
    if "establishment of invariant" in k:
        return "LoopInvariantEstablish"
    if "preservation of invariant" in k or "invariant" in k:
        return "LoopInvariantPreserve"
    if "variant" in k:
        return "LoopVariant"
    if "assigns" in k:
        return "AssignsFailure"
    if "pre-condition" in k:
        return "PreconditionFailure"
    if "behaviors" in k:
        return "PostconditionFailure"
    if "assertion" in k:
        return "AssertionFailure"
    return "Other"


def _seconds(rest: str) -> float | None:
    times = _TIME.findall(rest)
    if not times:
        return None
    value, unit = times[-1]
    return float(value) / (1000.0 if unit == "ms" else 1.0)


def parse_goals(stdout: str) -> list[Goal]:
    goals: list[Goal] = []
    current: Goal | None = None
    prove_lines: list[str] | None = None
    for line in stdout.splitlines():
        header = _HEADER.match(line)
        if header is None and line.startswith("Goal ") and line.rstrip().endswith(":"):
            header = _HEADER_ANY.match(line)
        if header is not None:
            groups = header.groupdict()
            current = Goal(kind=groups["kind"], line=int(groups["line"]) if groups.get("line") else None,
                           function=groups.get("fn"), part=groups.get("part"), status="failed")
            current.category = category_of(current.kind)
            current.prover = ""
            goals.append(current)
            prove_lines = None
            current_rank = 99
            continue
        if current is None:
            continue
        if line.startswith("Prove:"):
            prove_lines = [line[len("Prove:"):].strip()]
            continue
        prover = _PROVER.match(line)
        if prover is not None:
            status = prover.group("status").lower()
            status = status if status in _RANK else "failed"
            rank = _RANK[status]
            if not current.prover or rank < current_rank:
                current.status = status  # type: ignore[assignment]
                current.prover = prover.group("prover")
                current.time_s = _seconds(prover.group("rest"))
                current_rank = rank
            if prove_lines is not None:
                current.prove = " ".join(prove_lines)[:600]
                prove_lines = None
            continue
        if prove_lines is not None and line.strip() and not line.startswith("---"):
            prove_lines.append(line.strip())
    for goal in goals:
        if goal.proved:
            goal.prove = ""
    return goals


def _annotation_error(log: str) -> tuple[str, str, int | None]:
    """(category, message, line) of a parse or typing error, read from Frama-C's kernel messages."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        match = _ERROR_LINE.match(line)
        if match is None:
            continue
        message = match.group(2).strip()
        j = i + 1
        while not message and j < len(lines) and lines[j].startswith("  "):
            message = lines[j].strip()
            j += 1
        if j < len(lines) and lines[j].startswith("  ") and message:
            message += " " + lines[j].strip()
        return classify_error(message), message, int(match.group(1))
    for line in lines:
        if "User Error" in line or "Failure" in line or "aborted" in line:
            text = line.split("]", 1)[-1].strip()
            return classify_error(text), text, None
    return "SyntaxError", "Frama-C rejected the file", None


def classify_error(message: str) -> str:
    low = message.lower()
    if "not yet implemented" in low or "unsupported" in low or "not supported" in low:
        return "UnsupportedConstruct"
    if any(w in low for w in ("unexpected token", "syntax error", "lexical error", "unterminated", "invalid token", "expecting",
                              "unexpected end")):
        return "SyntaxError"
    return "TypeError"


def run_wp(annotated: str, options: WpOptions = DEFAULT_OPTIONS) -> WpResult:
    """WP on the annotated program (cached by program text, options, Frama-C version and Why3 setup)."""
    unsafe = unsafe_include(annotated)
    if unsafe:  # never let the preprocessor read a device, /proc or a file outside the system directories
        return WpResult(outcome="error", error_kind="UnsafeInclude", error_message=f"include refused: {unsafe}")
    conf = why3_config()
    result = run(FRAMAC, [*options.args(), FILE], files={FILE: annotated, "why3.conf": conf},
                 env={"WHY3CONFIG": "why3.conf"}, timeout_s=options.budget_s, memory_mb=6144)
    log = result.stdout + ("\n" + result.stderr if result.stderr else "")
    if result.timed_out:
        return WpResult(outcome="timeout", goals=parse_goals(result.stdout), elapsed_s=result.elapsed_s,
                        cached=result.cached, log=log[-4000:])
    goals = parse_goals(result.stdout)
    aborted = "Frama-C aborted" in log or "User Error" in log or result.rc not in (0, None)
    if aborted and not goals:
        kind, message, line = _annotation_error(log)
        return WpResult(outcome="error", error_kind=kind, error_message=message, error_line=line,
                        elapsed_s=result.elapsed_s, cached=result.cached, log=log[-4000:])
    outcome = "proved" if goals and all(g.proved for g in goals) else "unproved"
    if not goals:
        outcome = "proved" if "Proved goals:" in log else "unproved"
    return WpResult(outcome=outcome, goals=goals, elapsed_s=result.elapsed_s, cached=result.cached,
                    log=log[-4000:])
