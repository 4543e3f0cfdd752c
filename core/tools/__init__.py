"""External tools (compilers, verifiers, provers): declared, required, run and cached in one place.

Families declare the tools they need (`Tool`: executable, Debian package, version probe) in their own
package and list them in `Family.requires`. Every run goes through `run()`: a private temporary
directory, its own process group killed whole on timeout, memory/CPU limits, confinement by bubblewrap
for tools that read or run untrusted code (core.tools.sandbox), and the result cached by
content (tool version + inputs + options) in the log database. Long-lived helpers (a JVM compile
service, a GHCi session) are `Helper`s: restarted when they die, every request bounded.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.tools.declare import Tool

if TYPE_CHECKING:
    from core.tools.cache import ToolCache, configure, current
    from core.tools.helper import Helper, HelperError, HelperPool, HelperTimeout
    from core.tools.process import ToolResult

# Families declare their tools at import (`Tool` only); running them (the cache, helpers, processes) is
# imported on first use, so listing families and `sembench --help` do not pay for it.
_LAZY = {"ToolCache": "cache", "cache_key": "cache", "configure": "cache", "current": "cache", "Helper": "helper",
         "HelperError": "helper", "HelperPool": "helper", "HelperTimeout": "helper", "ToolResult": "process",
         "execute": "process"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


__all__ = ["Helper", "HelperError", "HelperPool", "HelperTimeout", "Tool", "ToolCache", "ToolResult",
           "configure", "current", "require", "run"]


def require(*tools: Tool) -> None:
    """Raise ToolMissing (one line naming the Debian package) for the first tool that is not installed."""
    for tool in tools:
        tool.require()


def run(
    tool: Tool,
    args: Sequence[str],
    files: Mapping[str, str | bytes] | None = None,
    *,
    timeout_s: float = 60.0,
    memory_mb: int | None = 2048,
    cpu_s: int | None = None,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    collect: Sequence[str] = (),
    cache: bool | ToolCache = True,
    cache_timeouts: bool = False,
    keep: Callable[[ToolResult], bool] | None = None,
    key_extra: object = None,
    workdir: Path | None = None,
    reads: Sequence[str] = (),
) -> ToolResult:
    """Run `tool` with `args` (the executable is resolved by `require`) on `files` in a private directory.

    With `cache` (the default) an identical earlier run (same tool version, args, files, stdin, limits,
    `key_extra`) is answered from the cache; a run that timed out is not cached unless `cache_timeouts`,
    nor a result `keep` refuses (an outcome the machine's load decided, e.g. a prover's time-out inside
    a run that finished: cached, it would answer every later run, on any machine, the same way).
    `workdir` (a directory the caller owns, e.g. holding a prebuilt library) disables the cache, since
    its contents are not part of the key. `reads`: host paths a confined run reads besides the system's
    and the tool's own `Tool.reads` (core.tools.sandbox). A run the machine failed (EnvironmentFault: see
    core.tools.process) raises, and is never cached.
    """
    from core.tools.cache import ToolCache, cache_key, current
    from core.tools.process import execute

    executable = tool.require()
    argv = [executable, *args]
    store: ToolCache | None = None
    key = ""
    if cache and workdir is None:
        store = cache if isinstance(cache, ToolCache) else current()
        options = {"timeout_s": timeout_s, "memory_mb": memory_mb, "cpu_s": cpu_s, "env": dict(env or {}),
                   "collect": list(collect), "extra": key_extra}
        key = cache_key(tool.name, tool.version(), [tool.executable, *args], dict(files or {}), stdin,
                        options)
        hit = store.get(key)
        if hit is not None:
            return hit
    result = execute(argv, files, timeout_s=timeout_s, memory_mb=memory_mb, cpu_s=cpu_s, stdin=stdin, env=env,
                     collect=collect, workdir=workdir, confine=tool.confine,  # type: ignore[arg-type]
                     reads=[*tool.reads, *reads])
    if store is not None and (cache_timeouts or not result.timed_out) and (keep is None or keep(result)):
        store.put(key, tool.name, tool.version(), result)
    return result
