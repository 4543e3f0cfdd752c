"""Who can use a cluster Sembench starts or joins.

A `--workers` LocalCluster listens on 127.0.0.1: another user of the machine (here uid 65534, as a real
other user: the tests run as root) connects to each of its ports as a Dask client, with and without TLS
certificates of its own, and asks the workers to write a file. Nothing runs: every port speaks TLS and
wants the session's own certificate. `--cluster` refuses an address without TLS unless --insecure is
given, and a TLS address without certificates; with the cluster's certificates it works (the other tests
of tests/cluster run on TLS clusters)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cluster_support import REPO, cluster_env

OTHER_USER = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]

# Run as the other user: try every port as a Dask scheduler (plain, then TLS with a certificate of its own),
# and on success have every worker write the file named in argv[1].
ATTACK = r"""
import json, sys
from distributed import Client
from distributed.security import Security

target, ports = sys.argv[1], [int(p) for p in sys.argv[2:]]

def write(path=target):
    import os
    with open(path, "w") as handle:
        handle.write(f"uid {os.getuid()}")
    return os.getuid()

tries = []
for port in ports:
    for scheme, security in (("tcp", None), ("tls", Security.temporary())):
        try:
            with Client(f"{scheme}://127.0.0.1:{port}", timeout="5s", security=security) as client:
                tries.append([port, scheme, "ran", repr(client.run(write))])
        except Exception as exc:
            tries.append([port, scheme, "refused", type(exc).__name__])
print(json.dumps(tries))
"""


def _listening_ports() -> list[int]:
    import psutil

    me = psutil.Process()
    return sorted({c.laddr.port for p in [me, *me.children(recursive=True)] for c in p.net_connections("tcp")
                   if c.status == psutil.CONN_LISTEN and c.laddr.ip in ("127.0.0.1", "0.0.0.0", "::")})


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to another user needs root (CI runs the tests as root)")
def test_another_local_user_cannot_run_code_on_a_local_cluster(tmp_path: Path) -> None:
    from core.cluster.session import ClusterSession

    probe = subprocess.run([*OTHER_USER, sys.executable, "-c", "import distributed"], capture_output=True, text=True)
    assert probe.returncode == 0, f"uid 65534 cannot run this Python: {probe.stderr}"
    target = tmp_path / "written-by-another-user"
    os.chmod(tmp_path, 0o777)
    with ClusterSession(workers=1) as session:
        ports = _listening_ports()
        assert len(ports) >= 2, ports  # the scheduler and the worker at least
        done = subprocess.run([*OTHER_USER, sys.executable, "-c", ATTACK, str(target), *map(str, ports)],
                              capture_output=True, text=True, timeout=600, cwd="/")
        assert done.returncode == 0, done.stderr[-2000:]
        tries = json.loads(done.stdout.strip().splitlines()[-1])
        # the session still works for its own driver, over TLS
        assert session.client.scheduler.address.startswith("tls://")
        assert session.client.submit(sum, [1, 2], pure=False).result(timeout=60) == 3
    assert not target.exists(), target.read_text()
    assert tries and all(outcome == "refused" for _, _, outcome, _ in tries), tries


def _sembench(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core", "--db", str(db), *args], env=cluster_env(), cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_a_cluster_address_without_tls_is_refused_unless_insecure(tmp_path: Path) -> None:
    (tmp_path / "i.jsonl").write_text("")
    for command in (["verify", "toysum", "--instances", str(tmp_path / "i.jsonl"), "--answers",
                     str(tmp_path / "i.jsonl")], ["run", "--snapshot", "toy", "--solver", "oracle"]):
        done = _sembench(tmp_path / "log.db", *command, "--cluster", "tcp://127.0.0.1:9")
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, done.stderr
        assert "not TLS" in lines[0] and "--insecure" in lines[0] and "--tls-ca-file" in lines[0], lines
    no_certificates = _sembench(tmp_path / "log.db", "run", "--snapshot", "toy", "--solver", "oracle", "--cluster", "tls://127.0.0.1:9")
    assert no_certificates.returncode == 2 and "--tls-ca-file FILE --tls-cert FILE" in no_certificates.stderr
    worker = _sembench(tmp_path / "log.db", "worker", "tcp://127.0.0.1:9")
    assert worker.returncode == 2 and "--insecure" in worker.stderr, worker.stderr


def test_a_private_key_others_can_read_is_refused(tmp_path: Path) -> None:
    from tls_support import make_tls_files

    tls = make_tls_files(tmp_path / "tls")
    os.chmod(tls.key, 0o644)
    done = _sembench(tmp_path / "log.db", "run", "--snapshot", "toy", "--solver", "oracle", "--cluster", "tls://127.0.0.1:9",
                     "--tls-ca-file", str(tls.ca), "--tls-cert", str(tls.cert), "--tls-key", str(tls.key))
    assert done.returncode == 2 and "readable by other users (mode 0644)" in done.stderr, done.stderr
