"""Preprocessor directives in a reply must be the task's, exactly: an added
`#include` would make Frama-C and gcc read (and the counterexample harness run) any file."""

from __future__ import annotations

import pytest
from specs_helpers import corpus_instance, fenced

from core.families.specs.cpp import directives
from core.families.specs.extract import extract
from core.family import get_family


def _header_with_constructor(tmp_path):
    """A header whose constructor makes a directory (no libc header, no string literal: E-ACSL's build of
    it then runs the constructor before main; checked to create the marker before the fix)."""
    marker = tmp_path / "MARKER"
    header = tmp_path / "x.h"
    header.write_text("int mkdir(const char *path, unsigned int mode);\n"
                      "__attribute__((constructor)) static void sembench_marker(void) {\n"
                      f'  char path[] = "{marker}";\n  mkdir(path, 0700);\n}}\n')
    return header, marker


@pytest.mark.framac
def test_an_added_include_is_code_modified_and_its_constructor_never_runs(tmp_path):
    header, marker = _header_with_constructor(tmp_path)
    inst = corpus_instance("max_array")
    # a wrong postcondition: before the fix, WP failed, the counterexample harness compiled the header in
    # and ran its constructor
    wrong = inst.reference().replace("\\result >= a[k];", "\\result > a[k];")
    fam = get_family("specs")
    answer, verdict = fam.check(inst, fenced(f'#include "{header}"\n{wrong}'))
    assert answer.error == "code_modified" and f'#include "{header}"' in answer.message
    assert answer.details["got_line"] == 1
    assert verdict.status == "failure" and verdict.details["category"] == "CodeModified"
    assert not marker.exists()


@pytest.mark.parametrize("added", [
    '/* c */ #include "/tmp/x.h"',  # a comment before '#' still makes a directive
    '%:include "/tmp/x.h"',  # the digraph
    '#\\\ninclude "/tmp/x.h"',  # line splicing
    "#define max_array min_array",
    "#pragma GCC poison x",
    '#line 1 "other.c"',
    "#undef NULL",
    "#if 1\n#endif",
    "#include <limits.h>",
])
def test_every_added_directive_is_code_modified(added):
    inst = corpus_instance("max_of_two")
    answer = extract(fenced(f"{added}\n{inst.reference()}"), inst)
    assert answer.error == "code_modified", answer.message
    assert "preprocessor directive" in answer.message


def test_a_directive_inside_an_annotation_is_code_modified():
    """Frama-C preprocesses annotation text: a `#include` line inside `/*@ ... */` is read."""
    inst = corpus_instance("max_of_two")
    smuggled = inst.reference().replace("/*@", '/*@\n#include "/tmp/x.h"\n', 1)
    answer = extract(fenced(smuggled), inst)
    assert answer.error == "code_modified" and "/tmp/x.h" in answer.message


def test_removed_or_changed_directives_are_code_modified():
    code = "#include <limits.h>\n#define N 10\nint f(int x) {\n  return x + N;\n}\n"
    inst = corpus_instance("max_of_two").model_copy(update={"code": code, "function": "f"})
    contract = "/*@ requires x < INT_MAX - 10;\n    assigns \\nothing; */\n"
    kept = extract(fenced(code.replace("int f", contract + "int f")), inst)
    assert kept.ok, kept.message
    removed = extract(fenced(code.replace("#include <limits.h>\n", "").replace("int f", contract + "int f")), inst)
    assert removed.error == "code_modified" and "#include <limits.h>" in removed.message
    changed = extract(fenced(code.replace("N 10", "N 11").replace("int f", contract + "int f")), inst)
    assert changed.error == "code_modified" and "#define N 11" in changed.message


def test_directives_are_read_as_the_preprocessor_reads_them():
    text = ('#include <limits.h>\n#define N 10 /* a comment\n spanning lines */ + 1\nchar *s = "#include x";\n'
            '// #include "c"\n/* #include "d" */\n  # include   "e.h"\n')
    assert [(d.line, d.text) for d in directives(text)] == [
        (1, "#include <limits.h>"), (2, "#define N 10 + 1"), (7, '#include "e.h"')]


def test_a_preprocessor_bomb_in_a_reply_is_code_modified_at_once():
    """`#include "/dev/zero"` drove cc1 to 4 GB for up to 49 s: now the reply is refused before any tool."""
    inst = corpus_instance("max_of_two")
    answer = extract(fenced(f'#include "/dev/zero"\n{inst.reference()}'), inst)
    assert answer.error == "code_modified" and '#include "/dev/zero"' in answer.message


def test_wp_never_preprocesses_an_unsafe_include():
    """Defence in depth for programs that reach WP another way (a JSONL instance's own code)."""
    from core.families.specs.wp import run_wp

    result = run_wp('#include "/dev/zero"\nint f(void) { return 0; }\n')
    assert result.outcome == "error" and result.error_kind == "UnsafeInclude" and "/dev/zero" in result.error_message
