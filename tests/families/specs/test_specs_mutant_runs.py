"""Mutants run first: what counts as evidence that a mutant breaks the contract (a failed postcondition,
loop invariant, variant or assertion of the mutant's function) and what never does (a failed precondition,
a run-time error while evaluating an annotation, a predicate with \\at, anything when the unmutated program
fails too); when the function cannot be copied apart from the program. No tool runs here."""

from __future__ import annotations

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
