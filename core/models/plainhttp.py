"""A small HTTP/1.1 client for plain `http://` endpoints without a proxy (local vLLM, Ollama, llama.cpp).

Why: a model run against a fast local server is CPU-bound on the event loop's thread, and aiohttp's
request machinery (request and response objects, the connector, a task per request writing the body,
timers, tracing hooks) costs ~0.35 ms of CPU per request on this VM where a hand-written asyncio client
costs ~0.11 ms (docs/performance.md, "A model run's request phase"). This is that hand-written client,
made complete enough for what the providers meet: keep-alive connection reuse, bodies by Content-Length,
chunked or until the connection closes, gzip/deflate bodies (decompressed size counted by the caller's
cap), a connect timeout and a read timeout that restarts with every read. aiohttp stays for `https://`,
proxies, and when `SEMBENCH_TRANSPORT=aiohttp` asks for it (core.models.pool.make_pool).

Failures are raised as aiohttp's own exceptions (ClientPayloadError, ServerDisconnectedError,
ClientResponseError) or OSError / TimeoutError, so the provider maps them exactly as it maps aiohttp's.
The response offers the part of aiohttp.ClientResponse the provider uses: status, headers,
content_length, read(), content.iter_any(), content.is_eof().
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from multidict import CIMultiDict, CIMultiDictProxy

from core.models.aiohttp_lib import aiohttp  # its exceptions, imported when one is first raised
from core.models.config import Endpoint

HEAD_LIMIT = 64 * 1024  # a response's status line and headers, at most (aiohttp's own limit is 8 KB a line)
READ_SIZE = 64 * 1024


class _Conn:
    __slots__ = ("reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    def usable(self) -> bool:
        # A server that closed an idle connection has already fed EOF to its reader; bytes waiting on an
        # idle connection mean it is out of step. Either way it is not reused.
        return not (self.writer.is_closing() or self.reader.at_eof() or self.reader._buffer)  # type: ignore[attr-defined]

    def close(self) -> None:
        self.writer.close()


class PlainPool:
    """Keep-alive connections per host, created in (and bound to) the running loop. The number in use
    is bounded by the provider's per-replica semaphores, so there is no limit here."""

    user_agent: str = ""

    def __init__(self, endpoint: Endpoint, user_agent: str) -> None:
        self.connect_timeout = endpoint.connect_timeout_s
        self.read_timeout = endpoint.timeout_s
        self.closed = False
        self._idle: dict[tuple[str, int], list[_Conn]] = {}
        self._open: set[_Conn] = set()
        self._targets: dict[str, tuple[str, int, bytes]] = {}
        self._ua = user_agent

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> _Exchange:
        """`async with pool.post(...) as response`."""
        if self.closed:
            raise RuntimeError("Session is closed")
        target = self._targets.get(url)
        if target is None:
            target = self._targets[url] = self._target(url)
        return _Exchange(self, target, body, headers)

    def _target(self, url: str) -> tuple[str, int, bytes]:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise aiohttp.InvalidURL(url)
        host = parts.hostname
        port = parts.port or 80
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host_header = f"[{host}]" if ":" in host else host
        if parts.port is not None:
            host_header += f":{port}"
        head = (f"POST {path} HTTP/1.1\r\nHost: {host_header}\r\nUser-Agent: {self._ua}\r\nAccept: */*\r\n"
                "Accept-Encoding: gzip, deflate\r\n")
        return host, port, head.encode("ascii")

    async def _acquire(self, host: str, port: int) -> _Conn:
        idle = self._idle.get((host, port))
        while idle:
            conn = idle.pop()
            if conn.usable():
                return conn
            self._discard(conn)
        async with asyncio.timeout(self.connect_timeout):
            reader, writer = await asyncio.open_connection(host, port, limit=HEAD_LIMIT)
        conn = _Conn(reader, writer)
        self._open.add(conn)
        if self.closed:  # closed while connecting
            self._discard(conn)
            raise RuntimeError("Session is closed")
        return conn

    def _release(self, key: tuple[str, int], conn: _Conn) -> None:
        if self.closed or not conn.usable():
            self._discard(conn)
        else:
            self._idle.setdefault(key, []).append(conn)

    def _discard(self, conn: _Conn) -> None:
        self._open.discard(conn)
        conn.close()

    async def aclose(self) -> None:
        """Close every connection, the ones in use too (their requests fail, as with aiohttp)."""
        self.closed = True
        self._idle.clear()
        conns, self._open = self._open, set()
        for conn in conns:
            conn.close()
        await asyncio.sleep(0)  # let the transports run their connection_lost


