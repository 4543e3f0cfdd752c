"""External tools as declared by the families that need them: executable, Debian package, version probe."""

from __future__ import annotations

import re
import shutil
import threading
from dataclasses import dataclass, field

from core.errors import ToolMissing

_VERSIONS: dict[str, str] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Tool:
    """An external program. `version()` runs `executable *version_args` once per process and keeps the
    first match of `version_pattern` (the whole first line when it does not match); cache keys include
    it, so upgrading a tool never serves a result computed by the old one."""

    name: str
    executable: str
    package: str  # the Debian package that provides it (named in the error when it is missing)
    version_args: tuple[str, ...] = ("--version",)
    version_pattern: str = r"(\d+(?:\.\d+)+)"
    note: str = ""  # what the family uses it for (shown by `sembench families`)
    extra: tuple[str, ...] = field(default=(), compare=False)  # further executables that must exist
    # core.tools.sandbox: "program" runs programs built from its input (always confined, or refused),
    # "tool" reads untrusted text (confined where bubblewrap runs), None runs as it is
    confine: str | None = None
    # host paths (globs allowed) a confined run of it reads besides the system's (/usr, /lib*, the dynamic
    # linker's files): a package database under /var, a JDK's configuration under /etc
    reads: tuple[str, ...] = field(default=(), compare=False)
    # The family's answers are checked without it (it adds, e.g., an independent oracle or validates the
    # corpus): its absence never stops an attempt, and `sembench families` says what it would add.
    optional: bool = False

    def path(self) -> str | None:
        return shutil.which(self.executable)

    def available(self) -> bool:
        return self.path() is not None and all(shutil.which(e) for e in self.extra)

    def require(self) -> str:
        """The executable's path; ToolMissing (a one-line UserError naming the package) when absent."""
        path = self.path()
        if path is None:
            raise ToolMissing(self.executable, self.package)
        for exe in self.extra:
            if shutil.which(exe) is None:
                raise ToolMissing(exe, self.package)
        return path

    def version(self) -> str:
        with _LOCK:
            if self.name in _VERSIONS:
                return _VERSIONS[self.name]
        path = self.require()
        import subprocess  # here: declaring tools (every family, at start-up) does not need it

        try:
            done = subprocess.run([path, *self.version_args], capture_output=True, text=True, timeout=60,
                                  errors="replace")
            text = (done.stdout or "") + (done.stderr or "")
        except (OSError, subprocess.TimeoutExpired) as exc:
            text = f"unknown ({type(exc).__name__})"
        match = re.search(self.version_pattern, text)
        version = match.group(1) if match else (text.strip().splitlines() or ["unknown"])[0][:80]
        with _LOCK:
            _VERSIONS[self.name] = version
        return version
