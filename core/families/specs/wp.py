"""Frama-C WP on one annotated C file: run (through the cached tool runner) and read its goals.

Options (measured on the corpus, see docs/families.md): `-wp -wp-rte`, provers CVC4 and Z3 raced per goal
(`-wp-prover cvc4,z3`: CVC4 alone leaves a few goals Unknown, and Z3 through this Why3 reports its own
time-outs as "Failed Unknown error", so neither is enough alone), `-wp-timeout 5` per goal (the longest
reference goal takes 0.6 s alone; 3 s timed out on a loaded machine), `-wp-par 4` (WP waits on provers by polling, so a few goals in flight hide
that latency), and a total budget per run. `-wp-print` prints every goal with its kind, file and line
and each prover's answer, which is what this module parses (the goal names WP prints while proving do
not say where the property is).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from core.families.specs.cpp import unsafe_include
from core.families.specs.tools import FRAMAC, why3_config
from core.tools import run

if TYPE_CHECKING:
    from core.tools.process import ToolResult

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


# A goal's header is every line of the `-wp-print` section that starts with "Goal ". Most end with ':'
# on the same line; a long one (call-site preconditions: "Goal Instance of 'Pre-condition (file f.c, line
# 1) in 'inc'' in 'bump' at initialization of 'd' (file f.c, line 12)") has its ':' on the next line.
_LOC = re.compile(r"\(file (?P<file>[^,()]+), line (?P<line>\d+)\)")
_FN = re.compile(r" in '(?P<fn>[^']+)'(?!')")
_PART = re.compile(r" \((?P<part>\d+/\d+)\)$")
_BODY = ("Prove:", "Assume", "Let ", "Prover ", "Have:", "Type:", "Call ", "Effect ", "Goal ", "---")
# goals WP settles with its own control-flow analysis (e.g. `terminates` of a function without loops or
# calls) are reported only on a progress line, never in the `-wp-print` section, yet counted in the summary
_CFG = re.compile(r"^\[wp\] \[CFG\] Goal (?P<name>\S+) : (?P<status>\w+)", re.M)
_SUMMARY = re.compile(r"^\[wp\] Proved goals:\s+(?P<proved>\d+)\s*/\s*(?P<total>\d+)", re.M)
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
    if "termination" in k or "terminates" in k:
        return "TerminationFailure"
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


def _header(text: str) -> Goal:
    """A goal from its header text (without "Goal " and the final ':')."""
    part = _PART.search(text)
    if part is not None:
        text = text[:part.start()]
    locs = list(_LOC.finditer(text))
    fns = list(_FN.finditer(text))
    if text.startswith("Instance of ") and fns:
        # a callee's property at a call site: the callee's kind, then the place; the line is the call's
        rest = _LOC.sub("", text[fns[-1].end():]).strip()
        kind = (text[:fns[-1].start()] + (" " + rest if rest else "")).strip()
        category = "PreconditionFailure" if "pre-condition" in kind.lower() else category_of(kind)
    else:
        cut = min([len(text)] + [m.start() for m in locs[:1] + fns[:1]])
        kind = text[:cut].strip() or text.strip()
        category = category_of(kind)
    return Goal(kind=kind, line=int(locs[-1].group("line")) if locs else None,
                function=fns[-1].group("fn") if fns else None, part=part.group("part") if part else None,
                status="failed", category=category)


def parse_goals(stdout: str, timeout_s: float | None = None) -> list[Goal]:
    """Every goal of WP's `-wp-print` section, each with the best answer any prover gave. With
    `timeout_s` (the per-goal limit), a prover that gave up (`Unknown`) at 90% of the limit or later is
    a time-out: on a loaded machine CVC4's own limit can fire just before Why3's, and it then answers
    Unknown where an idle machine says Timeout (the paper counts time-outs as unknown, give-ups as failures)."""
    goals: list[Goal] = []
    current: Goal | None = None
    current_rank = 99
    prove_lines: list[str] | None = None
    lines = stdout.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("Goal "):
            text = line[len("Goal "):].rstrip()
            # the ':' (or the header's end) may be on the next lines
            while not text.endswith(":") and i < len(lines) and lines[i].strip() \
                    and not lines[i].startswith((" ", "\t")) and not lines[i].startswith(_BODY):
                text += " " + lines[i].strip() if not lines[i].startswith(":") else lines[i].strip()
                i += 1
            current = _header(text.removesuffix(":").rstrip())
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
            spent = _seconds(prover.group("rest"))
            if status == "unknown" and timeout_s and spent is not None and spent >= 0.9 * timeout_s:
                status = "timeout"
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
    for match in _CFG.finditer(stdout):
        name, status = match.group("name"), match.group("status").lower()
        function, _, what = name.rpartition("_")
        goals.append(Goal(kind=f"{what.capitalize() or name} (control-flow analysis)", function=function or None,
                          status="valid" if status == "valid" else "unknown", prover="CFG",
                          category=category_of(what or name)))
    for goal in goals:
        if goal.proved:
            goal.prove = ""
    return goals


def summary(log: str) -> tuple[int, int] | None:
    """(proved, total) from WP's own summary line `[wp] Proved goals: X / Y`, when it printed one."""
    match = _SUMMARY.search(log)
    return (int(match.group("proved")), int(match.group("total"))) if match else None


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


