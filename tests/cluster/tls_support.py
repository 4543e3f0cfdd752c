"""Certificates for a test cluster: one CA and one certificate signed by it for every role, written with the
key readable by its owner only (as `sembench` requires of a --tls-key)."""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TlsFiles:
    ca: Path
    cert: Path
    key: Path

    def dask_flags(self) -> list[str]:
        """For `dask scheduler` / `dask worker` / `sembench worker`."""
        return ["--tls-ca-file", str(self.ca), "--tls-cert", str(self.cert), "--tls-key", str(self.key)]

    def security(self) -> object:
        from distributed.security import Security

        return Security(require_encryption=True, tls_ca_file=str(self.ca), tls_client_cert=str(self.cert),
                        tls_client_key=str(self.key))


def make_tls_files(folder: Path, name: str = "sembench-test") -> TlsFiles:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)

    def built(subject: str, key: object, issuer: str, signer: object, ca: bool) -> x509.Certificate:
        return (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
                .public_key(key.public_key()).serial_number(x509.random_serial_number())  # type: ignore[attr-defined]
                .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=2))
                .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
                .sign(signer, hashes.SHA256()))  # type: ignore[arg-type]

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = built(f"{name}-ca", ca_key, f"{name}-ca", ca_key, ca=True)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = built(name, key, f"{name}-ca", ca_key, ca=False)
    files = TlsFiles(folder / "ca.pem", folder / "cert.pem", folder / "key.pem")
    files.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption()))
    os.chmod(files.key, 0o600)
    return files
