"""specs tests read their tool results from the session's one cache (tests/families/specs/conftest.py),
before each test: a test before it that opened a workspace pointed the process's cache at its own log."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.store import Workspace
from core.tools import current


@pytest.mark.parametrize("round_", [1, 2])
def test_every_specs_test_starts_on_the_sessions_tool_cache(round_: int, tmp_path: Path) -> None:
    assert current().path == Path(os.environ["SEMBENCH_TESTS_HOME"]) / "tool-cache.db"
    Workspace(log_path=tmp_path / "log.db", snapshots_path=tmp_path / "none.db").close()
    assert current().path == tmp_path / "log.db"  # what the next test starts from, but for the fixture
