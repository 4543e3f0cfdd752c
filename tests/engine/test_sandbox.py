"""The sandbox for untrusted programs (core.tools.sandbox) and environment faults of the tool runner, with
real processes: gcc-built C programs run confined by bubblewrap, a real HTTP server on 127.0.0.1, real
read-only and full file systems (tmpfs mounts, as root)."""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from core.errors import EnvironmentFault
from core.tools import Tool, run, sandbox
from core.tools import process as process_mod

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("bwrap") is None,
                                reason="needs gcc and bubblewrap (bash .ci/setup installs them)")

# gcc compiles the program and runs it, in one confined invocation (as the specs family does)
PROGRAM = Tool("sh-program", "sh", "dash", version_args=("-c", "echo 1"), confine="program")
FAKE_BWRAP = ("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does "
              "not allow non-privileged user namespaces.' >&2\nexit 1\n")


def build_and_run(source: str, timeout_s: float = 60.0, cpu_s: int | None = None):
    script = "gcc -O0 -w -o prog prog.c > cc.log 2>&1 || { cat cc.log; exit 3; }\n./prog\necho \"@@rc $?\"\n"
    return run(PROGRAM, ["-c", script], {"prog.c": source}, timeout_s=timeout_s, cpu_s=cpu_s, memory_mb=None,
               cache=False)


