"""Shared test setup: tool-marked tests skip locally when the tool is missing, but FAIL in CI."""

from __future__ import annotations

import os
import shutil

import pytest

# marker -> (executable, Debian package)
TOOL_MARKERS = {
    "ghc": ("ghc", "ghc"),
    "javac": ("javac", "default-jdk-headless"),
    "framac": ("frama-c", "frama-c-base"),
    "tmux": ("tmux", "tmux"),
}


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, (exe, package) in TOOL_MARKERS.items():
        if item.get_closest_marker(marker) is None or shutil.which(exe):
            continue
        message = f"{exe} not found (Debian package {package}; bash .ci/setup installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run this test: {message}")
        pytest.skip(message)


@pytest.fixture(autouse=True)
def _private_state(tmp_path_factory, monkeypatch):
    """Each test gets its own XDG state directory: the workbench reopens where it was left (tui.state),
    and one test's workbench must not open where another's was left, nor touch the user's."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


@pytest.fixture
def log_db(tmp_path, monkeypatch):
    """A fresh log database path, also exported as SEMBENCH_DB for CLI subprocesses."""
    path = tmp_path / "log.db"
    monkeypatch.setenv("SEMBENCH_DB", str(path))
    return path


# The test-only toy family registers for the whole session, so every test parametrized over the registered
# families (the family kit, the TUI kit) covers it too: a family defined outside core/ needs no other edit.
import tests.kit.toyfamily  # noqa: E402,F401
