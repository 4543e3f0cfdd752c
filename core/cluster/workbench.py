"""The workbench's slow verifications on a cluster, when a setting names one.

`SEMBENCH_CLUSTER=tls://host:8786` (or `local:N`, a LocalCluster of N workers started on first use), else
`address = "..."` in the `[cluster]` table of the config file (`SEMBENCH_CONFIG`, default
~/.config/sembench/config.toml), with `tls_ca_file`, `tls_cert`, `tls_key` there (or Dask's own TLS
settings) for a tls:// scheduler, and `insecure = true` (or `SEMBENCH_CLUSTER_INSECURE=1`) to allow one
without TLS (core.cluster.target). Only checks that cost more than a task's round trip go there, by
their family's word (core.cluster.routing: specs, typeinf, imports); the others are checked here. The
session is opened on the first such check and kept for the workbench's life; the check is the one
`sembench verify --cluster` makes (tool cache first, results recorded by this process)."""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.cluster.target import ClusterTarget
from core.errors import UserError
from core.family import Family
from core.instance import Instance

_SESSIONS: dict[ClusterTarget, Any] = {}
_LOCK = threading.Lock()


def _section(env: Mapping[str, str]) -> dict[str, Any]:
    from core.models.config import _read_config, default_config_path

    path = default_config_path(env)
    try:
        section = _read_config(Path(path), bool(env.get("SEMBENCH_CONFIG"))).get("cluster", {})
    except ValueError:  # a broken config file is reported where endpoints are read, not here
        return {}
    return section if isinstance(section, dict) else {}


def configured_address(env: Mapping[str, str] | None = None) -> str | None:
    target = configured_target(env)
    return None if target is None else (target.address or f"local:{target.workers}")


def configured_target(env: Mapping[str, str] | None = None) -> ClusterTarget | None:
    """The cluster the settings name (the environment wins over the config file), or None."""
    env = os.environ if env is None else env
    section = _section(env)
    address = env.get("SEMBENCH_CLUSTER", "").strip() or section.get("address")
    if not isinstance(address, str) or not address.strip():
        return None
    address = address.strip()
    insecure = env.get("SEMBENCH_CLUSTER_INSECURE", "").strip() not in ("", "0") or section.get("insecure") is True
    if address.startswith("local:"):
        try:
            return ClusterTarget(workers=int(address.split(":", 1)[1]))
        except ValueError:
            raise UserError(f"SEMBENCH_CLUSTER: local:N expects a number of workers, got '{address}'") from None
    files = {name: section.get(name) for name in ("tls_ca_file", "tls_cert", "tls_key")}
    return ClusterTarget(address=address, insecure=insecure,
                         **{k: str(Path(v).expanduser()) for k, v in files.items() if isinstance(v, str) and v})


def is_slow(family: Family) -> bool:
    """Whether a check of `family` costs more than a task's round trip, by its word (core.cluster.routing);
    a family that says nothing is checked here (one answer is no measure)."""
    from core.cluster.routing import ROUND_TRIP_S, declared_cost

    cost = declared_cost(family)
    return cost is not None and cost >= ROUND_TRIP_S


def _session(target: ClusterTarget) -> Any:
    from core.cluster.run import open_session

    with _LOCK:
        session = _SESSIONS.get(target)
        if session is not None and session.alive():
            return session
        session = _SESSIONS[target] = open_session(target)
        return session


def check_on_cluster(family: Family, instance: Instance, response: str) -> tuple[Any, Any] | None:
    """(Answer, Verdict) from the configured cluster for a slow family; None when no cluster is set or the
    family checks faster here."""
    target = configured_target()
    if target is None or not is_slow(family):
        return None
    from core.cluster.checks import check_all
    from core.tools.cache import current

    return check_all(_session(target), family, [(instance, response)], current())[0]


@atexit.register
def close_sessions() -> None:
    with _LOCK:
        sessions = list(_SESSIONS.values())
        _SESSIONS.clear()
    for session in sessions:
        session.close()