def _running(mark: str) -> list[int]:
    """Live (not zombie) processes whose command line holds `mark` (a confined program's environment is
    empty: its command line is what tells it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if mark.encode() in (entry / "cmdline").read_bytes() and \
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.fixture
def no_bwrap(tmp_path, monkeypatch):
    """A PATH whose `bwrap` fails the way it does where user namespaces are disabled."""
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "bwrap").write_text(FAKE_BWRAP)
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.delenv(sandbox.ENV_UNSANDBOXED, raising=False)
    sandbox._PROBES.clear()
    yield
    sandbox._PROBES.clear()


def test_bubblewrap_runs_here() -> None:
    assert sandbox.problem(True) == "" and sandbox.problem(False) == ""


def test_a_program_cannot_write_outside_its_directory(tmp_path) -> None:
    home = Path.home() / f"sembench-sandbox-{uuid.uuid4().hex}"
    outside = tmp_path / "escaped"
    source = (
        "#include <stdio.h>\n#include <errno.h>\n#include <string.h>\n#include <stdlib.h>\n"
        "static void try(const char *p) { FILE *f = fopen(p, \"w\");\n"
        "  if (f) { fputs(\"x\", f); fclose(f); printf(\"wrote %s\\n\", p); }\n"
        "  else printf(\"denied %s: %s\\n\", p, strerror(errno)); }\n"
        f"int main(void) {{ try(\"{home}\"); try(\"{outside}\"); try(\"inside.txt\");\n"
        f"  system(\"touch {outside}.sh\"); return 0; }}\n")
    result = build_and_run(source)
    assert "@@rc 0" in result.stdout, result
    assert f"denied {home}" in result.stdout  # read-only root: $HOME
    assert "wrote inside.txt" in result.stdout  # its own directory is writable
    # /tmp is the sandbox's own: a write there lands in a tmpfs that vanishes with it
    assert not home.exists() and not outside.exists() and not Path(f"{outside}.sh").exists()


def test_a_program_has_no_network() -> None:
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        # the server answers outside the sandbox
        assert subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}/outside"],
                              timeout=10).returncode == 0 if shutil.which("curl") else True
        before = len(hits)
        source = (
            "#include <stdio.h>\n#include <errno.h>\n#include <string.h>\n#include <unistd.h>\n"
            "#include <arpa/inet.h>\n#include <sys/socket.h>\n"
            "int main(void) { int s = socket(AF_INET, SOCK_STREAM, 0);\n"
            "  if (s < 0) { printf(\"socket: %s\\n\", strerror(errno)); return 0; }\n"
            "  struct sockaddr_in a = {0}; a.sin_family = AF_INET;"
            f" a.sin_port = htons({port}); a.sin_addr.s_addr = htonl(0x7f000001);\n"
            "  if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) { printf(\"connect: %s\\n\", strerror(errno));"
            " return 0; }\n"
            "  const char *r = \"GET /inside HTTP/1.0\\r\\n\\r\\n\"; write(s, r, strlen(r)); printf(\"connected\\n\");"
            " return 0; }\n")
        result = build_and_run(source)
        assert "connected" not in result.stdout, result.stdout
        # its own network namespace: a loopback of its own where nothing listens, and no route out
        assert "connect: Connection refused" in result.stdout or "Network is unreachable" in result.stdout
        time.sleep(0.2)
        assert hits[before:] == [] and "/inside" not in hits
    finally:
        server.shutdown()


def test_a_program_cannot_start_more_than_the_process_limit() -> None:
    source = (
        "#include <stdio.h>\n#include <errno.h>\n#include <string.h>\n#include <unistd.h>\n"
        "int main(void) { int n = 0; for (int i = 0; i < 1000; i++) { pid_t p = fork();\n"
        "  if (p < 0) { printf(\"fork failed after %d: %s\\n\", n, strerror(errno)); break; }\n"
        "  if (p == 0) { sleep(2); _exit(0); } n++; }\n  printf(\"forked %d\\n\", n); return 0; }\n")
    result = build_and_run(source)
    assert "fork failed after" in result.stdout and "Resource temporarily unavailable" in result.stdout, result
    forked = int(result.stdout.split("forked ")[1].split()[0])
    assert forked < sandbox.PROCESSES


def test_a_fork_bomb_is_contained_and_leaves_nothing() -> None:
    mark = f"bomb{uuid.uuid4().hex}"
    source = "#include <unistd.h>\nint main(void) { for (;;) fork(); }\n"
    script = f"gcc -O0 -w -o {mark} prog.c > cc.log 2>&1 || {{ cat cc.log; exit 3; }}\n./{mark}\n"
    seen: list[int] = []
    watching = threading.Event()

    def watch() -> None:  # the bomb is seen running, so that finding none afterwards means something
        while not watching.is_set():
            seen.extend(_running(mark))
            if seen:
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result = run(PROGRAM, ["-c", script], {"prog.c": source}, timeout_s=4, memory_mb=None, cache=False)
        assert result.timed_out and result.rc is None  # killed by the time-out, whole sandbox with it
    except EnvironmentFault as fault:
        # on a machine so busy that the bomb got under half its time limit in CPU time, the overrun is
        # the machine's (core.tools.overrun): killed all the same
        assert "ran past its time limit" in str(fault)
    finally:
        watching.set()
        watcher.join()
    assert seen
    deadline = time.monotonic() + 2
    while _running(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _running(mark) == []


def test_without_bubblewrap_a_program_is_refused_in_one_line(no_bwrap, tmp_path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(sandbox.SandboxRefused) as caught:
        run(PROGRAM, ["-c", f"touch {marker}"], cache=False)
    message = str(caught.value)
    assert "\n" not in message and "user namespaces" in message and "--unsandboxed" in message
    assert not marker.exists()
    assert isinstance(caught.value, EnvironmentFault)


def test_without_bubblewrap_unsandboxed_runs_unconfined(no_bwrap, tmp_path, monkeypatch) -> None:
    marker = tmp_path / "ran"
    sandbox.allow_unsandboxed()
    try:
        result = run(PROGRAM, ["-c", f"touch {marker}"], cache=False)
    finally:
        sandbox.allow_unsandboxed(False)
    assert result.ok and marker.exists()  # unconfined, as asked: this is what the sandbox prevents


def test_without_bubblewrap_a_compiler_still_runs(no_bwrap) -> None:
    compiler = Tool("sh-compiler", "sh", "dash", version_args=("-c", "echo 1"), confine="tool")
    assert run(compiler, ["-c", "echo fine"], cache=False).stdout == "fine\n"


def test_the_unsandboxed_flag_reaches_a_cli_subprocess(no_bwrap, tmp_path) -> None:
    """`sembench verify ... --unsandboxed` sets the switch the runner reads (in its own process)."""
    from click.testing import CliRunner

    from core.cli import cli

    result = CliRunner().invoke(cli, ["verify", "--help"])
    assert "--unsandboxed" in result.output
    assert not sandbox.unsandboxed_allowed()


def test_tools_get_the_private_directory_as_tmpdir(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    python = Tool("python-test", sys.executable, "python3")
    script = "import os, tempfile; f = tempfile.NamedTemporaryFile(delete=False); print(f.name)"
    result = run(python, ["-c", script], cache=False)
    made = Path(result.stdout.strip())
    assert made.parent.name == "tmp" and made.parent.parent.parent == tmp_path
    assert list(tmp_path.iterdir()) == []  # the private directory went, with the file left in it


def test_stale_private_directories_of_dead_processes_are_removed(tmp_path, monkeypatch) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"sembench-tool-{dead.pid}-abc"
    (stale / "tmp").mkdir(parents=True)
    (stale / "tmp" / "why3xyz.smt2").write_text("left behind")
    live = tmp_path / f"sembench-tool-{os.getppid()}-def"  # a live process's (the test runner's parent)
    live.mkdir()
    other = tmp_path / "sembench-tool-notapid"
    other.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(process_mod, "_SWEPT", set())
    python = Tool("python-test", sys.executable, "python3")
    assert run(python, ["-c", "print(1)"], cache=False).ok
    assert not stale.exists() and live.exists() and other.exists()


# ---- environment faults -------------------------------------------------------------------------------
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs (needs root)")


@pytest.fixture
def mounted(tmp_path):
    mounts: list[Path] = []

    def mount(options: str) -> Path:
        where = tmp_path / f"mnt{len(mounts)}"
        where.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], check=True)
        mounts.append(where)
        return where

    yield mount
    for where in mounts:
        subprocess.run(["umount", "-l", str(where)], check=False)


@root_only
def test_a_read_only_tmpdir_is_an_environment_fault(mounted, monkeypatch) -> None:
    where = mounted("ro,size=1m")
    monkeypatch.setenv("TMPDIR", str(where))
    python = Tool("python-test", sys.executable, "python3")
    with pytest.raises(EnvironmentFault, match=r"TMPDIR.*Read-only file system"):
        run(python, ["-c", "print(1)"], cache=False)


@root_only
def test_a_full_tmpdir_is_an_environment_fault_and_not_cached(mounted, monkeypatch, tmp_path) -> None:
    from core.tools import ToolCache

    where = mounted("size=1m")
    with open(where / "fill", "wb") as f:
        try:
            f.write(b"\0" * 2 * 1024 * 1024)
        except OSError:
            pass
    monkeypatch.setenv("TMPDIR", str(where))
    cache = ToolCache(tmp_path / "cache.db")
    shell = Tool("sh-tool", "sh", "dash", version_args=("-c", "echo 1"))
    script = 'head -c 400000 /dev/zero > "$TMPDIR/scratch" && echo written'  # as gcc -E writes its output
    for files in ({}, {"big.txt": "y" * 100000}):  # a tool failing to write, and its input failing to be written
        with pytest.raises(EnvironmentFault, match=r"no space left|No space left"):
            run(shell, ["-c", script], files, cache=cache)
    assert cache.hits == 0 and cache.misses == 2
    (where / "fill").unlink()
    again = run(shell, ["-c", script], cache=cache)  # once there is room, the same run runs: nothing was cached
    assert again.stdout == "written\n" and not again.cached


def test_a_tool_killed_from_outside_is_an_environment_fault() -> None:
    """SIGKILL that sembench did not send (the out-of-memory killer): not a result about the input."""
    python = Tool("python-test", sys.executable, "python3")
    with pytest.raises(EnvironmentFault, match="out-of-memory killer"):
        run(python, ["-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"], cache=False)


def test_a_tool_that_cannot_start_is_an_environment_fault(tmp_path) -> None:
    broken = tmp_path / "broken-tool"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    tool = Tool("broken", str(broken), "nothing")
    with pytest.raises(EnvironmentFault, match="cannot be started"):
        run(tool, [], cache=False)


def test_the_workbench_takes_unsandboxed_too(monkeypatch, tmp_path) -> None:
    """`sembench --unsandboxed [--db X]` opens the workbench with unconfined runs allowed."""
    import tui.app
    from tui.entry import main

    opened: list[object] = []
    monkeypatch.setenv(sandbox.ENV_UNSANDBOXED, "0")  # off, and restored whatever main() sets
    monkeypatch.setattr(tui.app, "run_app", lambda db, fresh=False: opened.append(db))
    main(["--unsandboxed", "--db", str(tmp_path / "log.db")])
    assert opened == [str(tmp_path / "log.db")] and sandbox.unsandboxed_allowed()
