"""Running an external tool once: a private directory, its own process group, limits, a hard timeout.

The tool runs in a fresh temporary directory holding only the files it is given, which is also its
TMPDIR (Frama-C, Why3 and gcc leave nothing in the user's); it is the leader of a new session (so of a
process group), and on timeout the whole group is killed, grandchildren included (a prover started by
Why3 started by Frama-C). Address-space and CPU limits are set by `ulimit` in a shell that then execs
the tool. Output beyond `max_output` bytes is cut (and says so), so a runaway tool cannot fill memory.

Confined runs (core.tools.sandbox) go through bubblewrap, which kills the whole sandbox when sembench
dies; unconfined ones get PR_SET_PDEATHSIG. The private directory's name carries the owning pid, so the
next start removes those left by a process that was killed (`sweep_stale`).

A tool that cannot run at all (no space or a read-only temporary directory, an executable that cannot
start, killed by the out-of-memory killer, a sandbox that fails to start) raises EnvironmentFault: that
is the machine's failure, never a result about the input, and it is never cached.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from core.errors import EnvironmentFault
from core.tools import sandbox

MAX_OUTPUT = 4 * 1024 * 1024
KILL_GRACE_S = 0.5
PREFIXES = ("sembench-tool-", "sembench-helper-")
MIN_FREE_BYTES = 1024 * 1024  # a failed run with less free space than this in its directory: disk full
_SWEPT: set[str] = set()
_SWEEP_LOCK = threading.Lock()


class ToolResult(BaseModel):
    """What a run gave. `files` holds the output files asked for by `collect` (text, may be missing)."""

    model_config = ConfigDict(defer_build=True)

    argv: list[str]
    rc: int | None  # None when killed
    stdout: str = ""
    stderr: str = ""
    elapsed_s: float = 0.0
    timed_out: bool = False
    files: dict[str, str] = Field(default_factory=dict)
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.timed_out


def limited(argv: Sequence[str], memory_mb: int | None, cpu_s: int | None, *, processes: int | None = None,
            file_mb: int | None = None, merge_stderr: bool = False) -> list[str]:
    """argv wrapped so the limits apply to it and everything it starts. A shell's `ulimit` rather than a
    preexec_fn: verification runs in threads, and preexec_fn is not safe in a threaded process. `bash`
    when a process limit is asked (dash has no `ulimit -u`). `merge_stderr` sends the tool's stderr to
    stdout, so that stderr holds only what the sandbox itself said."""
    limits = ["ulimit -c 0"]
    if memory_mb is not None:
        limits.append(f"ulimit -v {int(memory_mb) * 1024}")
    if cpu_s is not None:
        limits.append(f"ulimit -t {int(cpu_s)}")
    if processes is not None:
        limits.append(f"ulimit -u {int(processes)}")
    if file_mb is not None:
        limits.append(f"ulimit -f {int(file_mb) * 1024}")
    if merge_stderr:
        limits.append("exec 2>&1")
    shell = "/bin/bash" if processes is not None else "/bin/sh"
    return [shell, "-c", "; ".join(limits) + '; exec "$@"', "sembench-tool", *argv]


def command(argv: Sequence[str], writable: Sequence[Path], cwd: Path, confine: sandbox.Confine | None,
            level: sandbox.Confine | None, memory_mb: int | None, cpu_s: int | None,
            die_with_parent: bool = True) -> sandbox.Wrapped:
    """The full command line: limits, then the sandbox (or, unconfined, death with the parent)."""
    program = confine == "program"
    inner = limited(argv, memory_mb, cpu_s, processes=sandbox.PROCESSES if program else None,
                    file_mb=sandbox.FILE_MB if program else None, merge_stderr=program)
    if level is None:
        return sandbox.Wrapped([*(sandbox.pdeathsig_prefix() if die_with_parent else []), *inner])
    return sandbox.wrap(inner, writable, cwd, level, die_with_parent)


def temp_root() -> Path:
    """Where private directories go: $TMPDIR as the user set it (Python's tempfile silently falls back
    to /tmp when it is not writable, which would hide the fault from the user), else the default."""
    return Path(os.environ.get("TMPDIR") or tempfile.gettempdir())


def private_directory(prefix: str = "sembench-tool-", program: bool = False) -> Path:
    """A fresh directory named after this process (`<prefix><pid>-...`), holding `work/` (the tool's
    files and working directory) and `tmp/` (its TMPDIR). A confined program's may go elsewhere
    (sandbox.program_root)."""
    root = sandbox.program_root(temp_root()) if program else temp_root()
    sweep_stale(root)
    try:
        directory = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=root))
        (directory / "work").mkdir()
        (directory / "tmp").mkdir()
    except OSError as exc:
        raise EnvironmentFault(f"cannot create a private directory for a tool in {root} (TMPDIR): "
                               f"{exc.strerror or exc}") from None
    return directory


_OWNER = re.compile(r"^sembench-(?:tool|helper)-(\d+)-")


def sweep_stale(root: Path) -> int:
    """Remove private directories left in `root` by processes that are dead (killed with -9, say); those
    of live processes are left alone. Once per process and root. Returns how many were removed."""
    key = str(root)
    with _SWEEP_LOCK:
        if key in _SWEPT:
            return 0
        _SWEPT.add(key)
    removed = 0
    try:
        entries = list(os.scandir(root))
    except OSError:
        return 0
    for entry in entries:
        match = _OWNER.match(entry.name)
        if match is None or not entry.is_dir(follow_symlinks=False):
            continue
        pid = int(match.group(1))
        if pid == os.getpid() or _pid_alive(pid):
            continue
        _remove_tree(Path(entry.path))
        removed += 1
    return removed


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process's whole group (it leads its own session), then reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def _text(data: bytes | None) -> str:
    if not data:
        return ""
    cut = len(data) > MAX_OUTPUT
    text = data[:MAX_OUTPUT].decode("utf-8", errors="replace")
    return text + ("\n[output cut at 4 MiB]" if cut else "")


def execute(
    argv: Sequence[str],
    files: Mapping[str, str | bytes] | None = None,
    *,
    timeout_s: float = 60.0,
    memory_mb: int | None = None,
    cpu_s: int | None = None,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    collect: Sequence[str] = (),
    workdir: Path | None = None,
    confine: sandbox.Confine | None = None,
) -> ToolResult:
    """Run argv in a private directory holding `files` (relative names); see the module docstring.
    `confine` is the tool's declared confinement (core.tools.sandbox.mode decides how it runs here)."""
    level = sandbox.mode(confine)  # refuses an unconfinable program before anything is written
    private = private_directory(program=level == "program")
    directory = private / "work" if workdir is None else Path(workdir)
    try:
        try:
            for name, content in (files or {}).items():
                target = directory / name
                if not target.resolve().is_relative_to(directory.resolve()):
                    raise ValueError(f"tool input file escapes its directory: {name!r}")
                target.parent.mkdir(parents=True, exist_ok=True)
                if isinstance(content, bytes):
                    target.write_bytes(content)
                else:
                    target.write_text(content, encoding="utf-8")
        except OSError as exc:
            raise EnvironmentFault(f"cannot write a tool's input files in {private.parent} (TMPDIR): "
                                   f"{exc.strerror or exc}") from None
        start = time.perf_counter()
        full = command(argv, [private, *([directory] if workdir is not None else [])], directory, confine, level,
                       memory_mb, cpu_s)
        try:
            proc = subprocess.Popen(
                full.argv, cwd=directory, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                env={**os.environ, **(env or {}), "TMPDIR": str(private / "tmp"), **full.env},
            )
        except OSError as exc:
            raise EnvironmentFault(f"cannot start {argv[0]}: {exc.strerror or exc}") from None
        timed_out = False
        try:
            out, err = proc.communicate(stdin.encode("utf-8") if stdin is not None else None, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(proc)
            out, err = proc.communicate()
        else:
            # The leader is done; anything it left running in its group (a prover) goes with it.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        elapsed = time.perf_counter() - start
        result = ToolResult(argv=list(argv), rc=None if timed_out else proc.returncode, stdout=_text(out),
                            stderr=_text(err), elapsed_s=elapsed, timed_out=timed_out)
        fault = environment_fault(result, private, confine, level, cpu_s)
        if fault:
            raise EnvironmentFault(f"{Path(argv[0]).name} could not run: {fault}")
        collected = {}
        for name in collect:
            path = directory / name
            if path.is_file():
                collected[name] = path.read_bytes()[:MAX_OUTPUT].decode("utf-8", errors="replace")
        result.files = collected
        return result
    finally:
        _remove_tree(private)


def environment_fault(result: ToolResult, directory: Path, confine: sandbox.Confine | None,
                      level: sandbox.Confine | None, cpu_s: int | None = None) -> str:
    """Why a finished run says nothing about its input ('' when it does): the sandbox or the shell could
    not start the tool, the file system is full or read-only, or something other than sembench killed
    the tool (the out-of-memory killer). A confined program's own output cannot fake one: its stderr goes
    to stdout, and its exit status is not read as a kill."""
    if result.timed_out or result.rc == 0:
        return ""
    first = result.stderr.strip().splitlines()[:1]
    said = first[0] if first else ""
    if said.startswith(("bwrap:", "setpriv:")):
        return f"the sandbox failed to start ({said})"
    if result.rc in (126, 127) and re.search(r"sembench-tool: \d+: exec: .*(not found|Permission denied)|"
                                             r"sembench-tool: .*: (No such file|Permission denied)", said):
        return f"the executable cannot be started ({said})"
    try:
        stat = os.statvfs(directory)
        if stat.f_flag & os.ST_RDONLY:
            return f"the temporary directory {directory.parent} (TMPDIR) is read-only"
        free = stat.f_bavail * stat.f_frsize
        if free < MIN_FREE_BYTES:
            return f"no space left in the temporary directory {directory.parent} (TMPDIR; {free // 1024} KiB free)"
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return f"its private directory {directory} disappeared"
    # a confined program's leader is our shell script: its status may be the program's own; and the
    # kernel sends SIGKILL itself at a CPU limit
    killed = confine != "program" and cpu_s is None and result.rc in (-signal.SIGKILL, 128 + signal.SIGKILL)
    if killed:
        return "killed by SIGKILL, not by sembench (most likely the kernel's out-of-memory killer)"
    return ""


def _remove_tree(directory: Path) -> None:
    import shutil

    shutil.rmtree(directory, ignore_errors=True)
