"""pydantic's plugin search, without importing its loader when plugins are turned off.

pydantic looks for plugins when it builds its first model: `pydantic.plugin._loader` imports
importlib.metadata at its top and, unless `PYDANTIC_DISABLE_PLUGINS` turns them off, scans every installed
package's entry points. Sembench's console entry turns them off (`core.cli.main`; a value the user set is
kept), and then the loader's import alone was ~50 M instructions of a model run's start-up
(docs/performance.md). So `import core` registers, in the loader's place, a module whose `get_plugins()`
reads the variable when pydantic calls it: turned off, no plugins and nothing imported; otherwise it hands
over to pydantic's own loader (imported then, replacing this one), so the result is pydantic's in every
case. `get_plugins` is the one name pydantic imports from the loader (`pydantic.plugin._schema_validator`).
A process that imported the real loader before (a host program, a Dask worker) keeps it.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Iterable
from typing import Any

LOADER = "pydantic.plugin._loader"
OFF = ("__all__", "1", "true")  # the values for which pydantic's own get_plugins returns no plugins


def get_plugins() -> Iterable[Any]:
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in OFF:
        return ()
    if sys.modules.get(LOADER) is _proxy:
        del sys.modules[LOADER]
    return importlib.import_module(LOADER).get_plugins()  # type: ignore[no-any-return]


_proxy = types.ModuleType(LOADER, __doc__)
_proxy.get_plugins = get_plugins  # type: ignore[attr-defined]


def install() -> None:
    sys.modules.setdefault(LOADER, _proxy)
