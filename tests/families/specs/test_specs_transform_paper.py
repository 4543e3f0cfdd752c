"""The paper's transformations added for C (ElseIf2If, Switch2If, MergeVarDecl, InfixDividing,
SwapStatement, If2CondExp, CondExp2If): each applies where it should, its output compiles and behaves
like the original under differential testing (gcc, the family's own harness), and it is not applied
where it would change the meaning."""

from __future__ import annotations

import pytest

from core.families.specs.csyntax import signature, strip_annotations
from core.families.specs.inputs import HarnessSpec, random_inputs
from core.families.specs.runtime import differential
from core.families.specs.transform import PAPER_NAMES, TRANSFORMATIONS, variants
from core.families.specs.transform_control import cond_exp_to_if, else_if_to_if, if_to_cond_exp, switch_to_if
from core.families.specs.transform_stmt import infix_dividing, merge_var_decl, swap_statement

GRADE = """int grade(int s) {
  int r = 0;
  if (s >= 90) {
    r = 4;
  } else if (s >= 80) {
    r = 3;
  } else if (s >= 70) {
    r = 2;
  } else {
    r = 1;
  }
  return r;
}
"""

SWITCH = """/*@ assigns \\nothing; */
int kind(int x) {
  int r = 0;
  switch (x % 5) {
    case 0:
    case 1:
      r = 10;
      break;
    case 2:
      return 7;
    default:
      r = x;
      break;
    case 3:
      r = -1;
      break;
  }
  return r;
}
"""

FALLTHROUGH = """int kind(int x) {
  int r = 0;
  switch (x) {
    case 1:
      r = r + 1;
    case 2:
      r = r + 2;
      break;
    default:
      r = 9;
  }
  return r;
}
"""

BREAK_IN_LOOP = """int count(int n) {
  int c = 0;
  for (int i = 0; i < n; i++) {
    switch (i % 3) {
      case 0:
        if (i > 4) break;
        c = c + 1;
        break;
      default:
        c = c + 2;
        break;
    }
  }
  return c;
}
"""

DECLS = """int f(int a, int b) {
  int x = a * 2;
  int y = x + b;
  long z = a;
  return x + y + (int) z;
}
"""

INFIX = """int f(int a, int b, int c) {
  int x = 0;
  x = a + b * c;
  return x - (a - c) % 7;
}
"""

SWAP = """int f(int a, int b, int *out) {
  int x = a + 1;
  int y = b * 2;
  out[0] = x;
  out[1] = y;
  return x - y;
}
"""

IFS = """int f(int a, int b) {
  int d;
  if (a > b) {
    d = a - b;
  } else {
    d = b - a;
  }
  if (d > 10) {
    return d;
  }
  return 10;
}
"""

CONDS = """int f(int a, int b) {
  int d = 0;
  d = a > b ? a - b : b - a;
  return d > 10 ? d : 10;
}
"""


def _behaviour(original: str, variant: str, function: str) -> tuple[list[str], list[str]]:
    """Differential testing as the family does it: both programs in one gcc-compiled harness, on
    random inputs (plus the corners of the ranges)."""
    sig = signature(original, function)
    assert sig is not None
    cases = random_inputs(sig, HarnessSpec(arrays={"out": "2"}), "transform-test", count=60)
    cases += [{p.name: v for p in sig.params if not p.pointer} | {p.name: [0, 0] for p in sig.params if p.pointer}
              for v in (-20, -1, 0, 1, 2, 3, 4, 5, 20)]
    table = differential([strip_annotations(original), strip_annotations(variant)], function, sig, cases)
    assert table is not None, "the variant must compile"
    assert all(out != "missing" for row in table for out in row)
    return table[0], table[1]


def _check(original: str, variant: str | None, function: str) -> str:
    assert variant is not None and variant != original
    before, after = _behaviour(original, variant, function)
    assert before == after
    return variant


def test_else_if_to_if_nests_the_chain_and_keeps_behaviour():
    out = _check(GRADE, else_if_to_if(GRADE, "grade"), "grade")
    assert "else if (s >= 80)" not in out and "} else {\n    if (s >= 80) {" in out
    assert else_if_to_if(IFS, "f") is None  # no else-if there


def test_switch_to_if_keeps_groups_default_and_returns():
    out = _check(SWITCH, switch_to_if(SWITCH, "kind"), "kind")
    assert "switch" not in out and "break" not in out
    assert "if ((x % 5) == 0 || (x % 5) == 1)" in out and "return 7;" in out
    assert out.rstrip().endswith("return r;\n}") and out.count("else {") == 1  # default last, as the else
    assert out.startswith("/*@ assigns \\nothing; */")


