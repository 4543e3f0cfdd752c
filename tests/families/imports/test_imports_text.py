"""The imports family's text handling, without Java: extraction, scoring and diffs, snippet surgery,
transformations' shapes, ddmin on a toy solver, metrics and folder naming."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.families.imports.ddmin import category, ddmin, tokenize
from core.families.imports.extract import answer_imports, extract
from core.families.imports.folder import normalize_library
from core.families.imports.metrics import summarize, wilson
from core.families.imports.model import ImportsInstance, ImportsParams
from core.families.imports.snippet import isolate_package, split_imports, with_imports
from core.families.imports.transform import comments, lower, rename
from core.families.imports.verify import build_verdict, diff_rows, score
from core.verdict import Answer

SNIPPET = """package demo;
// a comment with "quotes" and import x.y.Z;
public class Demo {
    static final String NAME = "import a.b.C;";
    int count = 3;

    public static void main(String[] args) throws Throwable {
        Demo demo = new Demo();
        int total = demo.helper(args.length) + demo.count;
        String text = \"\"\"
            a text block
            \"\"\";
        System.out.println(text.trim().length() + total);
    }

    int helper(int n) {
        int total = n * 2;
        return total;
    }
}
"""


# ---- extraction --------------------------------------------------------------------------------
def test_extracts_import_lines_from_fences_and_prose() -> None:
    reply = ("Sure! You need these:\n```java\nimport java.util.List;\nimport static java.lang.Math.max;\n"
             "import org.joda.time.*;\n```\nAlso `import java.util.Map;` and import java.io.File")
    answer = extract(reply)
    assert answer.ok
    assert answer_imports(answer) == ["java.util.List", "static java.lang.Math.max", "org.joda.time.*",
                                      "java.util.Map", "java.io.File"]
    assert answer.details["wildcards"] == ["org.joda.time.*"]
    assert answer.details["static"] == ["static java.lang.Math.max"]


def test_bare_fqn_list_is_accepted() -> None:
    answer = extract("- java.util.List\n- org.joda.time.DateTime, e.g. Main.java\n- java.util.*")
    assert answer.ok and answer.details["mode"] == "fqn_list"
    assert answer_imports(answer) == ["java.util.List", "org.joda.time.DateTime", "java.util.*"]


def test_think_is_dropped_and_nothing_and_garbage_differ() -> None:
    assert answer_imports(extract("<think>import a.b.C;</think>import x.y.Z;")) == ["x.y.Z"]
    nothing = extract("No imports are needed.")
    assert nothing.ok and answer_imports(nothing) == []
    garbage = extract("I cannot help with that")
    assert not garbage.ok and garbage.error == "no_imports"
    assert not extract("").ok


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=600))
def test_extraction_never_raises(text: str) -> None:
    answer = extract(text)
    assert isinstance(answer, Answer)
    assert answer.ok or answer.error


# ---- scoring and diffs -------------------------------------------------------------------------
def test_scores_follow_the_paper() -> None:
    s = score(["a.B", "c.D"], ["a.B", "x.Y", "z.W"])
    assert (s["tp"], s["fp"], s["fn"]) == (1, 2, 1)
    assert abs(s["precision"] - 1 / 3) < 1e-9 and s["recall"] == 0.5
    empty = score([], [])
    assert empty["precision"] == empty["recall"] == 1.0
    assert score(["a.B"], [])["precision"] == 1.0 and score(["a.B"], [])["f1"] == 0.0


def test_diff_names_the_wrong_fqn_per_simple_name() -> None:
    rows = diff_rows(["java.util.logging.Logger", "java.util.List"], ["org.apache.log4j.Logger", "java.util.*"])
    notes = [r.note for r in rows]
    assert "`Logger`: expected `java.util.logging.Logger`, got `org.apache.log4j.Logger`" in notes
    assert any("wildcard `java.util.*`" in n for n in notes)
    assert not any(r.ok for r in rows)


def test_verdict_without_compile_check_explains_itself() -> None:
    inst = ImportsInstance(code="class A { List x; }", ground_truth={"imports": ["java.util.List"]})
    right = build_verdict(inst, extract("import java.util.List;"), None)
    assert right.correct and right.score == 1.0 and right.details["compile"]["checked"] is False
    wrong = build_verdict(inst, extract("import java.awt.List;"), None)
    assert not wrong.correct and wrong.diff and "java.awt.List" in wrong.explanation
    failed = build_verdict(inst, extract("???"), None)
    assert failed.status == "extraction_error" and failed.diff and failed.explanation


def test_summary_has_micro_scores_with_intervals() -> None:
    inst = ImportsInstance(code="", ground_truth={"imports": ["a.B", "c.D"]})
    rows = [(inst, build_verdict(inst, extract("import a.B;"), None)),
            (inst, build_verdict(inst, extract("import a.B;\nimport c.D;"), None))]
    s = summarize(rows)
    assert s["precision"] == 1.0 and s["recall"] == 0.75
    assert s["recall_lo"] <= s["recall"] <= s["recall_hi"]
    assert s["exact_match"] == 0.5 and s["exact_match_lo"] < 0.5 < s["exact_match_hi"]
    lo, hi = wilson(5, 10)
    assert 0.2 < lo < 0.5 < hi < 0.8


# ---- snippet surgery ---------------------------------------------------------------------------
def test_split_and_insert_imports_around_a_package_line() -> None:
    source = "package p.q;\n\nimport java.util.List;\nimport static java.lang.Math.*;\n\nclass A { List l; }\n"
    split = split_imports(source)
    assert split.imports == ["java.util.List", "static java.lang.Math.*"] and split.package == "p.q"
    assert "import" not in split.code and split.code.startswith("package p.q;")
    again = with_imports(split.code, split.imports)
    assert again.index("package p.q;") < again.index("import java.util.List;") < again.index("class A")
    assert split_imports(again).imports == split.imports


def test_isolate_package_moves_or_adds_the_package() -> None:
    moved, shift = isolate_package("package a.b;\nclass A {}", "sb1")
    assert moved.startswith("package sb1;") and shift == 0
    added, shift = isolate_package("class A {}", "sb2")
    assert added == "package sb2; class A {}" and shift == len("package sb2; ")


def test_params_accept_cli_lists() -> None:
    p = ImportsParams.model_validate({"library": "jdk,hibernate", "transform": "rename,comments"})
    assert p.library == ["jdk", "hibernate"] and p.transform == ["rename", "comments"]


# ---- transformations (shape; compilability is checked with javac elsewhere) --------------------
def test_rename_tracks_scopes_and_keeps_external_names() -> None:
    out = rename(SNIPPET, random.Random(3))
    assert "Demo" not in out  # the snippet's own class
    # `demo.helper(..)` is a call on an expression, so `helper` might be external: kept (Algorithm 1)
    assert "int helper(" in out and ".helper(" in out
    assert "main" in out and "println" in out and "length()" in out and "String" in out
    assert "total" not in out and "count" not in out and "package demo;" not in out
    # the two `total`s (two scopes) get different names
    names = [line.split()[1] for line in out.splitlines() if line.strip().startswith("int ") and "=" in line]
    assert len(set(names)) == len(names)


def test_lower_hoists_in_order_and_splits_field_initialisers() -> None:
    out = lower(SNIPPET, random.Random(4))
    assert "int count;" in out and "{ count = 3; }" in out
    assert "static { NAME = \"import a.b.C;\"; }" in out
    body = out[out.index("main("):]
    assert body.index("new Demo()") < body.index(".helper(")
    assert "var " in out


def test_comments_never_land_in_strings_text_blocks_or_comments() -> None:
    out = comments(SNIPPET, random.Random(5))
    lines = out.splitlines()
    assert lines[0] == "package demo;"  # package lines are left alone
    assert lines[1] == SNIPPET.splitlines()[1]  # a line ending in a comment
    block = [ln for ln in lines if "a text block" in ln][0]
    assert "//" not in block
    assert all("//" in ln for ln in lines[1:] if ln.strip().endswith(";"))


# ---- ddmin on a toy solver ---------------------------------------------------------------------
def test_ddmin_keeps_the_property_within_budget() -> None:
    code = "public class A { void m() { DateTime d = new DateTime(); Level l = Level.INFO; } }"

    def infer(text: str) -> list[str]:
        return [fqn for name, fqn in (("DateTime", "org.joda.time.DateTime"), ("Level", "java.util.logging.Level"))
                if name in text]

    tokens = tokenize(code)
    assert "".join(tokens) == code
    result = ddmin(code, infer, budget=500)
    assert result.finished and result.minimized.replace(" ", "") in ("DateTimeLevel", "LevelDateTime")
    report = result.report()
    assert report["by_category"]["inferred_simple_name"]["after"] == 2
    assert report["simple_names_survived"]
    cut = ddmin(code, infer, budget=3)
    assert not cut.finished and cut.calls <= 3
    assert category("if", set()) == "control_structural" and category("  ", set()) == "whitespace"


def test_ddmin_keeps_answers_equal_to_the_expected_imports_as_algorithm_2() -> None:
    """A reduced snippet is kept while the answer EQUALS the expected imports (the
    paper's `expected_imports == actual_imports`); the superset check is the option `prop="superset"`."""
    code = "public class A { void m() { DateTime d = new DateTime(); Level l = Level.INFO; } }"

    def infer(text: str) -> list[str]:
        found = [fqn for name, fqn in (("DateTime", "org.joda.time.DateTime"), ("Level", "java.util.logging.Level"))
                 if name in text]
        if "new" not in text:  # without a constructor call the solver also guesses java.util.Date
            found.append("java.util.Date")
        return found

    expected = sorted(infer(code))
    equal = ddmin(code, infer, budget=500)
    assert equal.finished and equal.prop == "equal" and equal.report()["property"] == "equal"
    assert sorted(infer(equal.minimized)) == expected and "new" in equal.minimized
    superset = ddmin(code, infer, budget=500, prop="superset")
    assert superset.finished and "new" not in superset.minimized
    assert set(expected) < set(infer(superset.minimized)), "an extra import was accepted"
    with pytest.raises(ValueError):
        ddmin(code, infer, prop="subset")  # type: ignore[arg-type]


def test_folder_library_names() -> None:
    assert normalize_library("JodaTime") == "jodatime"
    assert normalize_library("java") == "jdk"
    assert normalize_library("Android") == "android"
