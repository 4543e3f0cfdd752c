"""The plain-HTTP transport (core.models.plainhttp) against raw HTTP servers on 127.0.0.1: which requests
take it, and the HTTP/1.1 it must get right, each case run through both transports so the replies (and
the errors) are the same as aiohttp's."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest

from core.models import Message, ProviderError, make_provider
from core.models.config import Endpoint
from core.models.plainhttp import PlainPool
from core.models.pool import TRANSPORT_ENV, ClientPool
from core.models.pool import make_pool as make
from tests.models.fakeserver import read_request

MSGS = [Message(role="user", content="hi")]
TEXT = "Réponse: 42 — ünïcödé 🙂 ok\n```python\ns = s.replace('a', 'b')\n```"  # multi-byte characters


def whole(text: str = TEXT) -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}], "model": "m"}, ensure_ascii=False).encode()


def sse(text: str = TEXT) -> bytes:
    events = [{"choices": [{"index": 0, "delta": {"content": text[i:i + 7]}}]} for i in range(0, len(text), 7)]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    out = b"".join(b"data: " + json.dumps(e, ensure_ascii=False).encode() + b"\n\n" for e in events)
    return out + b"data: [DONE]\n\n"


def chunked(data: bytes, size: int = 5, trailer: bytes = b"") -> bytes:
    """Chunked framing cut every `size` bytes (through multi-byte characters), with chunk extensions."""
    parts = [b"%x;ext=1\r\n%s\r\n" % (len(data[i:i + size]), data[i:i + size]) for i in range(0, len(data), size)]
    return b"".join(parts) + b"0\r\n" + trailer + b"\r\n"


class Raw:
    """A raw HTTP server: each request gets answer(n) (n = 0, 1, ...); None closes the connection
    without a reply. Counts connections."""

    def __init__(self, answer: Callable[[int], bytes | None], close_after: bool = False, piece: int = 0) -> None:
        self.answer = answer
        self.piece = piece  # write the reply in pieces of this many bytes, one network write each
        self.close_after = close_after
        self.requests = 0
        self.connections = 0
        self.heads: list[bytes] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await read_request(reader)
                self.heads.append(head)
                reply = self.answer(self.requests)
                self.requests += 1
                if reply is None:
                    break
                for i in range(0, len(reply), self.piece or len(reply)):
                    writer.write(reply[i:i + (self.piece or len(reply))])
                    await writer.drain()
                    if self.piece:
                        await asyncio.sleep(0.002)
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


@pytest.fixture(params=["plain", "aiohttp"])
async def serve(request, monkeypatch) -> AsyncIterator[Callable[..., Any]]:
    monkeypatch.setenv(TRANSPORT_ENV, request.param)
    servers: list[asyncio.Server] = []
    providers = []

    async def start(raw: Raw, **settings: Any):  # type: ignore[no-untyped-def]
        server = await asyncio.start_server(raw.handle, "127.0.0.1", 0)
        servers.append(server)
        port = server.sockets[0].getsockname()[1]
        endpoint = Endpoint(kind="openai", base_url=f"http://127.0.0.1:{port}/v1",
                            **{"max_retries": 0, **settings})
        provider = make_provider("openai:m", endpoint)
        providers.append(provider)
        return provider

    yield start
    for provider in providers:
        kind = PlainPool if request.param == "plain" else ClientPool
        assert provider._client is None or isinstance(provider._client, kind), "the transport asked for"
        await provider.aclose()
    for server in servers:
        server.close()


def ok(body: bytes, *headers: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n" + body


async def test_plain_http_without_a_proxy_takes_the_plain_transport(monkeypatch) -> None:
    pools: list[Any] = []

    def make_pool(endpoint: Endpoint) -> Any:
        pools.append(make(endpoint))
        return pools[-1]

    monkeypatch.setenv(TRANSPORT_ENV, "plain")
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(var, raising=False)
    local = Endpoint(kind="openai", base_url="http://127.0.0.1:8000/v1")
    replicas = Endpoint(kind="openai", base_url="http://127.0.0.1:8000/v1",
                        base_urls=["http://127.0.0.1:8000/v1", "http://10.0.0.7:8000/v1"])
    assert isinstance(make_pool(local), PlainPool)
    assert isinstance(make_pool(replicas), PlainPool)
    assert isinstance(make_pool(Endpoint(kind="openai", base_url="https://api.example.com/v1")), ClientPool)
    mixed = Endpoint(kind="openai", base_url="http://127.0.0.1:8000/v1",
                     base_urls=["http://127.0.0.1:8000/v1", "https://gpu.example.com/v1"])
    assert isinstance(make_pool(mixed), ClientPool)
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example.com:3128")
    assert isinstance(make_pool(replicas), ClientPool), "10.0.0.7 goes through the proxy"
    assert isinstance(make_pool(local), PlainPool), "loopback never does"
    monkeypatch.setenv(TRANSPORT_ENV, "aiohttp")
    assert isinstance(make_pool(local), ClientPool)
    monkeypatch.delenv(TRANSPORT_ENV)
    assert isinstance(make_pool(local), PlainPool), "the plain transport by default for a local http:// server"
    for pool in pools:
        await pool.aclose()


async def test_keep_alive_reuses_one_connection_and_replies_are_byte_exact(serve) -> None:
    body = whole()
    raw = Raw(lambda n: ok(body, b"Content-Type: application/json", b"Content-Length: %d" % len(body)))
    provider = await serve(raw)
    for _ in range(3):
        assert (await provider.complete(MSGS)).text == TEXT
    assert raw.connections == 1
    head = raw.heads[0].lower()
    assert b"\r\nhost: 127.0.0.1:" in head and b"\r\ncontent-type: application/json" in head


async def test_chunked_with_extensions_and_trailers_whole_and_streamed(serve) -> None:
    raw = Raw(lambda n: ok(chunked(whole()), b"Content-Type: application/json", b"Transfer-Encoding: chunked")
              if n == 0 else ok(chunked(sse(), 11, b"X-Trailer: 1\r\n"), b"Content-Type: text/event-stream",
                                b"Transfer-Encoding: chunked"))
    provider = await serve(raw)
    assert (await provider.complete(MSGS)).text == TEXT
    seen: list[str] = []
    reply = await provider.complete(MSGS, on_delta=lambda kind, text: seen.append(text))
    assert reply.text == TEXT and "".join(seen) == TEXT
    assert raw.connections == 1, "a chunked body read to its end leaves the connection reusable"


async def test_replies_cut_anywhere_by_the_network(serve) -> None:
    """Chunk sizes, chunk data, CRLFs, UTF-8 characters and gzip data split across reads."""
    zipped = gzip.compress(sse())
    replies = [ok(chunked(sse(), 40, b"X-T: 1\r\n"), b"Content-Type: text/event-stream", b"Transfer-Encoding: chunked"),
               ok(chunked(zipped, 30), b"Content-Type: text/event-stream", b"Transfer-Encoding: chunked",
                  b"Content-Encoding: gzip"),
               ok(chunked(whole(), 50), b"Content-Type: application/json", b"Transfer-Encoding: chunked")]
    raw = Raw(lambda n: replies[n], piece=7)
    provider = await serve(raw)
    for _ in range(2):
        seen: list[str] = []
        reply = await provider.complete(MSGS, on_delta=lambda kind, text, seen=seen: seen.append(text))
        assert reply.text == TEXT and "".join(seen) == TEXT
    assert (await provider.complete(MSGS)).text == TEXT
    assert raw.connections == 1


async def test_a_gzipped_body_and_a_body_that_ends_with_the_connection(serve) -> None:
    zipped = gzip.compress(whole())
    body = whole()
    replies = [ok(zipped, b"Content-Encoding: gzip", b"Content-Length: %d" % len(zipped)),
               ok(body, b"Connection: close"), ok(body, b"Content-Length: %d" % len(body))]
    raw = Raw(lambda n: replies[n])
    provider = await serve(raw)
    assert (await provider.complete(MSGS)).text == TEXT
    raw.close_after = True  # the second body has no length: it ends when the server closes
    assert (await provider.complete(MSGS)).text == TEXT
    raw.close_after = False
    assert (await provider.complete(MSGS)).text == TEXT  # a new connection, not the closed one
    assert raw.connections == 2


async def test_an_interim_100_continue_is_skipped(serve) -> None:
    body = whole()
    raw = Raw(lambda n: b"HTTP/1.1 100 Continue\r\n\r\n" + ok(body, b"Content-Length: %d" % len(body)))
    provider = await serve(raw)
    assert (await provider.complete(MSGS)).text == TEXT


async def test_an_idle_connection_the_server_closed_is_not_reused(serve) -> None:
    body = whole()
    raw = Raw(lambda n: ok(body, b"Content-Length: %d" % len(body)), close_after=True)  # closes, says nothing
    provider = await serve(raw)
    for _ in range(3):
        reply = await provider.complete(MSGS)
        await asyncio.sleep(0.05)  # the server's close reaches the client while the connection is idle
        assert reply.text == TEXT and reply.retries == 0
    assert raw.connections == 3


@pytest.mark.parametrize("reply", [
    b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"choices\": ",  # truncated body
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"cho",  # truncated chunked body
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  # bad chunk size
    b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope",  # not gzip
    b"SPAM\r\n\r\n",  # not HTTP
    None,  # closed without a word
])
async def test_broken_replies_are_connection_errors(serve, reply) -> None:
    raw = Raw(lambda n: reply, close_after=True)
    provider = await serve(raw)
    with pytest.raises(ProviderError) as info:
        await provider.complete(MSGS)
    assert info.value.kind == "connection"
    assert "\n" not in info.value.message


async def test_a_silent_server_is_a_read_timeout(serve) -> None:
    raw = Raw(lambda n: b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{")  # then nothing
    provider = await serve(raw, timeout_s=0.3)
    with pytest.raises(ProviderError) as info:
        await provider.complete(MSGS)
    assert info.value.kind == "timeout"


async def test_a_content_length_of_non_ascii_digits_is_a_payload_error() -> None:
    """'²' is a digit to str.isdigit() but not to int(): the reply is refused as malformed framing, not a crash."""
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: \xb2\r\n\r\n{}"
    pool = PlainPool(Endpoint(kind="openai", base_url="http://127.0.0.1:1/v1"), "test")
    server = await asyncio.start_server(lambda r, w: _answer_once(r, w, reply), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(aiohttp.ClientPayloadError, match="Content-Length"):
            async with pool.post(f"http://127.0.0.1:{port}/v1/chat/completions", b"{}", {}):
                pass
    finally:
        await pool.aclose()
        server.close()


async def _answer_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: bytes) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(reply)
    await writer.drain()
    writer.close()


LOCAL_RUN = r"""
import asyncio, json, sys
from core.models import Message, ProviderError, make_provider
from core.models.config import Endpoint

