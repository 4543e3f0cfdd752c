"""Running an external tool once: a private directory, its own process group, limits, a hard timeout.

The tool runs in a fresh temporary directory holding only the files it is given, which is also its
TMPDIR (Frama-C, Why3 and gcc leave nothing in the user's); it is the leader of a new session (so of a
process group), and on timeout the whole group is killed, grandchildren included (a prover started by
Why3 started by Frama-C). Address-space and CPU limits are set by `ulimit` in a shell that then execs
the tool. Output is read in chunks; once it passes MAX_OUTPUT the run is stopped (and says so), so a
runaway tool never makes sembench hold more. A time-out is the run's own only when it spent the CPU time
(core.tools.overrun); one the machine caused is run again, then raised as EnvironmentFault.

Confined runs (core.tools.sandbox) go through bubblewrap, which kills the whole sandbox when sembench
dies; unconfined ones get PR_SET_PDEATHSIG. The private directory's name carries the owning pid, so the
next start removes those left by a process that was killed (`sweep_stale`).

A tool that cannot run at all (no space or a read-only temporary directory, an executable that cannot
start, killed by the out-of-memory killer, a sandbox that fails to start) raises EnvironmentFault: that
is the machine's failure, never a result about the input, and it is never cached. Nothing a program
built from an answer does can raise one (docs/sandbox.md): only the runner's checks outside it count.
What a confined run printed is redacted of every known secret before it is returned.
"""

from __future__ import annotations

import errno
import os
import re
import selectors
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from core.errors import EnvironmentFault
from core.tools import overrun, sandbox

MAX_OUTPUT = 4 * 1024 * 1024
KILL_GRACE_S = 0.5
PREFIXES = ("sembench-tool-", "sembench-helper-")
MIN_FREE_BYTES = 1024 * 1024  # less free space than this in TMPDIR: disk full
OVERRUN_RETRIES = 1  # a time-out that is the machine's (core.tools.overrun) is run again this many times
_CHUNK = 64 * 1024  # output is read (and stdin written) this much at a time
_TURN_S = 0.25  # the reading loop wakes at least this often (to notice a stall of sembench itself)
_STALL_S = 1.0  # a turn this much later than asked: sembench itself did not run
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
    output_cut: bool = False  # its output passed MAX_OUTPUT: it was stopped there

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.timed_out


def limited(argv: Sequence[str], memory_mb: int | None, cpu_s: int | None, *, processes: int | None = None,
            file_mb: int | None = None, merge_stderr: bool = False, data_mb: int | None = None) -> list[str]:
    """argv wrapped so the limits apply to it and everything it starts. A shell's `ulimit` rather than a
    preexec_fn: verification runs in threads, and preexec_fn is not safe in a threaded process. `bash`
    when a process limit is asked (dash has no `ulimit -u`). `memory_mb` limits the address space,
    `data_mb` the data (private writable memory: for GHC and the JVM, which reserve far more address
    space than they use). `merge_stderr` sends the tool's stderr to stdout, so that stderr holds only
    what the sandbox itself said."""
    limits = ["ulimit -c 0"]
    if memory_mb is not None:
        limits.append(f"ulimit -v {int(memory_mb) * 1024}")
    if data_mb is not None:
        limits.append(f"ulimit -d {int(data_mb) * 1024}")
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