class _Exchange:
    """One request and its response, as an async context manager."""

    __slots__ = ("pool", "target", "body", "headers", "conn", "resp")

    def __init__(self, pool: PlainPool, target: tuple[str, int, bytes], body: bytes, headers: dict[str, str]) -> None:
        self.pool = pool
        self.target = target
        self.body = body
        self.headers = headers
        self.conn: _Conn | None = None
        self.resp: PlainResponse | None = None

    async def __aenter__(self) -> PlainResponse:
        pool = self.pool
        host, port, head = self.target
        conn = self.conn = await pool._acquire(host, port)
        extra = "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
        body = self.body
        writer = conn.writer
        writer.write(b"".join((head, extra.encode("latin-1"), b"Content-Length: %d\r\n\r\n" % len(body), body)))
        async with asyncio.timeout(pool.read_timeout):
            if writer.transport.get_write_buffer_size() > READ_SIZE:
                await writer.drain()
            resp = self.resp = await _read_head(conn.reader, pool.read_timeout)
        return resp

    async def __aexit__(self, *exc: Any) -> None:
        conn, self.conn = self.conn, None
        if conn is None:
            return
        resp = self.resp
        if exc[0] is None and resp is not None and resp._done and resp._keep_alive:
            self.pool._release((self.target[0], self.target[1]), conn)
        else:
            self.pool._discard(conn)


async def _read_head(reader: asyncio.StreamReader, read_timeout: float) -> PlainResponse:
    while True:
        try:
            raw = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if exc.partial:
                raise aiohttp.ClientPayloadError("connection closed in the response headers") from None
            raise aiohttp.ServerDisconnectedError() from None
        except asyncio.LimitOverrunError:
            raise aiohttp.ClientPayloadError(f"response headers larger than {HEAD_LIMIT} bytes") from None
        lines = raw[:-4].decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or not code.isdigit() or rest[3:4] not in ("", " "):
            raise aiohttp.ClientPayloadError(f"bad status line {lines[0][:80]!r}")
        status = int(code)
        headers: CIMultiDict[str] = CIMultiDict()
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep or not name or name != name.strip():
                raise aiohttp.ClientPayloadError(f"bad header line {line[:80]!r}")
            headers.add(name, value.strip(" \t"))
        if 100 <= status < 200 and status != 101:
            continue  # an interim response (100 Continue): the real one follows
        return PlainResponse(reader, status, version, headers, read_timeout)


