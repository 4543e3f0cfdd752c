"""`sembench worker ADDRESS [DASK OPTIONS]`: check this machine's tools, then become a Dask worker.

A thin wrapper around `dask worker` from the project's environment: it prints what the drivers' checks
will see (the Sembench code fingerprint, each tool's version or its absence), refuses to start when a
family named with --require lacks a tool (one line naming the Debian package), and then replaces itself
with `dask worker ADDRESS --nthreads 1 ...` (options after ADDRESS are passed on)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from core.errors import UserError
from core.terminal import echo


def dask_worker_argv(address: str, extra: tuple[str, ...]) -> list[str]:
    dask = Path(sys.executable).parent / "dask"
    if not dask.exists():
        raise UserError(f"no `dask` command beside {sys.executable}: install the project (pip install -e .)")
    nthreads = [] if any(a.startswith("--nthreads") for a in extra) else ["--nthreads", "1"]
    return [str(dask), "worker", address, *nthreads, *extra]


@click.command("worker", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("address")
@click.option("--require", "required", multiple=True, metavar="FAMILY",
              help="Refuse to start unless this family's tools are installed (repeatable).")
@click.option("--insecure", is_flag=True,
              help="Join a scheduler without TLS (anyone who reaches it runs code as this worker's user).")
@click.argument("dask_options", nargs=-1, type=click.UNPROCESSED)
def worker_cmd(address: str, required: tuple[str, ...], insecure: bool, dask_options: tuple[str, ...]) -> None:
    """Check the tools, then run a Dask worker for the scheduler at ADDRESS (docs/cluster.md).

    Options after ADDRESS that are not Sembench's go to `dask worker` (--name, --nworkers, the TLS files
    --tls-ca-file, --tls-cert, --tls-key, ...); one thread per worker process unless --nthreads is given
    (the tools are the work). ADDRESS is a tls:// scheduler unless --insecure is given."""
    from core.cluster.remote import code_fingerprint, tool_versions
    from core.cluster.target import SECURE_SCHEMES
    from core.family import get_family

    if "://" not in address and ":" not in address:
        raise UserError(f"ADDRESS must be a scheduler address such as tls://host:8786, got '{address}'")
    if not address.startswith(SECURE_SCHEMES) and not insecure:
        raise UserError(f"{address}: not TLS, so whoever reaches that scheduler can run code as this worker's "
                        "user; use a tls:// scheduler (with --tls-ca-file, --tls-cert, --tls-key: docs/cluster.md), "
                        "or --insecure on a network only you can reach")
    for family_id in required:
        for tool in get_family(family_id).requires:
            tool.require()  # ToolMissing: one line naming the Debian package
    versions = tool_versions()
    tools = ", ".join(f"{name} {version or 'missing'}" for name, version in sorted(versions.items()))
    echo(f"sembench worker: code {code_fingerprint()}; tools: {tools}", err=True)
    argv = dask_worker_argv(address, dask_options)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(argv[0], argv)
