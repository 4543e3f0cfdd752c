"""Every WP goal is read and checked against WP's own count, and the two conventions
for unproved goals: the paper's (only a time-out is unknown) by default, the counterexample one
beside it. Real Frama-C runs on small programs with callers, `\\valid`, RTE, loop assigns, terminates."""

from __future__ import annotations

import pytest
from specs_helpers import corpus_instance, fenced

from core.families.specs.csyntax import strip_annotations
from core.families.specs.extract import extract
from core.families.specs.model import SpecsInstance
from core.families.specs.tools import FRAMAC, why3_config
from core.families.specs.verify import verify
from core.families.specs.wp import DEFAULT_OPTIONS, FILE, interpret, parse_goals, run_wp, summary
from core.tools import run

pytestmark = pytest.mark.framac

INC = """/*@ requires 0 <= x <= 100;
    terminates \\true;
    assigns \\nothing;
    ensures \\result == x + 1;
*/
int inc(int x) { return x + 1; }
"""

# bump's own contract holds (inc's postcondition is assumed at the call), but the call does not meet
# inc's precondition (*p may be 1000): WP's goal "Instance of 'Pre-condition ...' at initialization of
# 'd'" fails. Before the fix the parser dropped it and the verdict was success.
CALLER = INC + """
/*@ requires \\valid(p);
    requires 0 <= *p <= 1000;
    assigns *p;
    ensures *p == \\old(*p) + 1;
*/
void bump(int *p) {
  int d = inc(*p);
  *p = d;
}
"""

FULL = INC + """
/*@ requires 0 <= n <= 100;
    requires \\valid(a + (0 .. n-1));
    terminates \\true;
    assigns a[0 .. n-1];
    ensures \\forall integer k; 0 <= k < n ==> a[k] == k + 1;
*/
void fill(int *a, int n) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \\forall integer k; 0 <= k < i ==> a[k] == k + 1;
      loop assigns i, a[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    a[i] = inc(i);
  }
}

/*@ assigns \\nothing;
    ensures \\result == 3; */
int use(void) {
  int b[3];
  fill(b, 3);
  return b[2];
}
"""


def _instance(text: str, function: str) -> SpecsInstance:
    return SpecsInstance(code=strip_annotations(text), function=function, ground_truth={"contract": text},
                         meta={"program": function}).with_content_id()  # type: ignore[return-value]


def _raw(text: str) -> str:
    result = run(FRAMAC, [*DEFAULT_OPTIONS.args(), FILE], files={FILE: text, "why3.conf": why3_config()},
                 env={"WHY3CONFIG": "why3.conf"}, timeout_s=DEFAULT_OPTIONS.budget_s, memory_mb=6144)
    return result.stdout


def test_a_failed_call_site_precondition_is_never_a_success():
    inst = _instance(CALLER, "bump")
    verdict = verify(inst, extract(fenced(CALLER), inst))
    assert verdict.status == "failure" and not verdict.correct, verdict.explanation
    assert verdict.details["category"] == "PreconditionFailure"
    failing = [g for g in verdict.details["goals"] if g["status"] != "valid"]
    assert [(g["line"], g["kind"].split(" (")[0]) for g in failing] == [(14, "Instance of 'Pre-condition")]
    assert verdict.details["total_goals"] == summary(_raw(CALLER))[1]


def test_every_goal_is_read_and_matches_the_summary():
    result = run_wp(FULL)
    assert result.outcome == "proved", [g for g in result.goals if not g.proved]
    counted = summary(_raw(FULL))
    assert counted == (len(result.goals), len(result.goals))
    kinds = " | ".join(g.kind for g in result.goals)
    for kind in ("Instance of 'Pre-condition", "Loop assigns", "Termination-condition", "rte,mem_access",
                 "rte,signed_overflow", "Decreasing of Loop variant", "Preservation of Invariant"):
        assert kind in kinds, kind
    calls = [g for g in result.goals if g.kind.startswith("Instance of")]
    assert {g.function for g in calls} == {"fill", "use"} and all(g.line for g in calls)


