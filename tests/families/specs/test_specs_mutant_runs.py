"""Mutants run first: what counts as evidence that a mutant breaks the contract (a failed postcondition,
loop invariant, variant or assertion of the mutant's function) and what never does (a failed precondition,
a run-time error while evaluating an annotation, a predicate with \\at, anything when the unmutated program
fails too); when the function cannot be copied apart from the program. No tool runs here."""

from __future__ import annotations

from core.families.specs.checkable import (
    calls_itself,
    curried_guards,
    pre_state_reads,
    without_labelled_invariants,
)
from core.families.specs.mutant_runs import _read, guarded_lines, isolate, renamed_copy


def _run(v: int, i: int, text: str, rc: int) -> str:
    return f"@@run {v} {i}\n{text}\n@@rc {rc}\n"


def _failure(copy: int, line: int, kind: str, predicate: str) -> str:
    return (f"mutant{copy}.c: In function 'sembench_mutant{copy}_f'\nmutant{copy}.c:{line}: Error: {kind} failed:\n"
            f"\tThe failing predicate is:\n\t{predicate}.\n\tWith values at failure point:\n\t- x: 3")


CASES = [{"x": 0}, {"x": 3}]


def _show(case):
    return f"x={case['x']}"


def test_a_broken_postcondition_kills_with_its_input_and_a_precondition_never_does():
    out = (_run(0, 0, _failure(0, 2, "Precondition", "x > 0"), 86) + _run(0, 1, "", 0)
           + _run(1, 1, _failure(1, 3, "Postcondition", "\\result == \\old(x) + 1"), 86)
           + _run(2, 1, _failure(2, 2, "Precondition", "x > 0"), 86))
    runs = _read(out, CASES, 2, _show)
    assert runs.ran and not runs.reason
    assert set(runs.killed) == {0}
    evidence = runs.killed[0]
    assert (evidence.input, evidence.index, evidence.kind, evidence.line) == ("x=3", 1, "Postcondition", 3)
    assert evidence.message.startswith("\\result ==")


def test_runtime_errors_in_annotations_and_labelled_values_are_no_evidence():
    out = (_run(0, 1, "", 0)
           + _run(1, 1, _failure(1, 4, "RTE", "mem_access: \\valid_read(a + 3)"), 86)
           + _run(2, 1, _failure(2, 9, "Invariant", "n == \\at(n, Pre)"), 86)
           + _run(3, 1, "killed", 137)
           + _run(4, 1, _failure(4, 7, "Assertion", "rte/signed_overflow: x + 1 <= 2147483647"), 86))
    runs = _read(out, CASES, 4, _show)
    # only the program's own run-time-error guard (the goal -wp-rte makes of it) counts
    assert set(runs.killed) == {3} and runs.killed[3].kind == "Assertion"
    assert runs.timed_out == [2]


def test_a_failure_of_the_unmutated_program_discredits_every_run():
    out = _run(0, 1, _failure(0, 3, "Postcondition", "\\result >= 0"), 86) + \
        _run(1, 1, _failure(1, 3, "Postcondition", "\\result >= 0"), 86)
    runs = _read(out, CASES, 1, _show)
    assert not runs.killed and "unmutated program breaks the postcondition" in runs.reason


CODE = """/*@ axiomatic A { logic integer g(integer x); } */
/*@ requires x >= 0 &&
      x < 100;
    behavior small: assumes x < 10; ensures \\result == 0;
    ensures \\result >= 0;
*/
int f(int x) { if (x > 50) return f(x - 1); return 0; }
int main(void) { return f(3); }
"""


def test_the_copy_is_the_contract_and_body_renamed_with_its_recursion():
    span = isolate(CODE, "f")
    assert span is not None
    copy = renamed_copy(CODE, span, "f", "m1_f")
    assert copy.startswith("/*@ requires") and "axiomatic" not in copy  # the global annotation stays put
    assert "int m1_f(int x)" in copy and "return m1_f(x - 1);" in copy and "main" not in copy
    # the lines of the requires and assumes clauses (an ignored one there leaves inputs unknown)
    assert guarded_lines(CODE, span) == {2, 3, 4}


def test_a_function_with_a_prototype_or_another_caller_is_not_copied():
    assert isolate("int f(int x);\n/*@ ensures \\result == x; */\nint f(int x) { return x; }\n", "f") is None
    assert isolate("int f(int x) { return x; }\nint g(int y) { return f(y); }\n", "f") is None
    assert isolate("int f(int x) { return x; }\nint g(int y) { return y; }\n", "f") is not None


