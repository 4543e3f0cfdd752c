"""Where verification goes (`--cluster ADDRESS` / `--workers N`) and how the driver proves itself there.

A Dask scheduler runs whatever any client that reaches it sends, on every worker, as the user running the
worker; its workers do the same for whoever reaches them. So the connection is TLS with certificates, or
nothing unless the user says otherwise:

- `--workers N`: a LocalCluster whose scheduler, nanny and workers speak only TLS with a key and a
  certificate made for this session in memory (the key never leaves this process and its workers but
  for the moment the ssl module loads it, from a folder only this user can open); both sides must show
  that certificate, so another local user who connects to their ports gets nowhere. Their HTTP servers
  (Dask's dashboard routes) are given no routes and closed once the cluster is up.
- `--cluster tls://HOST:PORT`: the user's certificates (`--tls-ca-file`, `--tls-cert`, `--tls-key`, or
  Dask's own settings `distributed.comm.tls.ca-file` / `.client.cert` / `.client.key`), through Dask's
  `Security`; the key file must be readable by its owner only.
- `--cluster tcp://...` (any address without TLS) is refused unless `--insecure` is given: a network
  only you can reach, at your own risk.

No Dask here: the CLI's option parsing imports this module."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any

import click

from core.errors import UserError

SECURE_SCHEMES = ("tls://", "wss://")


@dataclass(frozen=True)
class ClusterTarget:
    address: str | None = None
    workers: int | None = None
    insecure: bool = False
    tls_ca_file: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None

    @property
    def wanted(self) -> bool:
        return self.address is not None or self.workers is not None

    def check(self) -> None:
        """The one-line errors of a target that cannot be used, before anything is started or reached."""
        if self.address is not None and self.workers is not None:
            raise UserError("give either --cluster ADDRESS or --workers N, not both")
        if self.address is None:
            return
        if "://" not in self.address and ":" not in self.address:
            raise UserError(f"--cluster expects a scheduler address such as tls://host:8786, got '{self.address}'")
        if not self.address.startswith(SECURE_SCHEMES):
            if not self.insecure:
                raise UserError(
                    f"--cluster {self.address}: not TLS, so anyone who can reach that scheduler can run code on its "
                    "workers and read what they check; use a tls:// scheduler with your certificates (--tls-ca-file, "
                    "--tls-cert, --tls-key: docs/cluster.md), or --insecure on a network only you can reach")
            return
        for name in ("tls_ca_file", "tls_cert", "tls_key"):
            value = getattr(self, name)
            if value is not None and not Path(value).is_file():
                raise UserError("not a readable file", field=f"--{name.replace('_', '-')}", file=value)

    def security(self) -> Any:
        """Dask's Security for a tls:// scheduler: the given files, else Dask's own TLS settings."""
        import dask
        from distributed.security import Security

        files = {
            "tls_ca_file": self.tls_ca_file or dask.config.get("distributed.comm.tls.ca-file", None),
            "tls_client_cert": self.tls_cert or dask.config.get("distributed.comm.tls.client.cert", None),
            "tls_client_key": self.tls_key or dask.config.get("distributed.comm.tls.client.key", None),
        }
        if not files["tls_ca_file"] or not files["tls_client_cert"]:
            raise UserError(f"--cluster {self.address}: a TLS scheduler needs the cluster's CA certificate and yours: "
                            "--tls-ca-file FILE --tls-cert FILE [--tls-key FILE] (or Dask's distributed.comm.tls "
                            "settings)")
        key = files["tls_client_key"]
        if key:
            _owner_only(Path(key))
        return Security(require_encryption=True, **{k: v for k, v in files.items() if v})


def _owner_only(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise UserError(f"cannot read ({exc.strerror or exc})", file=str(path), field="--tls-key") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise UserError(f"readable by other users (mode {stat.S_IMODE(mode):04o}): a private key must be the "
                        f"owner's alone (chmod 600 {path})", file=str(path), field="--tls-key")


def target_from(values: dict[str, Any]) -> ClusterTarget | None:
    target = ClusterTarget(**values)
    return target if target.wanted else None


def cluster_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--cluster, --workers, --insecure and the TLS files, handed to the command as one `cluster`
    argument: a ClusterTarget, or None when neither --cluster nor --workers is given."""
    names = ("address", "workers", "insecure", "tls_ca_file", "tls_cert", "tls_key")

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs["cluster"] = target_from({name: kwargs.pop(f"cluster_{name}") for name in names})
        return func(*args, **kwargs)

    path = click.Path(dir_okay=False)
    for decorator in reversed([
        click.option("--cluster", "cluster_address", default=None, metavar="ADDRESS",
                     help="Verify on a Dask cluster: its scheduler's address (tls://host:8786); docs/cluster.md."),
        click.option("--workers", "cluster_workers", type=click.IntRange(1, 256), default=None,
                     help="Verify on a local Dask cluster of N worker processes (TLS, a key made for the session)."),
        click.option("--insecure", "cluster_insecure", is_flag=True,
                     help="Allow a --cluster address without TLS (anyone reaching it runs code on its workers)."),
        click.option("--tls-ca-file", "cluster_tls_ca_file", type=path, default=None,
                     help="With --cluster tls://...: the cluster's CA certificate."),
        click.option("--tls-cert", "cluster_tls_cert", type=path, default=None,
                     help="With --cluster tls://...: your certificate."),
        click.option("--tls-key", "cluster_tls_key", type=path, default=None,
                     help="With --cluster tls://...: your private key (readable by you only)."),
    ]):
        wrapper = decorator(wrapper)
    return wrapper


def local_security() -> Any:
    """A Security for a LocalCluster: one key and self-signed certificate made now, in memory, for every role
    (an elliptic-curve key: made in a millisecond, where Dask's Security.temporary makes an RSA key in 0.1-2 s)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    from distributed.security import Security

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"sembench-local-{os.getpid()}")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    roles = {f"tls_{role}_{part}": value for role in ("client", "scheduler", "worker")
             for part, value in (("key", key_pem), ("cert", cert_pem))}
    return Security(require_encryption=True, tls_ca_file=cert_pem, **roles)
