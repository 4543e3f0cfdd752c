"""The workbench's slow verifications on a cluster, when a setting names one.

`SEMBENCH_CLUSTER=tcp://host:8786` (or `local:N`, a LocalCluster of N workers started on first use), else
`address = "..."` in the `[cluster]` table of the config file (`SEMBENCH_CONFIG`, default
~/.config/sembench/config.toml). Only slow families go there: those with an external tool or their own
batch verification (specs, typeinf, imports); cascade and membership check faster in-process than a task
travels. The session is opened on the first such check and kept for the workbench's life; the check is
the one `sembench verify --cluster` makes (tool cache first, results recorded by this process)."""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.errors import UserError
from core.family import Family
from core.instance import Instance

_SESSIONS: dict[str, Any] = {}
_LOCK = threading.Lock()


def configured_address(env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    if env.get("SEMBENCH_CLUSTER", "").strip():
        return env["SEMBENCH_CLUSTER"].strip()
    from core.models.config import _read_config, default_config_path

    path = default_config_path(env)
    try:
        section = _read_config(Path(path), bool(env.get("SEMBENCH_CONFIG"))).get("cluster", {})
    except ValueError:  # a broken config file is reported where endpoints are read, not here
        return None
    address = section.get("address") if isinstance(section, dict) else None
    return address.strip() if isinstance(address, str) and address.strip() else None


def is_slow(family: Family) -> bool:
    from core.runner.verifying import overrides

    # the cluster's own criterion for chunks of one tool-backed answer (cascade and membership override
    # check_many only to go faster in-process)
    return bool(family.requires) or overrides(family, "verify_many")


def _session(address: str) -> Any:
    from core.cluster.run import open_session

    with _LOCK:
        session = _SESSIONS.get(address)
        if session is not None and session.alive():
            return session
        if address.startswith("local:"):
            try:
                workers = int(address.split(":", 1)[1])
            except ValueError:
                raise UserError(f"SEMBENCH_CLUSTER: local:N expects a number of workers, got '{address}'") from None
            session = open_session(None, workers)
        else:
            session = open_session(address, None)
        _SESSIONS[address] = session
        return session


def check_on_cluster(family: Family, instance: Instance, response: str) -> tuple[Any, Any] | None:
    """(Answer, Verdict) from the configured cluster for a slow family; None when no cluster is set or the
    family checks faster here."""
    address = configured_address()
    if address is None or not is_slow(family):
        return None
    from core.cluster.checks import check_all
    from core.tools.cache import current

    return check_all(_session(address), family, [(instance, response)], current())[0]


@atexit.register
def close_sessions() -> None:
    with _LOCK:
        sessions = list(_SESSIONS.values())
        _SESSIONS.clear()
    for session in sessions:
        session.close()