REPLY = @REPLY@

async def answer(reader, writer):
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(REPLY) + REPLY)
    await writer.drain()
    writer.close()

async def main():
    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    provider = make_provider("openai:m", Endpoint(kind="openai", base_url=f"http://127.0.0.1:{port}/v1"))
    try:
        text = (await provider.complete([Message(role="user", content="x")])).text
    except ProviderError as exc:
        text = exc.kind
    await provider.aclose()
    server.close()
    print(json.dumps({"text": text, "aiohttp": "aiohttp" in sys.modules}))

asyncio.run(main())
"""


def test_a_request_to_a_local_server_never_imports_aiohttp(monkeypatch) -> None:
    """aiohttp's import is ~0.1 s of a model run's start-up; the plain transport does without it."""
    import subprocess
    import sys

    good = json.dumps({"choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
                       "model": "m", "usage": {"prompt_tokens": 1, "completion_tokens": 1}})
    local_run = LOCAL_RUN.replace("@REPLY@", repr(good.encode()))
    for var in ("http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY", TRANSPORT_ENV):
        monkeypatch.delenv(var, raising=False)
    out = subprocess.run([sys.executable, "-c", local_run], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout) == {"text": "hi", "aiohttp": False}
    monkeypatch.setenv(TRANSPORT_ENV, "aiohttp")
    out = subprocess.run([sys.executable, "-c", local_run], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout) == {"text": "hi", "aiohttp": True}
    # a malformed reply is refused as such, still without aiohttp (parsing does no I/O)
    monkeypatch.delenv(TRANSPORT_ENV)
    broken = LOCAL_RUN.replace("@REPLY@", repr(good.encode()[:-9]))
    out = subprocess.run([sys.executable, "-c", broken], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout) == {"text": "malformed", "aiohttp": False}