class PlainResponse:
    """The parts of aiohttp.ClientResponse the providers use; `content` is the response itself."""

    def __init__(self, reader: asyncio.StreamReader, status: int, version: str,
                 headers: CIMultiDict[str], read_timeout: float) -> None:
        self.status = status
        self.headers = CIMultiDictProxy(headers)
        self.content = self
        self._reader = reader
        self._read_timeout = read_timeout
        connection = headers.get("Connection", "").lower()
        self._keep_alive = version == "HTTP/1.1" and "close" not in connection
        self._chunked = "chunked" in headers.get("Transfer-Encoding", "").lower()
        self.content_length: int | None = None
        self._remaining = -1  # bytes of a declared length still to read; -1: chunked or until closed
        if not self._chunked:
            length = headers.get("Content-Length")
            if length is not None:
                if not (length.isascii() and length.isdigit()):  # str.isdigit() also takes "²", int() does not
                    raise aiohttp.ClientPayloadError(f"bad Content-Length {length[:40]!r}")
                self.content_length = self._remaining = int(length)
            elif status in (204, 304):
                self._remaining = 0
            else:
                self._keep_alive = False  # the body ends when the connection does
        self._done = self._remaining == 0
        self._buf = bytearray()  # chunked framing not parsed yet
        self._state = _SIZE
        self._left = 0
        encoding = headers.get("Content-Encoding", "").strip().lower()
        self._decoder: Any = None
        if encoding in ("gzip", "x-gzip", "deflate"):
            self._decoder = zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib, by the header
        elif encoding not in ("", "identity"):
            raise aiohttp.ClientPayloadError(f"unsupported Content-Encoding {encoding[:40]!r}")

    def is_eof(self) -> bool:
        return self._done

    async def read(self) -> bytes:
        """The whole body (the caller reads at once only a declared length under its cap)."""
        remaining = self._remaining
        if remaining >= 0 and self._decoder is None:
            reader = self._reader
            try:
                if len(reader._buffer) >= remaining:  # type: ignore[attr-defined]
                    # came with the headers, as a small reply does: nothing to wait for, so no timer
                    # (one asyncio.timeout is ~5% of a request's CPU in a local run)
                    data = await reader.readexactly(remaining)
                else:
                    async with asyncio.timeout(self._read_timeout):
                        data = await reader.readexactly(remaining)
            except asyncio.IncompleteReadError as exc:
                raise aiohttp.ClientPayloadError(
                    f"Response payload is not completed: {remaining - len(exc.partial)} of "
                    f"{self.content_length} bytes missing") from None
            self._remaining = 0
            self._done = True
            return data
        return b"".join([chunk async for chunk in self.iter_any()])

    async def iter_any(self) -> AsyncIterator[bytes]:
        """The body as it arrives, decoded (chunked framing, compression). The read timeout covers each
        read, not the time the caller spends between them."""
        decoder = self._decoder
        read_timeout = self._read_timeout
        while not self._done:
            async with asyncio.timeout(read_timeout):
                data = await self._next_raw()
            if decoder is not None:
                try:
                    data = decoder.decompress(data)
                    if self._done:
                        data += decoder.flush()
                except zlib.error as exc:
                    raise aiohttp.ClientPayloadError(f"cannot decompress the body: {exc}") from None
                if self._done and not decoder.eof:
                    raise aiohttp.ClientPayloadError("compressed body ends early")
            if data:
                yield data

    async def _next_raw(self) -> bytes:
        reader = self._reader
        remaining = self._remaining
        if remaining > 0:
            data = await reader.read(min(remaining, READ_SIZE))
            if not data:
                raise aiohttp.ClientPayloadError(
                    f"Response payload is not completed: {remaining} of {self.content_length} bytes missing")
            self._remaining = remaining - len(data)
            self._done = self._remaining == 0
            return data
        if not self._chunked:  # until the connection closes
            data = await reader.read(READ_SIZE)
            if not data:
                self._done = True
            return data
        # Chunked: the framing is parsed from what each network read brought, so a read that carries
        # several chunks (or a part of one) costs one step, not a readuntil and a readexactly per chunk.
        buf = self._buf
        while True:
            out = self._unchunk(buf)
            if self._done and buf:
                self._keep_alive = False  # bytes after the body: the connection is out of step
            if out or self._done:
                return out
            data = await reader.read(READ_SIZE)
            if not data:
                raise aiohttp.ClientPayloadError("Response payload is not completed: chunked body ends early")
            buf += data

    def _unchunk(self, buf: bytearray) -> bytes:
        """The chunk data complete in buf (consumed from it), advancing the framing's state."""
        out: list[bytes] = []
        while buf:
            state = self._state
            if state == _DATA:
                take = bytes(buf[: self._left])
                del buf[: len(take)]
                out.append(take)
                self._left -= len(take)
                if self._left == 0:
                    self._state = _CRLF
                continue
            if state == _CRLF:
                if len(buf) < 2:
                    break
                if buf[:2] != b"\r\n":
                    raise aiohttp.ClientPayloadError("chunk not ended by CRLF")
                del buf[:2]
                self._state = _SIZE
                continue
            end = buf.find(b"\r\n")
            if end < 0:
                if len(buf) > CHUNK_LINE_LIMIT:
                    raise aiohttp.ClientPayloadError("chunk header too long")
                break
            line = bytes(buf[:end])
            del buf[: end + 2]
            if state == _TRAILER:
                if not line:
                    self._done = True
                    break
                continue
            size_text = line.split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise aiohttp.ClientPayloadError(f"bad chunk size {size_text[:20]!r}") from None
            if size < 0:
                raise aiohttp.ClientPayloadError(f"bad chunk size {size_text[:20]!r}")
            if size == 0:
                self._state = _TRAILER
            else:
                self._state, self._left = _DATA, size
        return b"".join(out)


_SIZE, _DATA, _CRLF, _TRAILER = range(4)  # where a chunked body's framing is
CHUNK_LINE_LIMIT = 8 * 1024  # a chunk-size line or a trailer line, at most
