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