def test_switch_to_if_refuses_fall_through_stray_break_and_side_effects():
    assert switch_to_if(FALLTHROUGH, "kind") is None
    assert switch_to_if(BREAK_IN_LOOP, "count") is None  # the inner break would leave the for loop
    assert switch_to_if(SWITCH.replace("switch (x % 5)", "switch (x++ % 5)"), "kind") is None
    # a declaration in a case is in scope for the later cases; in a branch's braces it would not be
    assert switch_to_if(SWITCH.replace("r = 10;\n", "r = 10;\n      int y = 2;\n"), "kind") is None


def test_a_naive_switch_rewrite_of_fall_through_is_caught_by_differential_testing():
    # what Switch2If refuses to do: the harness sees the difference, so the refusal matters
    naive = FALLTHROUGH.replace("""  switch (x) {
    case 1:
      r = r + 1;
    case 2:
      r = r + 2;
      break;
    default:
      r = 9;
  }""", """  if (x == 1) { r = r + 1; } else if (x == 2) { r = r + 2; } else { r = 9; }""")
    before, after = _behaviour(FALLTHROUGH, naive, "kind")
    assert before != after


def test_merge_var_decl_merges_same_type_declarations_only():
    out = _check(DECLS, merge_var_decl(DECLS, "f"), "f")
    assert "int x = a * 2, y = x + b;" in out and "long z = a;" in out
    assert merge_var_decl("int f(int a) {\n  int x = a;\n  long y = a;\n  return x + (int) y;\n}\n", "f") is None
    annotated = "int f(int a) {\n  int x = a;\n  //@ assert x == a;\n  int y = a;\n  return x + y;\n}\n"
    assert merge_var_decl(annotated, "f") is None


def test_infix_dividing_takes_a_typed_operand_into_a_temporary():
    out = _check(INFIX, infix_dividing(INFIX, "f"), "f")
    assert "int temp = b * c;\n  x = a + temp;" in out
    # split again, the variant names a fresh temporary for the next operand
    again = _check(INFIX, infix_dividing(out, "f"), "f")
    assert "int temp1 = (a - c) % 7;\n  return x - temp1;" in again


def test_infix_dividing_refuses_side_effects_short_circuits_and_unknown_types():
    assert infix_dividing("int f(int a, int b) {\n  int x = a + b * a++;\n  return x;\n}\n", "f") is None
    assert infix_dividing("int f(int a, long b) {\n  long x = a * b + 1;\n  return (int) x;\n}\n", "f") is None
    assert infix_dividing("int f(int *a, int n) {\n  int x = n > 0 && a[0] + 1 > 2;\n  return x;\n}\n", "f") is None
    assert infix_dividing("int f(int a, int b) {\n  if (a) return a + b * 2;\n  return 0;\n}\n", "f") is None


def test_swap_statement_swaps_independent_statements_only():
    out = _check(SWAP, swap_statement(SWAP, "f"), "f")
    assert "int y = b * 2;\n  int x = a + 1;" in out
    dependent = "int f(int a) {\n  int x = a + 1;\n  int y = x * 2;\n  return y;\n}\n"
    assert swap_statement(dependent, "f") is None
    aliasing = "void f(int *p, int *q) {\n  p[0] = 1;\n  q[0] = 2;\n}\n"
    assert swap_statement(aliasing, "f") is None  # p and q may be the same array
    read_write = "int f(int *p, int *q) {\n  int x = p[0];\n  q[0] = 2;\n  return x;\n}\n"
    assert swap_statement(read_write, "f") is None
    calls = "int g(void);\nint f(void) {\n  int x = g();\n  int y = g();\n  return x - y;\n}\n"
    assert swap_statement(calls, "f") is None
    asserted = "int f(int a) {\n  int x = a;\n  //@ assert x == a;\n  int y = 2;\n  return x + y;\n}\n"
    assert swap_statement(asserted, "f") is None


def test_swap_of_dependent_statements_would_be_caught():
    dependent = "int f(int a) {\n  int x = 0;\n  x = a + 1;\n  x = x * 2;\n  return x;\n}\n"
    swapped = dependent.replace("  x = a + 1;\n  x = x * 2;", "  x = x * 2;\n  x = a + 1;")
    assert swap_statement(dependent, "f") is None
    before, after = _behaviour(dependent, swapped, "f")
    assert before != after


