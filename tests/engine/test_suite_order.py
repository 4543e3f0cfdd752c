"""The suite's own scheduling (docs/testing.md): the long tests are collected first, so that under
pytest-xdist the workers finish together, and the list naming them stays true to the tests it names."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import LONG_FIRST

REPO = Path(__file__).resolve().parents[2]


def test_long_tests_are_collected_first() -> None:
    # given in the other order on the command line: a quick file first, then one with a `slow` test
    files = ["tests/engine/test_import_graph.py", "tests/engine/test_cascade_done_when.py"]
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-p",
                           "no:cacheprovider", *files], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    ids = [line for line in proc.stdout.splitlines() if "::" in line]
    assert ids[0] == "tests/engine/test_cascade_done_when.py::test_pbebench_lite_end_to_end", ids
    assert all(i.startswith("tests/engine/test_import_graph.py::") for i in ids[1:]) and len(ids) == 3, ids


def test_every_long_test_named_exists() -> None:
    for name in LONG_FIRST:
        path, test = name.split("::")
        function = re.match(r"\w+", test).group(0)
        assert f"def {function}" in (REPO / path).read_text(encoding="utf-8"), name


# Imported at a test module's top, a library is imported by every xdist worker's collection, whether or not
# the worker runs a test that needs it (scipy.stats alone: ~1.6 s of CPU per worker; docs/testing.md).
HEAVY_AT_COLLECTION = ("scipy", "numpy", "matplotlib", "pandas")


def test_no_test_module_imports_a_heavy_library_at_its_top() -> None:
    import ast

    found = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{path.relative_to(REPO)}: {n}" for n in names if n.split(".")[0] in HEAVY_AT_COLLECTION]
    assert not found, found
