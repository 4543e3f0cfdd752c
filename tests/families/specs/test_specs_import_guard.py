"""A folder of annotated C files imports whole: a file whose only function is `main`
is a task about `main`; a file that cannot become a task is listed with its reason and the rest import.
Includes are checked before gcc or Frama-C sees a file: no device, FIFO, `/proc`, or
file outside the folder and the system include directories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.families.specs.cpp import unsafe_include
from core.families.specs.importer import import_files

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[3]

MAIN_ONLY = """/*@ assigns \\nothing;
    ensures \\result == 45; */
int main(void) {
  int s = 0;
  /*@ loop invariant 0 <= i <= 10;
      loop invariant s == i * (i - 1) / 2;
      loop assigns i, s;
      loop variant 10 - i;
  */
  for (int i = 0; i < 10; i++) {
    s += i;
  }
  return s;
}
"""


def _folder(tmp_path: Path) -> Path:
    root = tmp_path / "collection"
    (root / "sub").mkdir(parents=True)
    (root / "good.c").write_text((FIXTURES / "binary_search.c").read_text())
    (root / "sub" / "main_only.c").write_text(MAIN_ONLY)
    (root / "sub" / "with_header.c").write_text("#include <limits.h>\n" + MAIN_ONLY)
    (root / "declarations.c").write_text("int f(int x);\nextern int g;\n")
    (root / "latin1.c").write_bytes(b"/* caf\xe9 */\nint f(void) { return 0; }\n")
    (root / "devzero.c").write_text('#include "/dev/zero"\nint f(void) { return 0; }\n')
    (root / "proc.c").write_text('#include "/proc/self/environ"\nint f(void) { return 0; }\n')
    (tmp_path / "outside.h").write_text("int outside;\n")
    (root / "outside.c").write_text('#include "../outside.h"\nint f(void) { return 0; }\n')
    (root / "system_escape.c").write_text("#include <../../dev/zero>\nint f(void) { return 0; }\n")
    (root / "computed.c").write_text('#define HDR "/dev/zero"\n#include HDR\nint f(void) { return 0; }\n')
    os.mkfifo(root / "pipe.h")
    (root / "fifo.c").write_text('#include "pipe.h"\nint f(void) { return 0; }\n')
    return root


@pytest.mark.framac
def test_a_folder_imports_whole_and_lists_what_it_leaves_out(tmp_path):
    root = _folder(tmp_path)
    imported = import_files(root)
    got = {i.meta["source"]: i for i in imported}
    assert set(got) == {"good.c", "sub/main_only.c", "sub/with_header.c"}
    assert got["sub/main_only.c"].function == "main" and got["sub/main_only.c"].meta["annotations_parse"]
    assert got["sub/main_only.c"].meta["loops"] == 1
    reasons = dict(imported.skipped)
    assert set(reasons) == {"declarations.c", "latin1.c", "devzero.c", "proc.c", "outside.c", "system_escape.c",
                            "computed.c", "fifo.c"}
    assert "no function definition" in reasons["declarations.c"]
    assert "not UTF-8" in reasons["latin1.c"]
    assert "/dev/zero" in reasons["devzero.c"] and "device" in reasons["devzero.c"]
    assert "/proc/" in reasons["proc.c"]
    assert "outside the task's folder" in reasons["outside.c"]
    assert "system include" in reasons["system_escape.c"]
    assert "computed include" in reasons["computed.c"]
    assert "FIFO" in reasons["fifo.c"]


@pytest.mark.framac
def test_a_task_about_main_verifies(tmp_path):
    from core.family import get_family

    fam = get_family("specs")
    path = tmp_path / "only_main.c"
    path.write_text(MAIN_ONLY)
    inst = import_files(path)[0]
    assert inst.function == "main" and "/*@" not in inst.code
    answer, verdict = fam.check(inst, fam.oracle_response(inst))
    assert answer.ok and verdict.status == "success", verdict.explanation


@pytest.mark.framac
def test_snapshot_import_lists_the_skipped_files_and_imports_the_rest(tmp_path):
    root = _folder(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    db = tmp_path / "log.db"
    proc = subprocess.run([sys.executable, "-m", "core", "--db", str(db), "snapshot", "import", str(root), "--family", "specs",
                           "--name", "c"], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{root}/declarations.c: skipped: no function definition found" in proc.stderr
    assert f"{root}/devzero.c: skipped: include refused" in proc.stderr
    assert "imported 3 instances" in proc.stdout and "8 entries skipped" in proc.stdout


def test_headers_inside_the_folder_and_system_headers_pass_the_guard(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "helper.h").write_text("int twice(int x);\n")
    text = '#include "inc/helper.h"\n#include <limits.h>\n#include "missing.h"\nint f(void) { return 0; }\n'
    assert unsafe_include(text, folder=tmp_path, here=tmp_path) == ""
    assert "outside" in unsafe_include('#include "/etc/passwd"\n', folder=tmp_path, here=tmp_path)
    # without a folder (a program from a reply or a JSONL instance): plain relative names only
    assert unsafe_include('#include "missing.h"\n') == ""
    assert unsafe_include('#include "/dev/zero"\n') != ""
