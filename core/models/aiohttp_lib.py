"""`aiohttp`, imported without loading the CA bundle twice (a model run's start-up).

When it is imported, aiohttp.connector builds two default TLS contexts (verified and unverified) and
each loads the system's CA bundle: ~35 ms of CPU apiece on this machine kind, a quarter of what
aiohttp's import costs a model run before its first request (docs/performance.md). Sembench never uses
them: every pool passes its own context (core.models.pool.ssl_context, which adds certifi's bundle) or
ssl=False for plain http. So while aiohttp is imported here the loading is skipped, and it is done for
both contexts, as aiohttp would have done it, when the first https pool is made (`complete_contexts`).
Until then aiohttp's verified default trusts no authority at all: it fails closed, never open.

Only in a process with no other thread (the CLI's start): `SSLContext.set_default_verify_paths` is
replaced on the class for the import's duration, which a context built by another thread meanwhile
would see too. A process that already imported aiohttp, or has other threads (the workbench), imports
it as usual.

`aiohttp` here is imported on first use (an attribute read): a run against a local `http://` server
goes through core.models.plainhttp and never needs it (~0.1 s of a model run's start-up on this machine
kind), except to raise or catch one of its exceptions when a request fails. A provider that will use it
reads it when it is made (core.models.pool.needs_aiohttp), before the run starts its threads."""

from __future__ import annotations

import ssl
import sys
import threading
from typing import Any

_skipped: list[ssl.SSLContext] = []  # contexts built during the import, their CA store not loaded yet


def _import() -> Any:
    if "aiohttp" in sys.modules or threading.active_count() > 1:
        import aiohttp

        return aiohttp
    real = ssl.SSLContext.set_default_verify_paths

    def deferred(self: ssl.SSLContext) -> None:
        _skipped.append(self)

    ssl.SSLContext.set_default_verify_paths = deferred  # type: ignore[method-assign]
    try:
        import aiohttp
    finally:
        ssl.SSLContext.set_default_verify_paths = real  # type: ignore[method-assign]
    return aiohttp


def complete_contexts() -> None:
    """Load the CA store into the contexts aiohttp built at import (once; cheap when already done)."""
    while _skipped:
        _skipped.pop().set_default_verify_paths()


class _OnFirstUse:
    """The aiohttp module, imported by the first attribute read (then the module's own attributes)."""

    def __getattr__(self, name: str) -> Any:
        module = _import()
        globals()["aiohttp"] = module  # later `from core.models.aiohttp_lib import aiohttp` get the module
        return getattr(module, name)


aiohttp: Any = _OnFirstUse()

__all__ = ["aiohttp", "complete_contexts"]
