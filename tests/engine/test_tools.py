"""The external-tool runner: private directories, group kills, limits, the content cache, helpers."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from core.errors import ToolMissing, UserError
from core.tools import Helper, HelperError, HelperTimeout, Tool, ToolCache, require, run

PYTHON = Tool(name="python-test", executable=sys.executable, package="python3", version_args=("--version",))
MISSING = Tool(name="nothing", executable="sembench-no-such-tool", package="sembench-imaginary-package")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purposes
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_runs_in_a_private_directory_with_its_files() -> None:
    script = "import os, pathlib; print(sorted(os.listdir('.'))); print(pathlib.Path('in.txt').read_text())"
    result = run(PYTHON, ["-c", script], {"in.txt": "hello", "sub/x.txt": "x"}, cache=False)
    assert result.ok
    assert result.stdout.splitlines() == ["['in.txt', 'sub']", "hello"]


def test_collects_output_files_and_returns_rc_and_stderr() -> None:
    script = "import sys, pathlib; pathlib.Path('out.txt').write_text('made'); sys.stderr.write('warn'); sys.exit(3)"
    result = run(PYTHON, ["-c", script], collect=["out.txt", "absent.txt"], cache=False)
    assert result.rc == 3 and not result.ok
    assert result.stderr == "warn"
    assert result.files == {"out.txt": "made"}


def test_timeout_kills_the_whole_group_grandchildren_included(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    script = (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(60)\n"
    )
    start = time.monotonic()
    result = run(PYTHON, ["-c", script], timeout_s=1.5, cache=False)
    assert result.timed_out and result.rc is None
    assert time.monotonic() - start < 20
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild), "the grandchild survived the timeout"


def test_memory_limit_holds() -> None:
    script = "b = bytearray(800 * 1024 * 1024); print('allocated')"
    limited = run(PYTHON, ["-c", script], memory_mb=300, cache=False)
    assert limited.rc != 0 and "allocated" not in limited.stdout
    assert "MemoryError" in limited.stderr
    free = run(PYTHON, ["-c", script], memory_mb=2048, cache=False)
    assert free.ok and "allocated" in free.stdout


def test_cpu_limit_holds() -> None:
    result = run(PYTHON, ["-c", "while True: pass"], cpu_s=1, timeout_s=30, cache=False)
    assert not result.ok and not result.timed_out  # the CPU limit, not the wall clock, ended it
    assert result.elapsed_s < 20


def test_a_missing_tool_is_one_line_naming_the_package() -> None:
    with pytest.raises(ToolMissing) as caught:
        run(MISSING, ["--help"])
    message = str(caught.value)
    assert "sembench-no-such-tool" in message and "sembench-imaginary-package" in message
    assert "\n" not in message
    assert isinstance(caught.value, UserError)
    with pytest.raises(ToolMissing):
        require(PYTHON, MISSING)
    require(PYTHON)


def test_a_repeat_is_a_cache_hit_and_a_change_is_not(tmp_path: Path) -> None:
    cache = ToolCache(tmp_path / "log.db")
    marker = tmp_path / "count"
    script = f"open({str(marker)!r}, 'a').write('x'); print(open('in.txt').read())"
    first = run(PYTHON, ["-c", script], {"in.txt": "a"}, cache=cache)
    again = run(PYTHON, ["-c", script], {"in.txt": "a"}, cache=cache)
    assert not first.cached and again.cached
    assert again.stdout == first.stdout == "a\n"
    assert marker.read_text() == "x", "the tool ran twice"
    other = run(PYTHON, ["-c", script], {"in.txt": "b"}, cache=cache)
    assert not other.cached and marker.read_text() == "xx"
    # a fresh process (a new cache object on the same database) still hits
    reopened = ToolCache(tmp_path / "log.db")
    assert run(PYTHON, ["-c", script], {"in.txt": "a"}, cache=reopened).cached
    assert marker.read_text() == "xx"


def test_timeouts_are_not_cached(tmp_path: Path) -> None:
    cache = ToolCache(tmp_path / "log.db")
    slow = ["-c", "import time; time.sleep(5)"]
    assert run(PYTHON, slow, timeout_s=0.5, cache=cache).timed_out
    assert not run(PYTHON, slow, timeout_s=0.5, cache=cache).cached


def test_a_result_keep_refuses_is_returned_but_not_cached(tmp_path: Path) -> None:
    cache = ToolCache(tmp_path / "log.db")
    args = ["-c", "print('unsure')"]
    first = run(PYTHON, args, cache=cache, keep=lambda result: "unsure" not in result.stdout)
    assert first.stdout == "unsure\n" and not first.cached
    assert not run(PYTHON, args, cache=cache, keep=lambda result: "unsure" not in result.stdout).cached
    assert not run(PYTHON, args, cache=cache).cached  # nothing was stored: this run is, and then answers
    assert run(PYTHON, args, cache=cache).cached


ECHO_HELPER = (
    "import json, os, sys, time\n"
    "print('ready', flush=True)\n"
    "for line in sys.stdin:\n"
    "    req = json.loads(line)\n"
    "    if req.get('die'): os._exit(1)\n"
    "    if req.get('hang'): time.sleep(60)\n"
    "    print(json.dumps({'echo': req.get('x'), 'pid': os.getpid()}), flush=True)\n"
)


def test_helper_answers_and_is_restarted_when_it_dies() -> None:
    with Helper([sys.executable, "-c", ECHO_HELPER], ready="ready") as helper:
        first = helper.request({"x": 1})
        assert first["echo"] == 1 and helper.starts == 1
        assert helper.request({"x": 2})["pid"] == first["pid"]  # kept warm
        os.kill(first["pid"], 9)
        time.sleep(0.1)
        after = helper.request({"x": 3})
        assert after["echo"] == 3 and after["pid"] != first["pid"] and helper.starts == 2


def test_helper_that_dies_mid_request_is_restarted_and_asked_again() -> None:
    with Helper([sys.executable, "-c", ECHO_HELPER], ready="ready") as helper:
        helper.request({"x": 0})
        with pytest.raises(HelperError):
            helper.request({"die": True})  # dies on every try: reported, not looped on
        assert helper.request({"x": 5})["echo"] == 5


def test_helper_request_that_hangs_is_bounded() -> None:
    with Helper([sys.executable, "-c", ECHO_HELPER], ready="ready") as helper:
        pid = helper.request({"x": 0})["pid"]
        start = time.monotonic()
        with pytest.raises(HelperTimeout):
            helper.request({"hang": True}, timeout_s=1.0)
        assert time.monotonic() - start < 10
        assert not _alive(pid)
        assert helper.request({"x": 7})["echo"] == 7
