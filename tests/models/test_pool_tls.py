"""An endpoint whose replicas mix http and https verifies the https ones' certificates, whichever replica
is listed first (the pool once decided TLS from the first replica alone: an https replica after an http
one was spoken to without any check). Against a real TLS server on 127.0.0.1 with a self-signed
certificate, which a verifying client must refuse."""

from __future__ import annotations

import asyncio
import http.server
import shutil
import ssl
import subprocess
import threading
from pathlib import Path

import aiohttp
import pytest

from core.models.config import Endpoint
from core.models.pool import ClientPool


class _Ok(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the http.server hook's name
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b"{}"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def tls_server(tmp_path: Path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl not found")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


async def _post(endpoint: Endpoint, url: str) -> int:
    pool = ClientPool(endpoint)
    try:
        async with pool.post(url + "/chat/completions", b"{}", {"Content-Type": "application/json"}) as response:
            return response.status
    finally:
        await pool.aclose()


@pytest.mark.parametrize("first", ["http", "https"])
def test_an_https_replica_is_verified_wherever_it_is_listed(tls_server: str, first: str) -> None:
    plain = "http://127.0.0.1:9/v1"  # never contacted
    urls = (plain, tls_server) if first == "http" else (tls_server, plain)
    endpoint = Endpoint(kind="openai", base_url=urls[0], base_urls=urls)
    with pytest.raises(aiohttp.ClientConnectorCertificateError):
        asyncio.run(_post(endpoint, tls_server))


def test_the_server_answers_a_client_that_does_not_verify(tls_server: str) -> None:
    """The refusal above is the certificate's, not a dead server's."""
    async def post() -> int:
        async with aiohttp.ClientSession() as session, session.post(tls_server + "/chat/completions", data=b"{}",
                                                                    ssl=False) as response:
            return response.status

    assert asyncio.run(post()) == 200


def test_each_replica_goes_through_its_own_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A replica on loopback is reached directly, one on another host through the environment's proxy,
    whichever is listed first (the pool once took the first replica's for all)."""
    monkeypatch.setenv("http_proxy", "http://proxy.internal:3128")
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    local, remote = "http://127.0.0.1:8000/v1", "http://models.internal:8000/v1"

    async def proxies(urls: tuple[str, ...]) -> list[str | None]:
        pool = ClientPool(Endpoint(kind="openai", base_url=urls[0], base_urls=urls))
        try:
            return [pool.proxy_for(u + "/chat/completions") for u in (local, remote)]
        finally:
            await pool.aclose()

    assert asyncio.run(proxies((local, remote))) == [None, "http://proxy.internal:3128"]
    assert asyncio.run(proxies((remote, local))) == [None, "http://proxy.internal:3128"]
