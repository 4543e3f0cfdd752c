"""`sqlite_utils`, imported without numpy and pandas (start-up).

On its first import sqlite_utils imports numpy and tries pandas, only to accept their scalars as column
values; Sembench never passes any. numpy's import was most of sqlite_utils' and a large part of every
start that opens a database (the workbench's first paint, the CLI's verbs): 0.2-0.5 s of CPU on this
machine kind (docs/performance.md). While sqlite_utils is imported both names are marked missing, so its
`try: import numpy` falls back as it does where numpy is not installed; a process that imported numpy
before (a Dask worker) is left as it is, and numpy can be imported normally afterwards."""

from __future__ import annotations

import sys

_SKIPPED = ("numpy", "pandas")

_marked = [name for name in _SKIPPED if name not in sys.modules]
for _name in _marked:
    sys.modules[_name] = None  # type: ignore[assignment]  # `import numpy` raises ImportError meanwhile
try:
    import sqlite_utils
finally:
    for _name in _marked:
        if sys.modules.get(_name, 0) is None:
            del sys.modules[_name]

__all__ = ["sqlite_utils"]
