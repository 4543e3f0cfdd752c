"""The compile service client: one long-lived JVM (`java/CompileService.java`) that compiles snippets
in memory against the library jars and answers with javac's diagnostics.

- `compile_sources(sources)`: each source in its own javac task (exact), results cached by content in
  the tool cache (log database), so verifying an answer twice compiles once.
- `compile_sources(sources, together=True)`: many sources in ONE javac task (each moved to its own
  package), for batch checks; failures can be confirmed one by one (`confirm=True`).
The service is started on first use, restarted when it dies (`core.tools.Helper`), and every request is
bounded in time; a request that hangs kills the JVM and is reported as an error, not a verdict.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Sequence

from pydantic import BaseModel, Field

from core.families.imports.javabuild import helper_classes
from core.families.imports.paths import classpath, library_jars
from core.families.imports.snippet import isolate_package
from core.families.imports.tools import JAVA, JAVAC
from core.tools import Helper, HelperError, ToolResult, cache_key, current

CHUNK = 150  # units per request in batch mode
BASE_TIMEOUT_S = 60.0
PER_UNIT_TIMEOUT_S = 0.5
# C1 only: the service warms up in a second or two and stays fast; full tiered compilation spends the
# 2 cores on C2 for little gain on short requests (tests/bench/bench_imports_compile.py).
JVM_OPTIONS = ("-Xshare:auto", "-XX:+UseSerialGC", "-Xss8m", "-Xmx1g", "-XX:TieredStopAtLevel=1")


class Diagnostic(BaseModel):
    line: int
    col: int
    code: str
    message: str


class CompileResult(BaseModel):
    ok: bool  # javac reported no error
    errors: int = 0
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    error: str | None = None  # the service itself failed (timeout, crash): nothing was decided
    cached: bool = False

    @property
    def decided(self) -> bool:
        return self.error is None

    def summary(self, limit: int = 3) -> str:
        if self.error:
            return f"compile check failed to run: {self.error}"
        if self.ok:
            return "compiles"
        shown = "; ".join(f"line {d.line}: {d.message.splitlines()[0]}" for d in self.diagnostics[:limit])
        more = f" (+{self.errors - limit} more)" if self.errors > limit else ""
        return f"{self.errors} compile error(s): {shown}{more}"


_LOCK = threading.Lock()
_SERVICE: Helper | None = None


def service() -> Helper:
    global _SERVICE
    with _LOCK:
        if _SERVICE is None:
            classes = helper_classes()
            java = JAVA.require()
            # it compiles answers: confined, reading its classes and the library jars besides the JDK
            _SERVICE = Helper([java, *JVM_OPTIONS, "-cp", str(classes), "CompileService", classpath()],
                              ready="ready", start_timeout_s=120, confine="tool",
                              reads=[*JAVA.reads, str(classes), *(str(jar) for jar in library_jars())])
            atexit.register(_SERVICE.close)
        return _SERVICE


def shutdown() -> None:
    global _SERVICE
    with _LOCK:
        if _SERVICE is not None:
            _SERVICE.close()
            _SERVICE = None


def _request(units: list[dict[str, str]], together: bool) -> list[CompileResult]:
    timeout = BASE_TIMEOUT_S + PER_UNIT_TIMEOUT_S * len(units)
    try:
        answer = service().request({"op": "compile", "together": together, "units": units}, timeout_s=timeout)
    except HelperError as exc:  # includes HelperTimeout: the JVM was killed and restarts next time
        return [CompileResult(ok=False, error=str(exc)) for _ in units]
    if not answer.get("ok"):
        return [CompileResult(ok=False, error=str(answer.get("error", "unknown service error"))) for _ in units]
    results = []
    for raw in answer.get("results", []):
        diags = [Diagnostic(line=int(d.get("line", -1)), col=int(d.get("col", -1)), code=str(d.get("code", "")),
                            message=str(d.get("message", ""))) for d in raw.get("diagnostics", [])]
        results.append(CompileResult(ok=bool(raw.get("ok")), errors=int(raw.get("errors", 0)), diagnostics=diags))
    return results


def _key(source: str) -> str:
    from core.families.imports.kb import kb_key  # hashes the jars' contents: a new jar never reuses a result

    return cache_key("javac-service", JAVAC.version(), ["CompileService", classpath(), kb_key()],
                     {"Snippet.java": source}, None, {})


def _cached(source: str) -> CompileResult | None:
    hit = current().get(_key(source))
    if hit is None:
        return None
    try:
        return CompileResult.model_validate_json(hit.stdout).model_copy(update={"cached": True})
    except ValueError:
        return None


def _store(source: str, result: CompileResult) -> None:
    if result.error is not None:
        return  # a failure of the service says nothing about the source
    current().put(_key(source), "javac-service", JAVAC.version(),
                  ToolResult(argv=["CompileService"], rc=0 if result.ok else 1, stdout=result.model_dump_json()))


def compile_sources(sources: Sequence[str], *, together: bool = False, confirm: bool = False,
                    cache: bool = True) -> list[CompileResult]:
    """Compile each source (a whole compilation unit). See the module docstring for the modes."""
    results: list[CompileResult | None] = [None] * len(sources)
    todo: list[int] = []
    for i, source in enumerate(sources):
        hit = _cached(source) if cache else None
        if hit is not None:
            results[i] = hit
        else:
            todo.append(i)
    for start in range(0, len(todo), CHUNK if together else 40):
        chunk = todo[start:start + (CHUNK if together else 40)]
        units = []
        shifts = []
        for n, i in enumerate(chunk):
            source = sources[i]
            shift = 0
            if together:
                source, shift = isolate_package(source, f"sbunit{n}")
            units.append({"id": str(i), "source": source})
            shifts.append(shift)
        answers = _request(units, together)
        if len(answers) != len(chunk):
            answers = [CompileResult(ok=False, error="the service answered the wrong number of results")] * len(chunk)
        for i, shift, result in zip(chunk, shifts, answers, strict=True):
            if shift:
                for d in result.diagnostics:
                    if d.line == 1 and d.col > shift:
                        d.col -= shift
            if together and confirm and not result.ok and result.decided:
                result = compile_sources([sources[i]], cache=cache)[0]
            elif not together and cache:
                _store(sources[i], result)
            results[i] = result
    return [r if r is not None else CompileResult(ok=False, error="not compiled") for r in results]


def ping() -> dict[str, object]:
    return service().request({"op": "ping"}, timeout_s=60)
