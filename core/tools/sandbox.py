"""Confinement of tool runs with bubblewrap (`bwrap`, Debian package `bubblewrap`); see docs/sandbox.md.

Two levels, chosen by the tool's declaration (`Tool.confine`):

- "program": the tool runs a program built from an answer or an imported file (E-ACSL harnesses, test
  inputs, mutants, differential testing). Read-only root, the private directory the only writable place,
  a private /tmp, fresh /dev and /proc, every namespace unshared (no network), killed with its parent;
  as root, the sandbox runs as `nobody`, because the
  kernel never applies a process limit (RLIMIT_NPROC) to root. Where bubblewrap cannot run, such a run
  is refused (EnvironmentFault, one line saying why) unless the user allowed unconfined runs
  (`--unsandboxed`, or SEMBENCH_UNSANDBOXED=1).
- "tool": a compiler or prover that reads untrusted text (Frama-C, GHC, javac): the same confinement
  under the user's own id when bubblewrap runs here, else unconfined (it executes nothing from its input).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from core.errors import EnvironmentFault

Confine = Literal["program", "tool"]
ENV_UNSANDBOXED = "SEMBENCH_UNSANDBOXED"
NOBODY = 65534
PROCESSES = 64  # per sandbox (a user namespace of its own counts its processes apart)
FILE_MB = 64  # largest file a confined program may write
INSIDE = "/tmp/sembench-"  # where a program sees its writable directories (inside its private /tmp)
_PROBES: dict[tuple[str, bool], str] = {}
_LOCK = threading.Lock()


class SandboxRefused(EnvironmentFault):
    """A program built from untrusted text would have to run unconfined, and the user did not allow it."""


def allow_unsandboxed(allowed: bool = True) -> None:
    """`--unsandboxed`: run programs unconfined where bubblewrap cannot run (kept in the environment, so
    `python -m core` subprocesses and the TUI's workers see it too)."""
    if allowed:
        os.environ[ENV_UNSANDBOXED] = "1"
    else:
        os.environ.pop(ENV_UNSANDBOXED, None)


def unsandboxed_allowed() -> bool:
    return os.environ.get(ENV_UNSANDBOXED, "") not in ("", "0")


def as_nobody() -> bool:
    """Confined programs drop root: RLIMIT_NPROC is never enforced for uid 0, even in a user namespace."""
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


def _flags(binds: Sequence[str], cwd: str, die_with_parent: bool = True, private_tmp: bool = True) -> list[str]:
    # later mounts go over earlier ones: the private directories are bound after /tmp becomes a tmpfs.
    # No --new-session: the runner already starts bwrap in a session of its own, without a terminal (so
    # no TIOCSTI), and a second one would take the sandbox out of the process group the runner kills.
    # A tool (compiler, prover) keeps the read-only view of /tmp: what it reads (a folder being imported,
    # a cache) may live there; it writes only to its private directory, its TMPDIR.
    tmp = ["--tmpfs", "/tmp"] if private_tmp else []
    return ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *tmp, *binds,
            "--unshare-all", *(["--die-with-parent"] if die_with_parent else []), "--chdir", cwd]


def _prefix(bwrap: str, binds: Sequence[str], cwd: str, program: bool, die_with_parent: bool = True) -> list[str]:
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] if program and as_nobody() else []
    return [*drop, bwrap, *_flags(binds, cwd, die_with_parent, private_tmp=program), "--"]


def problem(program: bool = True) -> str:
    """'' when bubblewrap confines runs on this machine, else why not (one clause). Probed once per
    process and bwrap path, by running `true` the way a tool would run."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap is not installed (Debian package 'bubblewrap')"
    key = (bwrap, program)
    with _LOCK:
        if key in _PROBES:
            return _PROBES[key]
    binds = ["--bind", "/tmp", f"{INSIDE}0"] if program else []  # a tool's view has no private /tmp to bind in
    argv = [*_prefix(bwrap, binds, "/", program), "true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20, errors="replace")
        said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1].rstrip(".")
        reason = "" if done.returncode == 0 else f"bubblewrap cannot run here ({said}; are user namespaces disabled?)"
    except (OSError, subprocess.TimeoutExpired) as exc:
        reason = f"bubblewrap cannot run here ({exc})"
    with _LOCK:
        _PROBES[key] = reason
    return reason


def mode(confine: Confine | None) -> Confine | None:
    """How a tool declared with `confine` runs now: confined ("program"/"tool") or not (None). Raises
    SandboxRefused for a program that cannot be confined unless unconfined runs are allowed."""
    if confine is None:
        return None
    why = problem(confine == "program")
    if not why:
        return confine
    if confine == "program" and not unsandboxed_allowed():
        raise SandboxRefused(f"{why}: refusing to run a program built from an answer or an imported file "
                             "outside a sandbox; install bubblewrap, or pass --unsandboxed to run it unconfined")
    return None


@dataclass
class Wrapped:
    """A command line to start, and environment variables to set for it."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)


def wrap(inner: Sequence[str], writable: Sequence[Path], cwd: Path, level: Confine,
         die_with_parent: bool = True) -> Wrapped:
    """`inner` (already carrying its limits) run inside the sandbox in `cwd`; `writable` are the only
    places it may write. A tool sees them at their own paths; a program at /tmp/sembench-N (nothing
    outside is named to it), with its private /tmp as TMPDIR. `die_with_parent` off for long-lived
    helpers (see core.tools.helper)."""
    bwrap = shutil.which("bwrap") or "bwrap"
    if level == "tool":
        binds = [arg for w in writable for arg in ("--bind", str(w), str(w))]
        return Wrapped([*_prefix(bwrap, binds, str(cwd), False, die_with_parent), *inner])
    if as_nobody():
        for directory in writable:
            _give(directory)
    binds = [arg for i, w in enumerate(writable) for arg in ("--bind", str(w), f"{INSIDE}{i}")]
    inside = str(cwd)
    for i, w in enumerate(writable):
        if cwd == w or cwd.is_relative_to(w):
            inside = f"{INSIDE}{i}/{cwd.relative_to(w)}".rstrip("/.")
            break
    return Wrapped([*_prefix(bwrap, binds, inside, True, die_with_parent), *inner], {"TMPDIR": "/tmp"})


def program_root(root: Path) -> Path:
    """Where a program's private directory goes: `root` (TMPDIR), unless the sandbox runs as `nobody`
    and cannot reach it (a directory of root's own, mode 0700, on the way): then the system's /tmp."""
    if not as_nobody():
        return root
    for directory in [root, *root.parents]:
        try:
            if not os.stat(directory).st_mode & 0o001:
                return Path("/tmp")
        except OSError:
            return root
    return root


def _give(directory: Path) -> None:
    """The private directory (and what is in it) writable by the unprivileged sandbox user."""
    for path in [directory, *directory.rglob("*")]:
        try:
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
        except OSError:
            pass


def pdeathsig_prefix() -> list[str]:
    """For unconfined tools: killed when sembench dies (kill -9 included). `setpriv` (util-linux) sets
    PR_SET_PDEATHSIG before exec; a preexec_fn would do the same but is unsafe in a threaded process."""
    return ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []
