"""Running an external tool once: a private directory, its own process group, limits, a hard timeout.

The tool runs in a fresh temporary directory holding only the files it is given; it is the leader of a
new session (so of a process group), and on timeout the whole group is killed, grandchildren included
(a prover started by Why3 started by Frama-C). Address-space and CPU limits are set by `ulimit` in a
shell that then execs the tool. Output beyond `max_output` bytes is cut (and says so), so a runaway tool cannot
fill memory.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

MAX_OUTPUT = 4 * 1024 * 1024
KILL_GRACE_S = 0.5


class ToolResult(BaseModel):
    """What a run gave. `files` holds the output files asked for by `collect` (text, may be missing)."""

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


def limited(argv: Sequence[str], memory_mb: int | None, cpu_s: int | None) -> list[str]:
    """argv wrapped so the limits apply to it and everything it starts. A shell's `ulimit` rather than a
    preexec_fn: verification runs in threads, and preexec_fn is not safe in a threaded process."""
    limits = ["ulimit -c 0"]
    if memory_mb is not None:
        limits.append(f"ulimit -v {int(memory_mb) * 1024}")
    if cpu_s is not None:
        limits.append(f"ulimit -t {int(cpu_s)}")
    return ["/bin/sh", "-c", "; ".join(limits) + '; exec "$@"', "sembench-tool", *argv]


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
) -> ToolResult:
    """Run argv in a private directory holding `files` (relative names); see the module docstring."""
    owned = workdir is None
    directory = Path(tempfile.mkdtemp(prefix="sembench-tool-")) if owned else Path(workdir)  # type: ignore[arg-type]
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
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(
                limited(argv, memory_mb, cpu_s), cwd=directory, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                env={**os.environ, **env} if env else None,
            )
        except OSError as exc:
            return ToolResult(argv=list(argv), rc=127, stderr=f"cannot start {argv[0]}: {exc.strerror or exc}")
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
        collected = {}
        for name in collect:
            path = directory / name
            if path.is_file():
                collected[name] = path.read_bytes()[:MAX_OUTPUT].decode("utf-8", errors="replace")
        return ToolResult(argv=list(argv), rc=None if timed_out else proc.returncode, stdout=_text(out),
                          stderr=_text(err), elapsed_s=elapsed, timed_out=timed_out, files=collected)
    finally:
        if owned:
            _remove_tree(directory)


def _remove_tree(directory: Path) -> None:
    import shutil

    shutil.rmtree(directory, ignore_errors=True)