def command(argv: Sequence[str], private: Path | None, cwd: Path, confine: sandbox.Confine | None,
            level: sandbox.Confine | None, memory_mb: int | None, cpu_s: int | None, *,
            writable: Sequence[Path] = (), inputs: Mapping[str, Path] | None = None, reads: Sequence[str] = (),
            env: Mapping[str, str] | None = None, die_with_parent: bool = True) -> sandbox.Wrapped:
    """The full command line: limits, then the sandbox (or, unconfined, death with the parent).

    Every confined run has a memory limit: a program's address space is `memory_mb` (or
    sandbox.PROGRAM_MEMORY_MB) less its private /tmp, which lives in memory; a tool without an
    address-space limit gets a data limit (sandbox.TOOL_DATA_MB)."""
    program = confine == "program"
    data_mb = None
    if level == "program":
        memory_mb = (memory_mb or sandbox.PROGRAM_MEMORY_MB) - sandbox.PROGRAM_TMP_MB
    elif level == "tool" and memory_mb is None:
        data_mb = sandbox.TOOL_DATA_MB
    inner = limited(argv, memory_mb, cpu_s, processes=sandbox.PROCESSES if program else None,
                    file_mb=sandbox.FILE_MB if program else None, merge_stderr=program, data_mb=data_mb)
    if level is None:
        return sandbox.Wrapped([*(sandbox.pdeathsig_prefix() if die_with_parent else []), *inner], dict(env or {}))
    return sandbox.wrap(inner, level=level, private=private, cwd=cwd, writable=writable, inputs=inputs,
                        reads=reads, env=env, die_with_parent=die_with_parent)


def temp_root() -> Path:
    """Where private directories go: $TMPDIR as the user set it (Python's tempfile silently falls back
    to /tmp when it is not writable, which would hide the fault from the user), else the default."""
    return Path(os.environ.get("TMPDIR") or tempfile.gettempdir())


def private_directory(prefix: str = "sembench-tool-") -> Path:
    """A fresh directory named after this process (`<prefix><pid>-...`), holding `work/` (the tool's
    files and working directory) and `tmp/` (its TMPDIR). Refused, as an environment fault, when
    TMPDIR's file system is read-only or has less than MIN_FREE_BYTES free: checked here, before the
    run, so that nothing a run does can make its own run look like the machine's failure."""
    root = temp_root()
    sweep_stale(root)
    try:
        stat = os.statvfs(root)
        free = stat.f_bavail * stat.f_frsize
    except OSError:
        free = None
    if free is not None and free < MIN_FREE_BYTES:
        raise EnvironmentFault(f"no space left in the temporary directory {root} (TMPDIR; {free // 1024} KiB "
                               "free)")
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


def _text(data: bytes | bytearray, cut: bool) -> str:
    text = bytes(data[:MAX_OUTPUT]).decode("utf-8", errors="replace")
    return text + (f"\n[output cut at {MAX_OUTPUT // (1024 * 1024)} MiB: the run was stopped]" if cut else "")


@dataclass
class _Streams:
    out: bytearray = field(default_factory=bytearray)
    err: bytearray = field(default_factory=bytearray)
    cut: bool = False
    timed_out: bool = False
    overrun: str = ""  # why a time-out is the machine's ('' when it is the run's own)
    stalled_s: float = 0.0