LABELLED = """void f(int *a, int n) {
  /*@ loop invariant 0 <= i <= n;
      loop invariant \\forall integer k; 0 <= k < i ==> a[k] == \\at(a[k], Pre) + 1;
      for b: loop invariant a[0] == \\at(a[0], Pre);
      loop assigns i, a[0 .. n-1];
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) a[i]++;
  //@ loop invariant n == \\at(n, Pre);
  while (0) {}
  //@ assert n == \\at(n, Pre);
}
"""


def test_labelled_loop_invariants_are_blanked_and_nothing_else_moves():
    out = without_labelled_invariants(LABELLED)
    assert "\\at(" not in out.split("//@ assert")[0]  # every labelled loop invariant, behaviour-specific too
    assert "//@ assert n == \\at(n, Pre);" in out  # an assertion is not a loop invariant: kept
    for kept in ("loop invariant 0 <= i <= n;", "loop assigns i, a[0 .. n-1];", "loop variant n - i;", "/*@", "*/"):
        assert kept in out
    assert len(out.encode()) == len(LABELLED.encode()) and out.count("\n") == LABELLED.count("\n")
    assert "//@" not in out.split("while")[0].split("a[i]++;")[1]  # a comment left empty goes whole
    assert without_labelled_invariants(CODE) == CODE


UPPER = """/*@ requires \\valid(s + (0 .. n-1));
    ensures \\forall integer k; 0 <= k < n && 'a' <= \\old(s[k]) <= 'z' ==> s[k] == \\old(s[k]) - 32;
    ensures \\forall integer k; 0 <= k < n && x || y ==> s[k] == \\old(s[k] + 1) + \\old(n);
*/
void to_upper(char *s, int n) {
  /*@ loop invariant \\forall integer k; i <= k < n ==> s[k] == \\at(s[k], Pre) + \\at(s[b[k]], Pre);
      loop invariant s[0] == \\at(s[0], LoopEntry);
  */
  for (int i = 0; i < n; i++) s[i] = s[i] - 32; // \\old(s[i]) in a comment that is not ACSL
}
"""


def test_pre_state_reads_become_reads_of_the_copy_and_nothing_else_does():
    out = pre_state_reads(UPPER, {"s"})
    assert "'a' <= sembench_pre_s[k] <= 'z' ==> s[k] == sembench_pre_s[k] - 32;" in out
    assert "\\old(s[k] + 1) + \\old(n)" in out  # not an element read, or not a pointer parameter
    assert "s[k] == sembench_pre_s[k] + sembench_pre_s[b[k]];" in out  # \\at(.., Pre), nested brackets
    assert "\\at(s[0], LoopEntry)" in out and "// \\old(s[i])" in out  # another label; code comments
    assert out.count("\\n") == UPPER.count("\\n")
    assert pre_state_reads(UPPER, {"t"}) == UPPER
    assert not calls_itself(UPPER, "to_upper") and calls_itself(CODE, "f")


def test_a_guarded_quantifier_is_curried_only_where_that_is_the_same_predicate():
    out = curried_guards(UPPER)
    assert "\\forall integer k; 0 <= k < n ==> 'a' <= \\old(s[k]) <= 'z' ==> s[k]" in out
    assert "0 <= k < n && x || y ==>" in out  # `(G && x) || y` is not `G ==> ...`
    nested = "/*@ ensures \\forall integer i; 0 <= i < n && a[i] > 0 && (b || c) ==> (\\forall integer j; 0 <= j < i && d ==> e); */"
    assert curried_guards(nested) == ("/*@ ensures \\forall integer i; 0 <= i < n ==> a[i] > 0 && (b || c) ==> "
                                      "(\\forall integer j; 0 <= j < i ==> d ==> e); */")


def test_a_guaranteed_run_time_error_is_no_evidence():
    """`x / 0` in a mutant: the RTE plug-in says "guaranteed RTE" and WP makes no goal of it, so WP alone
    counts the mutant proved; its run stopping at that assertion must not kill it either."""
    out = _run(0, 1, "", 0) + _run(1, 1, _failure(1, 9, "Assertion", "rte/division_by_zero: 0 != 0"), 86)
    assert set(_read(out, CASES, 1, _show).killed) == {0}
    assert not _read(out, CASES, 1, _show, {("mutant1.c", 9)}).killed
    assert set(_read(out, CASES, 1, _show, {("mutant1.c", 8)}).killed) == {0}  # another line
