"""Where Sembench's files are: the bundled data (snapshots.db, assets/) and the user's log database.

In a checkout (and an editable install) the data sits at the repository root, next to `core/`. A regular
`pip install .` puts it under `<prefix>/share/sembench/` (pyproject's data-files), so the same code finds it
from any directory.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent
_INSTALLED = Path(sys.prefix) / "share" / "sembench"


def data_root() -> Path:
    """The folder holding `snapshots.db` and `assets/`."""
    if (_CHECKOUT / "assets").is_dir():
        return _CHECKOUT
    return _INSTALLED


DATA_ROOT = data_root()
BUNDLED_SNAPSHOTS = DATA_ROOT / "snapshots.db"
ASSETS = DATA_ROOT / "assets"


def asset(*parts: str) -> Path:
    """A file under assets/, e.g. asset("prompts", "cascade.txt")."""
    return ASSETS.joinpath(*parts)


def default_log_db() -> Path:
    """$SEMBENCH_DB, else $XDG_DATA_HOME/sembench/log.db (default ~/.local/share/sembench/log.db)."""
    if os.environ.get("SEMBENCH_DB"):
        return Path(os.environ["SEMBENCH_DB"])
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "sembench" / "log.db"


def default_config_path(env: Mapping[str, str]) -> Path:
    """The config file's path (`SEMBENCH_CONFIG`, else `$XDG_CONFIG_HOME/sembench/config.toml`). Here, not
    in core.models.config, so a process can ask whether there is one without importing pydantic."""
    if env.get("SEMBENCH_CONFIG"):
        return Path(env["SEMBENCH_CONFIG"]).expanduser()
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "sembench" / "config.toml"
