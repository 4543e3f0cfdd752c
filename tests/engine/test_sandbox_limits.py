"""Limits of a confined run, with real processes: sembench holds at most its output cap of a run's output
(the run is stopped there), a program's writable space and memory are bounded, nothing a program does
is taken for a failure of the machine, and a wall-clock overrun counts against a run only when the run
spent the CPU time (core.tools.overrun)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from core.errors import EnvironmentFault
from core.tools import Tool, run, sandbox
from core.tools.process import MAX_OUTPUT

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("bwrap") is None,
                                reason="needs gcc and bubblewrap (bash .ci/setup installs them)")

PROGRAM = Tool("sh-program", "sh", "dash", version_args=("-c", "echo 1"), confine="program")
REPO = Path(__file__).resolve().parents[2]


def test_output_is_held_up_to_its_cap_and_the_run_is_stopped() -> None:
    """A program printing 600 MB: sembench (here a child process, measured with getrusage) never holds
    more than the cap; the run is stopped there and says so."""
    code = ("import json, resource\nfrom core.tools import Tool, configure, run\nconfigure(None)\n"
            "tool = Tool('sh-program', 'sh', 'dash', version_args=('-c', 'echo 1'), confine='program')\n"
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "result = run(tool, ['-c', 'head -c 600000000 /dev/zero | tr \"\\\\0\" x; echo finished'], cache=False,"
            " timeout_s=120)\n"
            "print(json.dumps({'before_kib': before, 'after_kib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
            " 'cut': getattr(result, 'output_cut', None), 'rc': result.rc, 'length': len(result.stdout), 'tail': result.stdout[-80:]}))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    # the cap, the text made of it and the chunks read: well under the 600 MB printed
    assert said["after_kib"] - said["before_kib"] < 64 * 1024, said
    assert said["cut"] and said["rc"] is None and "finished" not in said["tail"]
    assert said["tail"].endswith("[output cut at 4 MiB: the run was stopped]")
    assert said["length"] < MAX_OUTPUT + 100


def test_a_program_writes_at_most_its_private_tmp_and_has_a_memory_limit() -> None:
    source = (
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <errno.h>\n"
        "static void fill(const char *p) { FILE *f = fopen(p, \"w\"); long n = 0; static char b[1 << 20];\n"
        "  memset(b, 'x', sizeof b);\n"
        "  if (!f) { printf(\"open %s: %s\\n\", p, strerror(errno)); return; }\n"
        "  while (n < 200 && fwrite(b, 1, sizeof b, f) == sizeof b && fflush(f) == 0) n++;\n"
        "  printf(\"wrote %ld MiB to %s: %s\\n\", n, p, strerror(errno)); fclose(f); remove(p); }\n"
        "int main(void) { fill(\"/tmp/big\"); fill(\"big-here\"); fill(\"/dev/shm/big\"); fill(\"/big\");\n"
        "  void *p = malloc(3UL << 30); printf(\"malloc 3 GiB: %s\\n\", p ? \"ok\" : \"failed\"); return 0; }\n")
    script = "gcc -O0 -w -o prog prog.c > cc.log 2>&1 || { cat cc.log; exit 3; }\n./prog\n"
    result = run(PROGRAM, ["-c", script], {"prog.c": source}, timeout_s=120, memory_mb=None, cache=False)
    assert result.rc == 0, result
    lines = result.stdout.splitlines()
    for where in ("/tmp/big", "big-here"):  # its directory is inside its private /tmp
        wrote = next(line for line in lines if line.startswith("wrote") and line.split(" to ")[1].startswith(where))
        assert int(wrote.split()[1]) < sandbox.PROGRAM_TMP_MB and "No space left on device" in wrote, wrote
    assert "open /dev/shm/big: Read-only file system" in lines and "open /big: Read-only file system" in lines
    assert "malloc 3 GiB: failed" in lines


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs (needs root)")


@pytest.fixture
def small_tmpdir(tmp_path, monkeypatch):
    where = tmp_path / "small"
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(where)], check=True)
    monkeypatch.setenv("TMPDIR", str(where))
    yield where
    subprocess.run(["umount", "-l", str(where)], check=False)


@root_only
def test_a_program_cannot_forge_an_environment_fault(small_tmpdir) -> None:
    """It fills all it can write, then kills its own shell: that is its failure, never the machine's
    (before, it filled the host's TMPDIR through its directory and the runner read "no space left")."""
    script = "head -c 40000000 /dev/zero > a; head -c 40000000 /dev/zero > b; echo \"fill: $?\"; kill -9 $$"
    result = run(PROGRAM, ["-c", script], cache=False, timeout_s=60)
    assert result.rc not in (0, None) and "No space left on device" in result.stdout, result
    free = os.statvfs(small_tmpdir)
    assert free.f_bavail * free.f_frsize > 7 * 1024 * 1024  # the host's TMPDIR was never written


# ---- wall-clock overruns -----------------------------------------------------------------------------
def _pids(mark: str) -> list[int]:
    """The shells running a script that starts with `: mark` (one per run: not bwrap, whose command line
    holds the script too)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if len(argv) > 2 and argv[1] == b"-c" and argv[2].startswith(f": {mark}".encode()):
                found.append(int(entry.name))
    return found


def _stopper(mark: str, times: int) -> tuple[threading.Thread, threading.Event, list[int]]:
    """Stops (SIGSTOP, from outside) the first `times` runs whose processes carry `mark`."""
    done = threading.Event()
    stopped: list[int] = []

    def watch() -> None:
        seen: set[int] = set()
        while not done.is_set() and len(seen) < times:
            for pid in _pids(mark):
                if len(seen) >= times:
                    break  # one scan can list two processes of a run (a shell caught forking)
                if pid not in seen:
                    seen.add(pid)
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
            time.sleep(0.02)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread, done, stopped


def test_a_run_stopped_from_outside_is_run_again_then_an_environment_fault() -> None:
    # the program lasts 2 s: long enough for the stopper (polling every 20 ms) to find it on a loaded machine
    mark = f"stall{uuid.uuid4().hex}"
    thread, done, stopped = _stopper(mark, 2)
    try:
        with pytest.raises(EnvironmentFault, match="stopped from outside"):
            run(PROGRAM, ["-c", f": {mark}; sleep 2; echo finished"], cache=False, timeout_s=4)
    finally:
        done.set()
        thread.join()
    assert len(stopped) == 2  # the first run, and the one it was given again


def test_a_run_stopped_once_from_outside_is_run_again() -> None:
    mark = f"stall{uuid.uuid4().hex}"
    thread, done, stopped = _stopper(mark, 1)
    try:
        result = run(PROGRAM, ["-c", f": {mark}; sleep 2; echo finished"], cache=False, timeout_s=4)
    finally:
        done.set()
        thread.join()
    assert len(stopped) == 1 and result.ok and result.stdout == "finished\n"


def test_a_program_cannot_stop_itself_and_its_sleep_is_its_own_overrun() -> None:
    # a confined process may not stop itself (core.tools.seccomp): it would pass for a stalled machine
    result = run(PROGRAM, ["-c", "kill -STOP $$; echo still running"], cache=False, timeout_s=20)
    assert result.ok and "still running" in result.stdout and "Operation not permitted" in result.stdout
    # waiting on itself is its own time-out, however little CPU time it spent
    slept = run(PROGRAM, ["-c", "sleep 30"], cache=False, timeout_s=2)
    assert slept.timed_out and slept.rc is None
