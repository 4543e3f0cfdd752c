"""Confinement of tool runs with bubblewrap (`bwrap`, Debian package `bubblewrap`); see docs/sandbox.md.

Two levels, chosen by the tool's declaration (`Tool.confine`):

- "program": the tool runs a program built from an answer or an imported file (E-ACSL harnesses, test
  inputs, mutants, differential testing). It sees the system directories read-only and nothing else of
  the machine; its input files are copied into a private /tmp of a fixed size (its only writable place,
  counted against its memory limit); every namespace unshared (no network, no host socket); an
  environment of PATH, LANG, TMPDIR and HOME only; killed with its parent; as root, the sandbox runs as
  `nobody`, because the kernel never applies a process limit (RLIMIT_NPROC) to root. Where bubblewrap
  cannot run, such a run is refused (EnvironmentFault, one line saying why) unless the user allowed
  unconfined runs (`--unsandboxed`, or SEMBENCH_UNSANDBOXED=1).
- "tool": a compiler or prover that reads untrusted text (Frama-C, GHC, javac): the same view and
  environment, plus what the tool itself reads (`Tool.reads`, and paths its caller names), with its
  private directory bound writable at its own path; under the user's own id when bubblewrap runs here,
  else unconfined (it executes nothing from its input).

bwrap itself is started with the same small environment: its process inside the sandbox (pid 1 of the
sandbox's pid namespace) is readable there through /proc/1/environ.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from core.errors import EnvironmentFault
from core.tools import seccomp

Confine = Literal["program", "tool"]
ENV_UNSANDBOXED = "SEMBENCH_UNSANDBOXED"
NOBODY = 65534
PROCESSES = 64  # per sandbox (a user namespace of its own counts its processes apart)
FILE_MB = 64  # largest file a confined program may write
PROGRAM_TMP_MB = 64  # a program's private /tmp: all it can write, counted against its memory limit
TOOL_TMP_MB = 16  # a tool's /tmp (it writes to its private directory, its TMPDIR)
PROGRAM_MEMORY_MB = 2048  # a program's memory limit when its caller names none
TOOL_DATA_MB = 4096  # a tool's data limit when its caller names no address-space limit (GHC, the JVM)
WORK = "/tmp/sembench"  # a program's directory (its working directory and HOME) inside the sandbox
PATH_INSIDE = "/usr/local/bin:/usr/bin:/bin"
LANG_INSIDE = "C.UTF-8"
# What every confined run sees, read-only: the system's programs and libraries, and the dynamic
# linker's configuration. The top-level directories that merged-/usr systems make symlinks into /usr
# are made the same symlinks (bound when they are real directories).
SYSTEM = ("/usr",)
MERGED = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d")
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


def host_env() -> dict[str, str]:
    """The environment bwrap (and setpriv) start with: nothing of the user's."""
    return {"PATH": PATH_INSIDE, "LANG": LANG_INSIDE}


def system_view(reads: Sequence[str] = ()) -> list[str]:
    """bwrap arguments for the read-only system view, plus `reads` (host paths or globs, bound read-only
    at their own paths where they exist)."""
    args: list[str] = []
    for top in SYSTEM:
        args += ["--ro-bind", top, top]
    for top in MERGED:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for path in ETC:
        args += ["--ro-bind-try", path, path]
    seen: set[str] = set()
    for pattern in reads:
        for path in sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]:
            if path not in seen and os.path.lexists(path) and not _covered(path):
                seen.add(path)
                args += ["--ro-bind", path, path]
    return args


def _covered(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in SYSTEM)


def _common(die_with_parent: bool, tmp_mb: int) -> list[str]:
    # No --new-session: the runner already starts bwrap in a session of its own, without a terminal (so
    # no TIOCSTI), and a second one would take the sandbox out of the process group the runner kills.
    # A user namespace of its own in which no further one can be made (a nested one could mount a tmpfs
    # of any size), and no capability in it (as root, bwrap would keep them).
    return ["--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL",
            *(["--die-with-parent"] if die_with_parent else []), "--clearenv",
            "--proc", "/proc", "--dev", "/dev", "--size", str(tmp_mb * 1024 * 1024), "--tmpfs", "/tmp"]


