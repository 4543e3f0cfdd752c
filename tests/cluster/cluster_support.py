"""A real Dask scheduler and workers on 127.0.0.1, started with the `dask` commands the docs name, in
their own sessions (so a test can kill a worker or the scheduler whole, nanny included). TLS with a CA
and certificates made for the test unless `secure=False` (then `sembench` needs --insecure)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tls_support import TlsFiles, make_tls_files

REPO = Path(__file__).resolve().parents[2]
DASK = str(Path(sys.executable).parent / "dask")


def cluster_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"PYTHONPATH": str(REPO), "SEMBENCH_FAMILIES": "tests.kit.toyfamily",
                # a task that killed its worker twice is given up on (KilledWorker): the poison test's bound
                "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"}, **extra)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


_SECURITY: dict[str, Any] = {}  # scheduler address -> the Security a test's own client connects with


@dataclass
class DaskCluster:
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    tls: TlsFiles | None = None

    @property
    def flags(self) -> list[str]:
        """`sembench verify/run` options that reach this cluster."""
        if self.tls is None:
            return ["--cluster", self.address, "--insecure"]
        return ["--cluster", self.address, "--tls-ca-file", str(self.tls.ca), "--tls-cert", str(self.tls.cert),
                "--tls-key", str(self.tls.key)]

    def worker_flags(self) -> list[str]:
        """`dask worker` / `sembench worker` options that join this cluster."""
        return ["--insecure"] if self.tls is None else self.tls.dask_flags()

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    def close(self) -> None:
        for proc in [*self.workers.values(), self.scheduler]:
            if proc.poll() is None:
                self.kill(proc)


def _spawn(argv: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    handle = log.open("wb")
    return subprocess.Popen(argv, env=env, cwd=REPO, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)


def start_cluster(names: list[str], log_dir: Path, worker_env: dict[str, dict[str, str]] | None = None,
                  secure: bool = True) -> DaskCluster:
    """A scheduler and a worker per name; `worker_env` adds variables to some workers' environment."""
    port = free_port()
    tls = make_tls_files(log_dir / "tls") if secure else None
    address = f"{'tls' if tls else 'tcp'}://127.0.0.1:{port}"
    scheduler = [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
    if tls is not None:
        scheduler += ["--protocol", "tls", *tls.dask_flags()]
        _SECURITY[address] = tls.security()
    cluster = DaskCluster(address, _spawn(scheduler, log_dir / "scheduler.log", cluster_env()), tls=tls)
    for name in names:
        add_worker(cluster, name, log_dir, wait=False, **(worker_env or {}).get(name, {}))
    wait_for_workers(address, len(names))
    return cluster


def add_worker(cluster: DaskCluster, name: str, log_dir: Path, wait: bool = True, **env: str) -> None:
    tls = cluster.tls.dask_flags() if cluster.tls is not None else []
    cluster.workers[name] = _spawn([DASK, "worker", cluster.address, "--name", name, "--nthreads", "1",
                                    "--no-dashboard", "--host", "127.0.0.1", *tls], log_dir / f"{name}.log",
                                   cluster_env(**env))
    if wait:
        wait_for_workers(cluster.address, sum(1 for p in cluster.workers.values() if p.poll() is None))


def client(address: str, **kwargs: Any) -> Any:
    """A test's own Dask client of a cluster started here (with its certificates when it is TLS)."""
    from distributed import Client

    return Client(address, timeout="10s", security=_SECURITY.get(address), **kwargs)


def wait_for_workers(address: str, count: int, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with client(address) as connected:
                connected.wait_for_workers(count, timeout=max(1.0, deadline - time.monotonic()))
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def worker_busy(address: str, name: str) -> bool:
    """Whether the worker called `name` has a task assigned right now."""
    with client(address) as connected:
        info = connected.scheduler_info(n_workers=-1)["workers"]
        addresses = [a for a, w in info.items() if w.get("name") == name]
        processing = connected.processing(addresses)
        return any(processing.get(a) for a in addresses)


def worker_address(address: str, name: str) -> str:
    with client(address) as connected:
        return next(a for a, w in connected.scheduler_info(n_workers=-1)["workers"].items() if w.get("name") == name)
