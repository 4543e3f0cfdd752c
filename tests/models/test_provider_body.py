"""A whole reply's body as the provider reads it, from a raw HTTP server on 127.0.0.1: read at once when
its length is declared, chunk by chunk (counting what aiohttp decompresses) otherwise; the size cap holds
either way."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator, Callable

import pytest

from core.models import Message, ProviderError, make_provider
from core.models.config import Endpoint
from tests.models.fakeserver import read_request

MSGS = [Message(role="user", content="hi")]
REPLY = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "x" * 5000},
                      "finish_reason": "stop"}], "model": "m"}


def raw_server(head: Callable[[bytes], bytes]) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], object]:
    """Answers every request with head(body) followed by the body (REPLY as JSON, gzipped when the head says)."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await read_request(reader)
                body = json.dumps(REPLY).encode()
                first = head(body)
                if b"gzip" in first:
                    body = gzip.compress(body)
                    first = head(body)
                writer.write(first + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    return handle


@pytest.fixture
async def serve() -> AsyncIterator[Callable[..., object]]:
    servers: list[asyncio.Server] = []
    providers = []

    async def start(head: Callable[[bytes], bytes], limit: int):  # type: ignore[no-untyped-def]
        server = await asyncio.start_server(raw_server(head), "127.0.0.1", 0)
        servers.append(server)
        port = server.sockets[0].getsockname()[1]
        endpoint = Endpoint(kind="openai", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0,
                            max_response_bytes=limit)
        provider = make_provider("openai:m", endpoint)
        providers.append(provider)
        return provider

    yield start
    for provider in providers:
        await provider.aclose()
    for server in servers:
        server.close()


def declared(body: bytes) -> bytes:
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body))


def gzipped(body: bytes) -> bytes:
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body))


async def test_a_declared_length_within_the_cap_is_read_whole(serve) -> None:
    provider = await serve(declared, 64 * 1024)
    reply = await provider.complete(MSGS)
    assert reply.text == "x" * 5000


async def test_a_compressed_body_counts_what_it_decompresses_to(serve) -> None:
    """~100 bytes on the wire, 5 KB once aiohttp has decompressed it: over a 2 KB cap, as if sent plain
    (a body is read at once only when nothing is decompressed)."""
    provider = await serve(gzipped, 2048)
    with pytest.raises(ProviderError) as info:
        await provider.complete(MSGS)
    assert info.value.kind == "malformed" and "larger than 2048" in str(info.value)


async def test_a_compressed_body_within_the_cap_is_read(serve) -> None:
    provider = await serve(gzipped, 64 * 1024)
    reply = await provider.complete(MSGS)
    assert reply.text == "x" * 5000
