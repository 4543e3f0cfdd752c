"""The tests that only read verdicts share one tool cache for the whole session (tests/conftest.py,
`shared_tool_cache`): a result computed by one xdist worker (another process) answers the same run in
the other, so a reference contract is proved once per session, not once per test that reads it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from core.store import REPO_ROOT
from core.tools import run
from core.tools.declare import Tool

# a run whose output differs at every real run: the pid of the process the tool runs in
PID = Tool(name="suite-cache-test-pid", executable="sh", package="dash", version_args=("-c", "echo 1.0"))
ARGS = ["-c", "echo $$"]
OTHER_WORKER = f"""
from core.tools import configure, run
from core.tools.declare import Tool
import sys
tool = Tool(name={PID.name!r}, executable="sh", package="dash", version_args=("-c", "echo 1.0"))
result = run(tool, {ARGS!r}, key_extra=sys.argv[2], cache=configure(sys.argv[1]))
assert not result.cached
print(result.stdout.strip())
"""


def test_a_tool_result_from_another_worker_is_answered_from_the_sessions_cache(shared_tool_cache) -> None:
    path = Path(os.environ["SEMBENCH_TESTS_HOME"]) / "tool-cache.db"
    assert shared_tool_cache.path == path
    token = f"{os.getpid()}-{os.urandom(4).hex()}"  # a run of this test's own
    done = subprocess.run([sys.executable, "-c", OTHER_WORKER, str(path), token], capture_output=True, text=True,
                          cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = done.stdout.strip()
    here = run(PID, ARGS, key_extra=token)  # the process's cache: the shared one, set by the fixture
    assert here.cached and here.stdout.strip() == theirs
    fresh = run(PID, ARGS, key_extra=token + "-again")
    assert not fresh.cached and fresh.stdout.strip() != theirs


def test_a_workspace_the_test_opens_keeps_the_sessions_cache(session_tool_cache_everywhere, tmp_path) -> None:
    """`session_tool_cache_everywhere`: a workspace opened by the test (as `sembench run` in process and the
    workbench app do) no longer points the tool cache at its own log, so a result another test computed is
    read; the workspace's attempts stay in its own log."""
    from core.store.workspace import Workspace
    from core.tools import current

    token = f"{os.getpid()}-{os.urandom(4).hex()}"
    first = run(PID, ARGS, key_extra=token)
    workspace = Workspace(tmp_path / "log.db", tmp_path / "no-snapshots.db")
    try:
        assert workspace.log.path == tmp_path / "log.db"
        assert current() is session_tool_cache_everywhere
        again = run(PID, ARGS, key_extra=token)
        assert again.cached and again.stdout == first.stdout
    finally:
        workspace.close()