def _no_goal_timed_out(result: ToolResult, timeout_s: float) -> bool:
    """Whether a finished WP run may be cached: a goal a prover timed out on depends on the machine's
    load, not only on the program, so such a run is tried again by the next verification (a test, a
    resume, a cluster's driver) instead of answering it from the cache."""
    return not any(goal.status == "timeout" for goal in parse_goals(result.stdout, timeout_s))


def run_wp(annotated: str, options: WpOptions = DEFAULT_OPTIONS) -> WpResult:
    """WP on the annotated program (cached by program text, options, Frama-C version and Why3 setup)."""
    unsafe = unsafe_include(annotated)
    if unsafe:  # never let the preprocessor read a device, /proc or a file outside the system directories
        return WpResult(outcome="error", error_kind="UnsafeInclude", error_message=f"include refused: {unsafe}")
    conf = why3_config()
    result = run(FRAMAC, [*options.args(), FILE], files={FILE: annotated, "why3.conf": conf},
                 env={"WHY3CONFIG": "why3.conf"}, timeout_s=options.budget_s, memory_mb=6144,
                 keep=functools.partial(_no_goal_timed_out, timeout_s=options.timeout_s))
    return interpret(result.stdout, result.stderr, result.rc, timed_out=result.timed_out,
                     elapsed_s=result.elapsed_s, cached=result.cached, goal_timeout_s=options.timeout_s)


def interpret(stdout: str, stderr: str, rc: int | None, *, timed_out: bool = False, elapsed_s: float = 0.0,
              cached: bool = False, goal_timeout_s: float | None = None) -> WpResult:
    """The outcome of one WP run from its output; the goals read must be the ones WP counted."""
    log = stdout + ("\n" + stderr if stderr else "")
    goals = parse_goals(stdout, goal_timeout_s)
    if timed_out:
        return WpResult(outcome="timeout", goals=goals, elapsed_s=elapsed_s, cached=cached, log=log[-4000:])
    aborted = "Frama-C aborted" in log or "User Error" in log or rc not in (0, None)
    if aborted and not goals:
        kind, message, line = _annotation_error(log)
        return WpResult(outcome="error", error_kind=kind, error_message=message, error_line=line,
                        elapsed_s=elapsed_s, cached=cached, log=log[-4000:])
    counted = summary(stdout)
    proved = sum(1 for g in goals if g.proved)
    if counted is not None and counted != (proved, len(goals)):
        # never a verdict from a partial reading: a goal the parser missed may be a failed one
        return WpResult(outcome="error", goals=goals, error_kind="WpOutputMismatch",
                        error_message=f"Frama-C reports {counted[1]} goals ({counted[0]} proved) but "
                                      f"{len(goals)} goals ({proved} proved) were read from its output",
                        elapsed_s=elapsed_s, cached=cached, log=log[-4000:])
    outcome = "proved" if goals and all(g.proved for g in goals) else "unproved"
    if not goals:
        outcome = "proved" if "Proved goals:" in log else "unproved"
    return WpResult(outcome=outcome, goals=goals, elapsed_s=elapsed_s, cached=cached, log=log[-4000:])