def test_a_goal_the_parser_cannot_read_is_an_error_naming_both_counts():
    stdout = _raw(CALLER)
    total = summary(stdout)[1]
    # a header in a shape the parser does not know (simulated by breaking the word it keys on)
    broken = stdout.replace("\nGoal Instance of", "\nGoal-like Instance of", 1)
    result = interpret(broken, "", 0)
    assert result.outcome == "error" and result.error_kind == "WpOutputMismatch"
    assert f"reports {total} goals" in result.error_message and f"{total - 1} goals" in result.error_message


def test_unprovable_without_timeout_is_a_failure_by_default_and_unknown_under_the_cex_convention():
    inst = corpus_instance("sum_to_n")
    weak = inst.reference().replace("      loop invariant 2 * s == (i - 1) * i;\n", "")
    verdict = verify(inst, extract(fenced(weak), inst))
    assert verdict.status == "failure" and verdict.details["category"] == "PostconditionFailure"
    assert verdict.details["outcome_cex"] == "unknown" and "counterexample" not in verdict.details
    assert verdict.details["category_cex"] == "PostconditionFailure"


def test_a_time_out_is_unknown_under_both(tmp_path):
    from core.tools.cache import configure

    own = configure(tmp_path / "tools.db")  # this test's cache (the next test's fixture sets the shared one)
    text = """/*@ requires 1 < a < 100000 && 1 < b < 100000 && 1 < c < 100000;
    assigns \\nothing;
    ensures a*a*a*a + b*b*b*b != c*c*c*c; */
void f4(long a, long b, long c) {}
"""
    inst = _instance(text, "f4")
    verdict = verify(inst, extract(fenced(text), inst))
    goal = next(g for g in verdict.details["goals"] if g["status"] != "valid")
    assert goal["status"] == "timeout"
    assert verdict.status == "unknown" and verdict.details["category"] == "Timeout"
    assert verdict.details["outcome_cex"] == "unknown"
    # a prover's time-out depends on the machine's load: the WP runs that timed out were not cached, the
    # other tool runs of the verification were (so the next verification tries WP again, and only WP)
    stored = [own.get(key) for (key,) in own._conn().execute("select key from tool_cache")]
    assert stored and all(result is not None for result in stored)
    assert not any(g.status == "timeout" for result in stored for g in parse_goals(result.stdout, 5))


@pytest.mark.framac
def test_paper_style_prompt_has_none_of_the_projects_additions():
    from core.family import get_family

    fam = get_family("specs")
    inst = corpus_instance("max_of_two")
    assert "paper" in fam.prompt_styles
    paper = fam.prompt(inst, "paper")
    text = "\n".join(m["content"] for m in paper.messages)
    assert "### DESCRIPTION" not in text and inst.description not in text
    assert "Do not change the C code" not in text
    assert inst.code.rstrip() in text and "Please generate ACSL specifications" in text
    zero = "\n".join(m["content"] for m in fam.prompt(inst, "zero-shot").messages)
    assert "### DESCRIPTION" in zero and inst.description in zero


def test_a_give_up_at_the_time_limit_is_a_time_out():
    """On a loaded machine CVC4's own limit can fire just before Why3's and it answers Unknown at 5 s
    where an idle machine prints Timeout: that is a time-out (unknown), not a give-up (failure)."""
    from core.families.specs.wp import parse_goals

    def printed(cvc4: str) -> str:
        return ("Goal Post-condition (file program.c, line 3) in 'f4':\n"
                "Prove: (c * c * c * c) != ((a * a * a * a) + (b * b * b * b)).\n"
                "Prover Z3 4.8.12 returns Failed\nUnknown error\n"
                f"Prover CVC4 1.8 returns {cvc4}\n\n")

    assert parse_goals(printed("Timeout (Qed:4ms) (5s)"), 5)[0].status == "timeout"
    assert parse_goals(printed("Unknown (Qed:4ms) (4.9s)"), 5)[0].status == "timeout"
    assert parse_goals(printed("Unknown (Qed:4ms) (120ms)"), 5)[0].status == "unknown"