def test_if_to_cond_exp_folds_assignments_and_returns():
    out = _check(IFS, if_to_cond_exp(IFS, "f"), "f")
    assert "d = (a > b) ? (a - b) : (b - a);" in out
    twice = if_to_cond_exp(out, "f")
    twice = _check(IFS, twice, "f")
    assert "return (d > 10) ? (d) : (10);" in twice
    two_statements = "int f(int a) {\n  int d = 0, e = 0;\n  if (a > 0) {\n    d = 1;\n    e = 2;\n  } else {\n    d = 2;\n  }\n  return d + e;\n}\n"
    assert if_to_cond_exp(two_statements, "f") is None
    targets = "int f(int a) {\n  int d = 0, e = 0;\n  if (a > 0) {\n    d = 1;\n  } else {\n    e = 2;\n  }\n  return d + e;\n}\n"
    assert if_to_cond_exp(targets, "f") is None


def test_cond_exp_to_if_unfolds_statement_level_conditionals():
    out = _check(CONDS, cond_exp_to_if(CONDS, "f"), "f")
    assert "if (a > b) {\n    d = a - b;\n  } else {\n    d = b - a;\n  }" in out
    out2 = _check(CONDS, cond_exp_to_if(out, "f"), "f")
    assert "if (d > 10) {\n    return d;\n  } else {\n    return 10;\n  }" in out2
    nested = "int f(int a) {\n  int d = 1 + (a > 0 ? a : -a);\n  return d;\n}\n"
    assert cond_exp_to_if(nested, "f") is None


def test_every_transformation_is_named_after_the_paper_or_marked_ours():
    assert set(PAPER_NAMES) == set(TRANSFORMATIONS)
    assert [name for name, paper in PAPER_NAMES.items() if paper is None] == ["commute_arithmetic"]
    assert len({p for p in PAPER_NAMES.values() if p}) == 16


@pytest.mark.parametrize("program", [GRADE, SWITCH, DECLS, INFIX, SWAP, IFS, CONDS])
def test_all_variants_of_the_written_programs_are_equivalent(program):
    function = "grade" if "grade(" in program else "kind" if "kind(" in program else "f"
    found = variants(program, function)
    assert found
    sig = signature(program, function)
    assert sig is not None
    cases = random_inputs(sig, HarnessSpec(arrays={"out": "2"}), "all-variants", count=40)
    table = differential([strip_annotations(program)] + [strip_annotations(v) for v in found.values()],
                         function, sig, cases)
    assert table is not None
    for name, row in zip(found, table[1:], strict=True):
        assert row == table[0], name


PROVED_SWITCH = """/*@ requires 0 <= x <= 1000;
    assigns \\nothing;
    ensures x % 4 == 0 ==> \\result == 0;
    ensures x % 4 == 1 || x % 4 == 2 ==> \\result == x;
    ensures x % 4 == 3 ==> \\result == -x;
*/
int quarter(int x) {
  int r = 0;
  switch (x % 4) {
    case 0:
      r = 0;
      break;
    case 1:
    case 2:
      r = x;
      break;
    default:
      r = x > 0 ? -x : 0;
      break;
  }
  return r;
}
"""


LOOP_SUM = """/*@ requires 0 <= n <= 100;
    requires \\valid_read(a + (0 .. n-1));
    requires \\forall integer k; 0 <= k < n ==> -1000 <= a[k] <= 1000;
    assigns \\nothing;
*/
int triple_sum(const int *a, int n) {
  int s = 0;
  /*@ loop invariant 0 <= i <= n;
      loop invariant -3000 * i <= s <= 3000 * i;
      loop assigns i, s;
      loop variant n - i;
  */
  for (int i = 0; i < n; i++) {
    s = s + a[i] * 3;
  }
  return s;
}
"""


@pytest.mark.framac
def test_switch_and_conditional_rewrites_keep_a_proved_contract_proved():
    from core.families.specs.verify import wp

    as_if = switch_to_if(PROVED_SWITCH, "quarter")
    assert as_if is not None and "switch" not in as_if
    unfolded = cond_exp_to_if(as_if, "quarter")
    assert unfolded is not None and "?" not in unfolded.split("*/", 1)[1]
    # InfixDividing's temporary inside a loop body needs no `loop assigns` of its own
    divided = infix_dividing(LOOP_SUM, "triple_sum")
    assert divided is not None and "int temp = a[i] * 3;" in divided
    for program in (PROVED_SWITCH, as_if, unfolded, LOOP_SUM, divided):
        result = wp(program)
        assert result.outcome == "proved", [g.model_dump() for g in result.failing] or result.error_message
    _check(PROVED_SWITCH, unfolded, "quarter")