def _sealed() -> list[str]:
    # last: the root (bwrap's own tmpfs) and /dev become read-only, so the sized /tmp (and, for a tool,
    # its private directory) is all a run can write
    return ["--remount-ro", "/dev", "--remount-ro", "/"]


def _setenv(env: Mapping[str, str]) -> list[str]:
    return [arg for name, value in env.items() for arg in ("--setenv", name, value)]


def _drop(program: bool) -> list[str]:
    if program and as_nobody():
        return [shutil.which("setpriv") or "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return []


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
    wrapped = wrap(["true"], level="program" if program else "tool", private=None, cwd=Path("/"))
    try:
        done = subprocess.run(wrapped.argv, capture_output=True, text=True, timeout=20, errors="replace",
                              env=wrapped.env, pass_fds=wrapped.pass_fds)
        said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1].rstrip(".")
        reason = "" if done.returncode == 0 else f"bubblewrap cannot run here ({said}; are user namespaces disabled?)"
    except (OSError, subprocess.TimeoutExpired) as exc:
        reason = f"bubblewrap cannot run here ({exc})"
    finally:
        wrapped.close()
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
    """A command line to start, the whole environment to start it with, and the file descriptors it
    inherits (closed in the parent by `close()` once it has started)."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    pass_fds: tuple[int, ...] = ()
    replace_env: bool = False  # env is the whole environment (confined), not additions to sembench's

    def close(self) -> None:
        for fd in self.pass_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.pass_fds = ()


def wrap(inner: Sequence[str], *, level: Confine, private: Path | None, cwd: Path, writable: Sequence[Path] = (),
         inputs: Mapping[str, Path] | None = None, reads: Sequence[str] = (), env: Mapping[str, str] | None = None,
         die_with_parent: bool = True) -> Wrapped:
    """`inner` (already carrying its limits) run inside the sandbox.

    A tool runs in `cwd` with `private` (its TMPDIR is `private/tmp`, also its HOME) and `writable` bound
    writable at their own paths. A program gets copies of `inputs` (name -> host file) in WORK, its
    working directory and HOME, inside its sized private /tmp; nothing of the host is writable to it
    and no host path is named to it. `reads` are further host paths a tool reads (bound read-only);
    `env` the variables it needs besides PATH, LANG, TMPDIR and HOME. `die_with_parent` off for
    long-lived helpers (see core.tools.helper)."""
    bwrap = shutil.which("bwrap") or "bwrap"
    program = level == "program"
    fds: list[int] = []
    args = [*_common(die_with_parent, PROGRAM_TMP_MB if program else TOOL_TMP_MB), *system_view(reads)]
    if program:
        inside = {"PATH": PATH_INSIDE, "LANG": LANG_INSIDE, "TMPDIR": "/tmp", "HOME": WORK, **(env or {})}
        args += ["--dir", WORK]
        made = {WORK}
        for name, source in sorted((inputs or {}).items()):
            target = f"{WORK}/{name}"
            for parent in reversed(Path(target).parents):
                if str(parent).startswith(WORK + "/") and str(parent) not in made:
                    made.add(str(parent))
                    args += ["--dir", str(parent)]
            fd = os.open(source, os.O_RDONLY | os.O_CLOEXEC)
            fds.append(fd)
            args += ["--file", str(fd), target]
        args += ["--chdir", WORK]
    else:
        tmp = str(private / "tmp") if private is not None else "/tmp"
        inside = {"PATH": PATH_INSIDE, "LANG": LANG_INSIDE, "TMPDIR": tmp, "HOME": tmp, **(env or {})}
        for path in [*([private] if private is not None else []), *writable]:
            args += ["--bind", str(path), str(path)]
        args += ["--chdir", str(cwd)]
    filter_fd = seccomp.filter_fd(program)
    if filter_fd is not None:
        fds.append(filter_fd)
        args += ["--seccomp", str(filter_fd)]
    argv = [*_drop(program), bwrap, *args, *_setenv(inside), *_sealed(), "--", *inner]
    return Wrapped(argv, host_env(), tuple(fds), replace_env=True)


def pdeathsig_prefix() -> list[str]:
    """For unconfined tools: killed when sembench dies (kill -9 included). `setpriv` (util-linux) sets
    PR_SET_PDEATHSIG before exec; a preexec_fn would do the same but is unsafe in a threaded process."""
    return ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []
