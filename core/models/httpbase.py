"""The shared HTTP machinery: one request with retries, error mapping, bounded reading, SSE/NDJSON lines.

A concrete provider supplies the path, headers, payload and the two parsers (whole body, stream);
everything that can go wrong on the wire is turned into a ProviderError here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from abc import abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from core.models import secrets
from core.models.aiohttp_lib import aiohttp  # aiohttp, without its import-time CA loading
from core.models.base import (
    ChatResponse,
    DeltaCallback,
    Message,
    Provider,
    ProviderError,
    SamplingParams,
    Usage,
)
from core.models.config import API_KEY_ENV, Endpoint, safe_url
from core.models.plainhttp import PlainPool
from core.models.pool import ClientPool, make_pool, needs_aiohttp
from core.models.replicas import ReplicaSet, replica_set
from core.models.retry import endpoint_semaphore, parse_retry_after, retry_delay
from core.models.think import ReplyAssembler

Sleep = Callable[[float], Awaitable[None]]
ERROR_BODY_LIMIT = 64 * 1024
# Request bodies a provider keeps (see HttpProvider._body), in all. A batch run goes through every
# prompt before it asks any of them again (sample-major), so the memo must hold a whole snapshot's
# prompts to help at all: 32 MB is ~15,000 cascade prompts; past it the oldest go.
BODY_MEMO_BYTES = 32 * 1024 * 1024
# Statuses that mean "try again later". 501 Not Implemented and 505 HTTP Version Not Supported say the
# server will never answer this request, so they are not retried.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504, 529})


class Failure(Exception):
    """Internal: one attempt failed. Becomes a ProviderError, or a retry when `retryable`."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after


def malformed(message: str) -> Failure:
    return Failure("malformed", message)


@dataclass
class ReplyMeta:
    """What a parser learns besides text and reasoning."""

    finish_reason: str | None = None
    model: str | None = None
    usage: Usage = field(default_factory=Usage)


class _CallbackError(Exception):
    """Wraps an exception raised by the caller's on_delta, so it is re-raised as is, not as 'malformed'."""

    def __init__(self, original: BaseException) -> None:
        self.original = original


class HttpProvider(Provider):
    kind: ClassVar[str]
    path: ClassVar[str]  # appended to the endpoint's base URL
    stream_content_types: ClassVar[tuple[str, ...]] = ("text/event-stream",)

    def __init__(
        self,
        model: str,
        endpoint: Endpoint,
        *,
        sleep: Sleep | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.model = model
        self.endpoint = endpoint
        needs_aiohttp(endpoint)
        self.base_url = endpoint.base_url.rstrip("/")
        self.name = f"{self.kind}:{model}"
        self.url = self.base_url + self.path
        self._sleep: Sleep = sleep or asyncio.sleep  # injectable: tests record delays instead of waiting
        self._rng = rng
        self._client: ClientPool | PlainPool | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._bodies: dict[tuple[Any, ...], bytes] = {}  # see _body
        self._body_bytes = 0
        self._wire_cache: tuple[asyncio.AbstractEventLoop, ReplicaSet, dict[str, Any]] | None = None

    # -- what a protocol defines ---------------------------------------------------------------
    @abstractmethod
    def build_payload(self, messages: list[Message], params: SamplingParams, stream: bool) -> dict[str, Any]:
        """The exact JSON body sent."""

    def headers(self) -> dict[str, str]:
        return {}

    @abstractmethod
    def parse_body(self, data: Any, asm: ReplyAssembler) -> ReplyMeta:
        """A whole (non-streamed) JSON reply."""

    @abstractmethod
    async def parse_stream(self, lines: AsyncIterator[list[str]], asm: ReplyAssembler) -> ReplyMeta:
        """A streamed reply, its lines a list per network read (`sse_events` makes events of them)."""

    def missing_key_message(self) -> str | None:
        """A reason to fail before sending (a hosted API with no key), or None."""
        return None

    # -- the request -----------------------------------------------------------------------------
    async def complete(
        self,
        request_messages: list[Message],
        params: SamplingParams | None = None,
        on_delta: DeltaCallback | None = None,
    ) -> ChatResponse:
        params = params or SamplingParams()
        start = time.perf_counter()
        retries = 0
        if self._closed:
            raise ProviderError("cancelled", f"{self.name}: provider is closed")
        reason = self.missing_key_message()
        if reason:
            raise ProviderError("auth", reason)
        stream = on_delta is not None
        body = self._body(request_messages, params, stream)
        ep = self.endpoint
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ep.request_deadline_s
        replicas, wires = self._wires(loop)
        while True:
            streamed = [False]
            replica = replicas.pick(loop.time())
            semaphore, url = wires[replica.base_url]
            try:
                async with asyncio.timeout_at(deadline):
                    replica.in_flight += 1  # as replicas.holding(replica), without a generator per request
                    try:
                        async with semaphore:
                            text, reasoning, meta = await self._attempt(url, body, stream, on_delta, streamed)
                    finally:
                        replica.in_flight -= 1
                break
            except _CallbackError as exc:
                raise exc.original from None
            except TimeoutError:
                raise ProviderError(
                    "timeout",
                    f"no complete reply from {safe_url(url)} within {ep.request_deadline_s:g} s "
                    "(request_deadline_s)",
                    retries=retries,
                ) from None
            except Failure as exc:
                if self._closed:
                    raise ProviderError(
                        "cancelled", f"{self.name}: provider closed during the request", retries=retries
                    ) from None
                now = loop.time()
                other_replica = False
                if exc.kind == "connection" and len(replicas) > 1:
                    replicas.take_out(replica, now)  # for a while; the next try goes to another one
                    other_replica = replicas.any_up(now, replica)
                give_up = not exc.retryable or retries >= ep.max_retries
                delay = 0.0 if give_up or other_replica else retry_delay(
                    retries,
                    exc.retry_after,
                    base_s=ep.backoff_base_s,
                    cap_s=ep.backoff_cap_s,
                    retry_after_cap_s=ep.retry_after_cap_s,
                    rng=self._rng,
                )
                if give_up or loop.time() + delay >= deadline:  # no retry that could only end past it
                    note = f" (after {retries} retries)" if retries else ""
                    raise ProviderError(
                        exc.kind, self._redact(exc.message) + note, status=exc.status, retries=retries
                    ) from None
                retries += 1
                if streamed[0] and on_delta is not None:
                    on_delta("reset", "")  # the viewer showed a partial reply that is now void
                await self._sleep(delay)
        # Text and reasoning go to extraction exactly as sent; a key echoed in them is kept out of the
        # cache and the database where they are stored (core.models.secrets). Metadata is redacted here.
        return ChatResponse(
            text=text,
            reasoning=reasoning,
            usage=meta.usage,
            finish_reason=self._redact(meta.finish_reason) if meta.finish_reason else meta.finish_reason,
            model=self._redact(meta.model) if meta.model else meta.model,
            latency_s=time.perf_counter() - start,
            retries=retries,
            replica=safe_url(replica.base_url) if len(replicas) > 1 else None,
        )

    def _body(self, messages: list[Message], params: SamplingParams, stream: bool) -> bytes:
        """The exact bytes sent: the protocol's payload, compact, UTF-8 as is, no NaN (what servers
        parse), encoded once whatever the retries.

        A batch run sends each prompt once per sample, so the same body again and again: encoding a
        ~2 KB prompt took ~25-30 µs of the event loop's time per request (a tenth of the provider's
        own CPU). Bodies are kept (BODY_MEMO_BYTES in all), keyed by everything the payload is made
        of: the messages, the stream flag and every sampling parameter by its exact value (a float by
        its bits, so 0.0 and -0.0, or 1 and 1.0, are never taken for one another)."""
        key = (stream, tuple((m.role, m.content) for m in messages),
               tuple(_exact(v) for v in params.__dict__.values()))
        memo = self._bodies
        body = memo.get(key)
        if body is None:
            payload = self.build_payload(list(messages), params, stream)
            body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
            self._body_bytes += len(body)
            while memo and self._body_bytes > BODY_MEMO_BYTES:
                self._body_bytes -= len(memo.pop(next(iter(memo))))  # the oldest
            if self._body_bytes <= BODY_MEMO_BYTES:
                memo[key] = body
            else:
                self._body_bytes -= len(body)
        return body

    def _wires(self, loop: asyncio.AbstractEventLoop) -> tuple[ReplicaSet, dict[str, tuple[asyncio.Semaphore, str]]]:
        """The endpoint's replicas and, per replica, its concurrency limit and request URL in this loop.
        The registries are shared by every provider of the endpoint in the loop (core.models.replicas,
        core.models.retry); looked up once per loop rather than twice per request."""
        cached = self._wire_cache
        if cached is not None and cached[0] is loop:
            return cached[1], cached[2]
        replicas = replica_set(self.endpoint.replicas)
        wires = {r.base_url: (endpoint_semaphore(r.base_url, self.endpoint.max_concurrency), r.base_url + self.path)
                 for r in replicas.replicas}
        self._wire_cache = (loop, replicas, wires)
        return replicas, wires

    async def _attempt(
        self, url: str, body: bytes, stream: bool, on_delta: DeltaCallback | None, streamed: list[bool]
    ) -> tuple[str, str | None, ReplyMeta]:
        def deliver(kind: str, chunk: str) -> None:
            streamed[0] = True
            try:
                on_delta(kind, chunk)  # type: ignore[misc]
            except Exception as exc:
                raise _CallbackError(exc) from exc

        asm = ReplyAssembler(deliver if on_delta is not None else None)
        headers = self._request_headers()
        if headers is None:
            # A header value we cannot send: with our headers that is a key with a control or
            # non-ASCII character. Nothing is sent, and nothing of the key is quoted.
            env = API_KEY_ENV.get(self.kind)
            raise Failure(
                "auth",
                f"the API key for {self.kind} cannot be sent in an HTTP header (control or non-ASCII "
                f"character){f'; check {env}' if env else ''}",
            )
        client = self._get_client()
        try:
            async with client.post(url, body, headers) as resp:
                if resp.status >= 400:
                    raise await self._status_failure(resp, url)
                ctype = resp.headers.get("content-type", "").lower()
                if stream and any(t in ctype for t in self.stream_content_types):
                    lines = self._lines(resp)
                    meta = await self._guard(self.parse_stream(lines, asm))
                    if resp.content.is_eof():
                        await lines.aclose()  # the whole body is in: nothing left to wait for
                    else:
                        await _drain(lines)
                else:
                    # Non-streaming, or a server that ignored "stream": true and sent one JSON body.
                    data = await self._read_body(resp, self.endpoint.max_response_bytes)
                    try:  # as _guard, without a coroutine per reply: parsing a whole body never waits
                        meta = self._parse_whole(data, asm)
                    except (Failure, _CallbackError):  # (parsing does no I/O: no aiohttp error to let by,
                        raise  # and naming one would import aiohttp for every malformed local reply)
                    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
                        raise malformed(f"unexpected response shape: {type(exc).__name__}: {exc}") from None
        except (Failure, _CallbackError):
            raise
        except (aiohttp.ServerTimeoutError, TimeoutError) as exc:  # read/connect timeout (the deadline
            # surfaces as a cancellation in here, not as TimeoutError)
            raise Failure(
                "timeout", f"{type(exc).__name__} talking to {safe_url(url)}", retryable=True
            ) from None
        except aiohttp.InvalidURL as exc:
            raise Failure("connection", f"invalid URL {exc} ({safe_url(url)})") from None
        except (aiohttp.ClientError, OSError) as exc:
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise Failure("connection", f"{detail} ({safe_url(url)})", retryable=True) from None
        except RuntimeError as exc:
            # aiohttp refuses to use a session closed by aclose() during the request.
            kind = "cancelled" if self._closed else "connection"
            raise Failure(kind, f"{' '.join(str(exc).split())} ({safe_url(url)})") from None
        text, reasoning = asm.finish()
        return text, reasoning, meta

    def _parse_whole(self, body: bytes, asm: ReplyAssembler) -> ReplyMeta:
        try:
            data = json.loads(body)
        except ValueError:
            raise malformed(f"response is not valid JSON: {_snippet(body)}") from None
        if not isinstance(data, dict):
            raise malformed(f"response is not a JSON object: {_snippet(body)}")
        return self.parse_body(data, asm)

    async def _guard(self, parsing: Awaitable[ReplyMeta]) -> ReplyMeta:
        """A reply with the wrong shape is a 'malformed' error, whatever the parser tripped on."""
        try:
            return await parsing
        except (Failure, _CallbackError, aiohttp.ClientError):
            raise
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            raise malformed(f"unexpected response shape: {type(exc).__name__}: {exc}") from None

    async def _status_failure(self, resp: aiohttp.ClientResponse, url: str | None = None) -> Failure:
        status = resp.status
        try:
            body = await self._read_body(resp, ERROR_BODY_LIMIT, truncate=True)
        except (aiohttp.ClientError, OSError, Failure):
            body = b""
        where = safe_url(url or self.url)
        if status in (401, 403):
            # Never echo the body: servers like to quote the key they rejected.
            env = API_KEY_ENV.get(self.kind)
            hint = f"; check {env}" if env else ""
            return Failure("auth", f"HTTP {status} from {where}: authentication failed{hint}", status=status)
        detail = _error_detail(body)
        message = f"HTTP {status} from {where}" + (f": {detail}" if detail else "")
        if status == 429 or status >= 500:
            return Failure(
                "http_429" if status == 429 else "http_5xx",
                message,
                status=status,
                retryable=status in RETRY_STATUSES,
                retry_after=parse_retry_after(resp.headers),
            )
        return Failure("http_4xx", message, status=status)

    # -- reading ---------------------------------------------------------------------------------
    @staticmethod
    async def _read_body(resp: aiohttp.ClientResponse, limit: int, truncate: bool = False) -> bytes:
        headers = resp.headers
        length = resp.content_length
        if (length is not None and length <= limit and "Transfer-Encoding" not in headers
                and "Content-Encoding" not in headers):
            # The server said how long the body is, aiohttp reads no more than that, and nothing is
            # decompressed (which could make it larger): read at once rather than chunk by chunk through
            # an async iterator (a step of it per network read).
            return await resp.read()
        chunks: list[bytes] = []
        size = 0
        async for chunk in resp.content.iter_any():
            size += len(chunk)
            if size > limit:
                if truncate:
                    chunks.append(chunk[: limit - (size - len(chunk))])
                    break
                raise malformed(f"response larger than {limit} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    async def _lines(self, resp: aiohttp.ClientResponse) -> AsyncGenerator[list[str], None]:
        """The lines of a streamed body, as a list per network read that completed any; strict UTF-8,
        with the same size cap as a whole body.

        Split as bytes, then the complete lines of a read decoded at once: a newline byte is never part
        of a multi-byte UTF-8 character, so no character is cut, and no incremental decoder runs per
        chunk. A list per read, not a line at a time: each step of an async generator chain costs about
        a microsecond, and a server event is two lines."""
        limit = self.endpoint.max_response_bytes
        size = 0
        pending = b""
        async for chunk in resp.content.iter_any():
            size += len(chunk)
            if size > limit:
                raise malformed(f"streamed response larger than {limit} bytes")
            if b"\n" not in chunk:
                pending += chunk
                continue
            complete, _, pending = (pending + chunk).rpartition(b"\n")
            yield _split_lines(_utf8(complete))
        if pending:
            yield _split_lines(_utf8(pending))

    # -- plumbing ----------------------------------------------------------------------------------
    def _request_headers(self) -> dict[str, str] | None:
        """The protocol's headers plus the content type; None when a value cannot be sent (a control
        or non-ASCII character would be refused by the HTTP layer, or worse, split the header).
        Built once: they depend only on the endpoint, which is frozen."""
        cached = self.__dict__.get("_headers_cache", False)
        if cached is not False:
            return cached  # type: ignore[no-any-return]
        headers: dict[str, str] | None = {"Content-Type": "application/json", **self.headers()}
        if any(not v.isascii() or not v.isprintable() for v in headers.values()):  # type: ignore[union-attr]
            headers = None
        self.__dict__["_headers_cache"] = headers
        return headers

    def _get_client(self) -> ClientPool | PlainPool:
        # aiohttp sessions are tied to the loop that created them; a provider reused from another
        # loop (CLI, then TUI) gets a fresh one rather than a session bound to a dead loop.
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop or self._client.closed:
            self._client = make_pool(self.endpoint)
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        self._closed = True
        client, self._client = self._client, None
        if client is not None and self._client_loop is asyncio.get_running_loop():
            await client.aclose()

    def _redact(self, text: str) -> str:
        return redact(text, self.endpoint.key())


async def _drain(lines: AsyncIterator[list[str]], timeout_s: float = 2.0) -> None:
    """Read what follows the end-of-reply event (usually just the last chunk's terminator).

    A response left half-read makes aiohttp close its connection instead of returning it to the pool,
    so every streamed request would pay for a new connection. A server that keeps talking after the
    reply is done is not waited for long.
    """
    with contextlib.suppress(Failure, aiohttp.ClientError, OSError, TimeoutError):
        async with asyncio.timeout(timeout_s):
            async for _ in lines:
                pass


def _exact(value: Any) -> Any:
    """A sampling parameter as a memo key that two values share only when they are sent alike."""
    kind = type(value)
    if kind is float:
        return (float, value.hex())
    if kind is list:
        return (list, tuple(_exact(v) for v in value))
    return (kind, value)


def _utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise malformed("streamed response is not valid UTF-8") from None


def _split_lines(text: str) -> list[str]:
    """Lines ended by LF or CRLF (a lone CR does not end a line, as before)."""
    lines = text.split("\n")
    if "\r" in text:
        return [line.removesuffix("\r") for line in lines]
    return lines


def redact(text: str, key: str | None) -> str:
    """Remove the key (when it is a real-looking one), any 12-character piece of it, and every other
    secret this process knows, from text (core.models.secrets)."""
    return secrets.redact(secrets.redact(text, [key] if key else []))


def _snippet(body: bytes, limit: int = 120) -> str:
    text = body[:limit].decode("utf-8", errors="replace")
    text = " ".join(text.split())
    return repr(text + ("..." if len(body) > limit else ""))


def _error_detail(body: bytes) -> str:
    """The server's own error message, if it has one, on one line and short."""
    if not body:
        return ""
    try:
        data = json.loads(body)
    except ValueError:
        return " ".join(body[:300].decode("utf-8", errors="replace").split())
    detail: Any = data
    if isinstance(data, dict):
        detail = data.get("error", data.get("message", data.get("detail", data)))
        if isinstance(detail, dict):
            detail = detail.get("message", detail)
    text = detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)
    text = " ".join(text.split())
    return text[:300] + ("..." if len(text) > 300 else "")


# -- small parsing helpers shared by the protocols -------------------------------------------------
def opt_str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise malformed(f"field '{key}' is {type(value).__name__}, expected a string")
    return value


def opt_int(obj: Any, key: str) -> int | None:
    """Token counts: tolerated when absent or odd (usage is nice to have, not a reason to fail)."""
    if not isinstance(obj, dict):
        return None
    value = obj.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def need_dict(obj: Any, what: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise malformed(f"{what} missing or not an object")
    return obj


async def sse_events(batches: AsyncIterator[list[str]]) -> AsyncIterator[list[tuple[str | None, str]]]:
    """Server-sent events as (event name, data), per the WHATWG event-stream format: a list of the
    events each batch of lines completed (none when it completed none)."""
    event: str | None = None
    data: list[str] = []
    for_batch: list[tuple[str | None, str]] = []
    async for lines in batches:
        for line in lines:
            if line == "":
                if data:
                    for_batch.append((event, "\n".join(data)))
                event, data = None, []
                continue
            if line.startswith(":"):
                continue  # comment / keep-alive
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
        if for_batch:
            yield for_batch
            for_batch = []
    if data:
        yield [(event, "\n".join(data))]


def parse_json_event(data: str) -> dict[str, Any]:
    try:
        obj = json.loads(data)
    except ValueError:
        raise malformed(f"stream event is not valid JSON: {_snippet(data.encode())}") from None
    if not isinstance(obj, dict):
        raise malformed(f"stream event is not a JSON object: {_snippet(data.encode())}")
    return obj
