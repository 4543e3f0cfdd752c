"""Whether checks add the costly measure of an answer beyond its verdict: specs' completeness rate (a
verified contract's mutants, each run, then proved if need be).

On by default for batch checks (`sembench verify`, `run`, `report`), as the paper computes CR for a
benchmark run; `--completeness off` (or SEMBENCH_COMPLETENESS=off in the environment, which cluster
workers and forked processes inherit) leaves it out. The workbench's check of one answer never waits for
it: the verdict is shown first and the family's `complete_verdict` adds the rest in the background.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

ENV = "SEMBENCH_COMPLETENESS"
_OLD_ENV = "SEMBENCH_SPECS_COMPLETENESS"  # the specs-only name it had first ("0" turns it off)
_OFF = ("0", "off", "false", "no")
# set for one task's thread (a cluster worker runs several drivers' chunks at once): wins over the environment
_HERE: ContextVar[bool | None] = ContextVar("sembench_completeness", default=None)


def wanted() -> bool:
    here = _HERE.get()
    if here is not None:
        return here
    value = os.environ.get(ENV)
    if value is None:
        value = os.environ.get(_OLD_ENV, "on")
    return value.strip().lower() not in _OFF


@contextmanager
def setting(on: bool | None) -> Iterator[None]:
    """Completeness on or off for this process while the block runs, threads and processes it starts
    included (None: as the environment says). For a command's process, which does nothing else."""
    if on is None:
        yield
        return
    before = os.environ.get(ENV)
    os.environ[ENV] = "on" if on else "off"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before


@contextmanager
def here(on: bool | None) -> Iterator[None]:
    """Completeness on or off for what this thread (this context) runs in the block, whatever the
    environment says (None: leave it to the environment)."""
    token = _HERE.set(on)
    try:
        yield
    finally:
        _HERE.reset(token)


def parse(value: str | None) -> bool | None:
    """The CLI's `--completeness {on,off}` (None when not given)."""
    return None if value is None else value == "on"
