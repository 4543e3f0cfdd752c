"""Whether this machine can check each family's answers: the tools (and files) its verifier needs, which
of them are missing, and the one command that installs them. Answers of a family that is not ready are
never attempted: the workbench and `sembench families` say what is missing instead (a run stops at the
first missing tool all the same, core.runner).

Looking is cheap (PATH and file lookups, no process, no pydantic: `sembench families` stays light), so it
is done whenever it is shown; `doctor` also asks each tool its version and tries the sandbox, which starts
processes.
"""

from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from core.install import install_command

if TYPE_CHECKING:
    from core.family import Family


@dataclass(frozen=True)
class Missing:
    """One thing a family needs that this machine lacks."""

    what: str  # an executable, or a file
    package: str  # the Debian package that provides it
    optional: bool = False  # the answers are checked without it (it adds e.g. a second, independent oracle)
    note: str = ""


@dataclass(frozen=True)
class Readiness:
    family: str
    ready: bool
    missing: list[Missing] = field(default_factory=list)
    install: str | None = None  # the command that installs everything missing, optional things included

    def summary(self) -> str:
        """One clause: `ready`, or what is missing and the command that installs it."""
        needed = [m.what for m in self.missing if not m.optional]
        optional = [m.what for m in self.missing if m.optional]
        if not self.missing:
            return "ready"
        if needed:
            text = f"not ready: {', '.join(needed)} missing"
            if optional:
                text += f" (and, optional, {', '.join(optional)})"
        else:
            text = f"ready ({', '.join(optional)} missing, optional: {self.missing[0].note or 'not needed to check answers'})"
        return f"{text}; install with: {self.install}"


def readiness(fam: Family) -> Readiness:
    missing = [Missing(what=what, package=package, optional=optional, note=note)
               for what, package, optional, note in fam.missing_requirements()]
    needed = [m for m in missing if not m.optional]
    return Readiness(family=fam.id, ready=not needed, missing=missing,
                     install=install_command([m.package for m in missing]) if missing else None)


def not_ready_message(state: Readiness) -> str:
    """Why an answer of this family cannot be checked here, and how to fix it (one line)."""
    needed = [m for m in state.missing if not m.optional]
    what = ", ".join(f"{m.what} ({m.package})" for m in needed)
    return (f"{state.family} answers cannot be checked on this machine: {what} missing; install with: "
            f"{state.install}, then reopen the workbench")


def doctor(families: list[Family]) -> dict[str, Any]:
    """Each family's readiness and each of its tools with its path and version, and whether the sandbox
    confines programs here. Starts each installed tool once (version probes, in parallel)."""
    from concurrent.futures import ThreadPoolExecutor

    tools = {tool.name: tool for fam in families for tool in fam.requires}
    with ThreadPoolExecutor(max_workers=max(1, min(8, len(tools)))) as pool:
        versions = dict(zip(tools, pool.map(lambda t: t.version() if t.available() else None, tools.values()),
                            strict=True))
    from core.tools.sandbox import problem

    rows = []
    for fam in families:
        state = readiness(fam)
        rows.append({
            "family": fam.id, "ready": state.ready, "summary": state.summary(), "install": state.install,
            "missing": [asdict(m) for m in state.missing],
            "tools": [{"tool": t.name, "executable": t.executable, "package": t.package,
                       # the program itself (gcc, not the shell that runs it and its harness)
                       "path": (shutil.which(t.name) or shutil.which(t.executable)) if t.available() else None,
                       "version": versions[t.name],
                       "optional": t.optional, "note": t.note} for t in fam.requires],
        })
    sandbox = problem(program=True)
    return {"families": rows, "sandbox": {"works": not sandbox, "problem": sandbox or None}}