def _communicate(proc: subprocess.Popen[bytes], stdin: bytes | None, timeout_s: float,
                 started: overrun.Machine) -> _Streams:
    """Feed stdin and read stdout and stderr in chunks until the process ends, its output passes
    MAX_OUTPUT (it is stopped: never more than that is held in memory), or the time runs out (its
    cause is looked at before it is killed). Notes how long sembench itself did not run (the gaps
    between turns of this loop that it did not spend waiting)."""
    got = _Streams()
    deadline = time.monotonic() + timeout_s
    selector = selectors.DefaultSelector()
    buffers: dict[int, bytearray] = {}
    for stream, buffer in ((proc.stdout, got.out), (proc.stderr, got.err)):
        if stream is not None:
            selector.register(stream.fileno(), selectors.EVENT_READ)
            buffers[stream.fileno()] = buffer
    pending = memoryview(stdin or b"")
    if proc.stdin is not None:
        if pending:
            os.set_blocking(proc.stdin.fileno(), False)
            selector.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
    last = time.monotonic()
    try:
        while selector.get_map():
            now = time.monotonic()
            if now >= deadline:
                got.timed_out = True
                break
            wait = min(deadline - now, _TURN_S)
            events = selector.select(wait)
            after = time.monotonic()
            if after - last > wait + _STALL_S:  # this thread did not run: sembench was stopped or starved
                got.stalled_s += after - last - wait
            last = after
            for key, _ in events:
                fd = key.fd
                if proc.stdin is not None and fd == proc.stdin.fileno():
                    try:
                        written = os.write(fd, pending[:_CHUNK])
                    except BlockingIOError:
                        continue
                    except OSError:  # the tool closed its stdin
                        written = len(pending)
                    pending = pending[written:]
                    if not pending:
                        selector.unregister(fd)
                        proc.stdin.close()
                    continue
                chunk = os.read(fd, _CHUNK)
                if not chunk:
                    selector.unregister(fd)
                    continue
                buffer = buffers[fd]
                buffer += chunk
                if len(buffer) > MAX_OUTPUT:
                    got.cut = True
                    del buffer[MAX_OUTPUT:]
                    return got
        if not got.timed_out:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                got.timed_out = True  # it closed its output and went on running
        if got.timed_out:
            got.overrun = overrun.cause(proc.pid, timeout_s, started, got.stalled_s)
        return got
    finally:
        selector.close()


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
    reads: Sequence[str] = (),
) -> ToolResult:
    """Run argv in a private directory holding `files` (relative names); see the module docstring.
    `confine` is the tool's declared confinement (core.tools.sandbox.mode decides how it runs here);
    `reads` the host paths a confined tool reads besides the system's (core.tools.sandbox.wrap).

    A run that passes its wall-clock limit while the machine, not the run, was at fault
    (core.tools.overrun) is run once more; a second such overrun raises EnvironmentFault."""
    level = sandbox.mode(confine)  # refuses an unconfinable program before anything is written
    if level == "program" and (workdir is not None or collect):
        raise ValueError("a confined program writes only inside its sandbox: no workdir, nothing to collect")
    for _attempt in range(1 + OVERRUN_RETRIES):
        result, why = _execute_once(argv, files, timeout_s=timeout_s, memory_mb=memory_mb, cpu_s=cpu_s,
                                    stdin=stdin, env=env, collect=collect, workdir=workdir, confine=confine,
                                    level=level, reads=reads)
        if not why:
            return result
    raise EnvironmentFault(f"{Path(argv[0]).name} ran past its time limit of {timeout_s:.0f} s "
                           f"{1 + OVERRUN_RETRIES} times, not for its own part ({why}): the machine is "
                           "overloaded or was stalled; nothing was recorded for it")


