"""aiohttp is imported without loading the CA bundle into its two default TLS contexts (a model
run's start-up), and they get it, as aiohttp builds them, once an https pool is made; a process with
other threads imports aiohttp as usual (core.models.aiohttp_lib). Real imports in fresh interpreters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import asyncio, json, ssl, sys, threading
if {thread}:
    stop = threading.Event()
    threading.Thread(target=stop.wait, daemon=True).start()
real = ssl.SSLContext.set_default_verify_paths
import core.models.httpbase
from core.models.aiohttp_lib import aiohttp
aiohttp.ClientSession  # imported on first use (a local http:// run never needs it)
import aiohttp.connector as connector
from core.models.config import Endpoint
from core.models.pool import ClientPool

def stats():
    return [connector._SSL_CONTEXT_VERIFIED.cert_store_stats(), connector._SSL_CONTEXT_UNVERIFIED.cert_store_stats()]

out = {{"after_import": stats(), "restored": ssl.SSLContext.set_default_verify_paths is real}}

async def pools():
    ClientPool(Endpoint(kind="openai", base_url="http://127.0.0.1:9/v1"))
    out["after_http_pool"] = stats()
    pool = ClientPool(Endpoint(kind="openai", base_url="https://127.0.0.1:9/v1"))
    out["after_https_pool"] = stats()
    await pool.aclose()

asyncio.run(pools())
loaded = ssl.create_default_context().cert_store_stats()
unverified = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
unverified.set_default_verify_paths()
out["expected"] = [loaded, unverified.cert_store_stats()]
print(json.dumps(out))
"""


def probe(thread: bool) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE.format(thread=thread)], cwd=REPO, capture_output=True,
                          text=True, check=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    return json.loads(done.stdout)


def test_the_ca_bundle_is_loaded_into_aiohttps_contexts_only_when_an_https_pool_needs_it() -> None:
    out = probe(thread=False)
    assert out["expected"][0]["x509_ca"] > 0, "this machine has a system CA store"
    assert out["restored"]
    # the import skipped the loading: the verified default trusts nobody (fails closed) ...
    assert [s["x509_ca"] for s in out["after_import"]] == [0, 0]
    assert out["after_http_pool"] == out["after_import"]  # plain http never needs it
    # ... and an https pool gives both contexts what aiohttp itself would have loaded
    assert out["after_https_pool"] == out["expected"]


def test_a_process_with_other_threads_imports_aiohttp_as_usual() -> None:
    out = probe(thread=True)
    assert out["restored"]
    assert out["after_import"] == out["expected"]
