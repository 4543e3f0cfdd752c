"""pydantic's plugin search, without importing its loader when plugins are turned off.

pydantic looks for plugins when it builds its first model: `pydantic.plugin._loader` imports
importlib.metadata at its top and, unless `PYDANTIC_DISABLE_PLUGINS` turns them off, scans every installed
package's entry points. Sembench's console entry turns them off (`core.cli.main`; a value the user set is
kept), and then the loader's import alone was ~50 M instructions of a model run's start-up
(docs/performance.md). So `import core` puts a finder first on `sys.meta_path` that answers, when pydantic
imports its loader (and only then: nothing is imported here), with a module whose `get_plugins()` reads
the variable when pydantic calls it: turned off, no plugins and nothing imported; otherwise it steps aside
and hands over to pydantic's own loader (imported then, replacing the stand-in), so the result is
pydantic's in every case. `get_plugins` is the one name pydantic imports from the loader
(`pydantic.plugin._schema_validator`). A process that imported the real loader before keeps it.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Iterable
from importlib.machinery import ModuleSpec
from typing import Any

LOADER = "pydantic.plugin._loader"
OFF = ("__all__", "1", "true")  # the values for which pydantic's own get_plugins returns no plugins


def get_plugins() -> Iterable[Any]:
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in OFF:
        return ()
    _finder.active = False  # from now on pydantic's own loader
    module = sys.modules.get(LOADER)
    if module is not None and getattr(module, "get_plugins", None) is get_plugins:
        del sys.modules[LOADER]
    return importlib.import_module(LOADER).get_plugins()  # type: ignore[no-any-return]


class _Finder:
    """A meta path finder and loader for the one module name (no importlib.abc: its import costs more)."""

    active = True

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name != LOADER or not self.active:
            return None
        return ModuleSpec(name, self)  # type: ignore[arg-type]

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__doc__ = "pydantic's plugin loader, stood in for by core.pydantic_plugins"
        module.get_plugins = get_plugins  # type: ignore[attr-defined]


_finder = _Finder()


def install() -> None:
    if LOADER not in sys.modules and _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