def _execute_once(argv: Sequence[str], files: Mapping[str, str | bytes] | None, *, timeout_s: float,
                  memory_mb: int | None, cpu_s: int | None, stdin: str | None, env: Mapping[str, str] | None,
                  collect: Sequence[str], workdir: Path | None, confine: sandbox.Confine | None,
                  level: sandbox.Confine | None, reads: Sequence[str]) -> tuple[ToolResult, str]:
    private = private_directory()
    directory = private / "work" if workdir is None else Path(workdir)
    full: sandbox.Wrapped | None = None
    try:
        written: dict[str, Path] = {}
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
                written[name] = target
        except OSError as exc:
            raise EnvironmentFault(f"cannot write a tool's input files in {private.parent} (TMPDIR): "
                                   f"{exc.strerror or exc}") from None
        start = time.perf_counter()
        tool_env = {**(env or {}), "TMPDIR": str(private / "tmp")} if level is None else dict(env or {})
        full = command(argv, private, directory, confine, level, memory_mb, cpu_s,
                       writable=[directory] if workdir is not None else [], inputs=written,
                       reads=[*reads, *_install_prefix(argv[0], level)], env=tool_env)
        machine = overrun.Machine.now()
        try:
            proc = subprocess.Popen(
                full.argv, cwd=directory, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                env=full.env if full.replace_env else {**os.environ, **full.env}, pass_fds=full.pass_fds,
            )
        except OSError as exc:
            raise EnvironmentFault(f"cannot start {argv[0]}: {exc.strerror or exc}") from None
        finally:
            full.close()
        try:
            got = _communicate(proc, stdin.encode("utf-8") if stdin is not None else None, timeout_s, machine)
        finally:
            # The leader is done, or is stopped here; anything it left running in its group (a prover)
            # goes with it.
            kill_group(proc)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
        elapsed = time.perf_counter() - start
        if got.overrun:
            return ToolResult(argv=list(argv), rc=None, timed_out=True, elapsed_s=elapsed), got.overrun
        killed = got.timed_out or got.cut
        result = ToolResult(argv=list(argv), rc=None if killed else proc.returncode, stdout=_text(got.out, got.cut),
                            stderr=_text(got.err, False), elapsed_s=elapsed, timed_out=got.timed_out,
                            output_cut=got.cut)
        fault = environment_fault(result, private, confine, level, cpu_s)
        if fault:
            raise EnvironmentFault(f"{Path(argv[0]).name} could not run: {fault}")
        collected = {}
        for name in collect:
            path = directory / name
            if path.is_file():
                with open(path, "rb") as handle:
                    collected[name] = handle.read(MAX_OUTPUT).decode("utf-8", errors="replace")
        result.files = collected
        if level is not None:
            result = _redacted(result)
        return result, ""
    finally:
        if full is not None:
            full.close()
        _remove_tree(private)


def _install_prefix(executable: str, level: sandbox.Confine | None) -> list[str]:
    """A confined tool installed outside the system directories (an opam switch, /opt): its prefix, read
    by the tool (the parent of its `bin`)."""
    if level is None:
        return []
    real = Path(os.path.realpath(executable))
    if any(real.is_relative_to(top) for top in sandbox.SYSTEM):
        return []
    prefix = real.parent.parent if real.parent.name == "bin" else real.parent
    return [str(prefix)]


def _redacted(result: ToolResult) -> ToolResult:
    """What a confined run printed is data from untrusted input: every secret the process knows (API
    keys, secret-looking variables of the user's environment) is redacted before anything reads it."""
    from core.models.config import known_secrets
    from core.models.secrets import redact

    keys = known_secrets()
    if not keys:
        return result
    return result.model_copy(update={"stdout": redact(result.stdout, keys), "stderr": redact(result.stderr, keys),
                                     "files": {name: redact(text, keys) for name, text in result.files.items()}})


def environment_fault(result: ToolResult, directory: Path, confine: sandbox.Confine | None,
                      level: sandbox.Confine | None, cpu_s: int | None = None) -> str:
    """Why a finished run says nothing about its input ('' when it does): the sandbox or the shell could
    not start the tool, the file system is full or read-only, or something other than sembench killed
    the tool (the out-of-memory killer). A program built from an answer can never cause one: its
    stderr goes to stdout, so stderr holds only what bwrap or setpriv said; it writes nothing outside
    its sandbox (so the host's file system is not read after it); and its exit status is not read as
    a kill."""
    if result.timed_out or result.output_cut or result.rc == 0:
        return ""
    first = result.stderr.strip().splitlines()[:1]
    said = first[0] if first else ""
    if said.startswith(("bwrap:", "setpriv:")):
        return f"the sandbox failed to start ({said})"
    if confine == "program":
        return ""
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
    # the kernel sends SIGKILL itself at a CPU limit
    killed = cpu_s is None and result.rc in (-signal.SIGKILL, 128 + signal.SIGKILL)
    if killed:
        return "killed by SIGKILL, not by sembench (most likely the kernel's out-of-memory killer)"
    return ""


def _remove_tree(directory: Path) -> None:
    import shutil

    shutil.rmtree(directory, ignore_errors=True)
