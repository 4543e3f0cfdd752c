"""A real HTTP server on 127.0.0.1 that speaks the OpenAI, Anthropic and Ollama chat APIs, with faults.

It runs its own asyncio loop in a background thread, so it serves sync tests, async tests (any loop),
CLI tests and subprocesses alike, and handles many concurrent connections (minimal HTTP/1.1 with
keep-alive; streaming replies use chunked transfer encoding so a dropped stream is detectable).

    with FakeServer() as srv:                                 # or the `fake_server` fixture
        srv.reply = lambda req: Reply("42", reasoning="6*7")  # or a str, or (text, reasoning)
        srv.fail_next(2, Fault.http429(retry_after="1"))       # the next 2 requests get 429
        provider = make_provider("openai:m", srv.endpoint("openai"))
        ...
        srv.requests[-1].json                                  # what the client sent
        srv.max_in_flight                                      # peak concurrent requests

Routes: POST */chat/completions (openai; base URL `srv.base_url("openai")` = url + "/v1"),
POST /v1/messages (anthropic), POST /api/chat (ollama), GET */models and /api/tags (model lists).
Reuse from other test packages: `from tests.models.fakeserver import FakeServer, Fault, Reply` and,
for the fixture, `from tests.models.fakeserver import fake_server  # noqa: F401` in a conftest.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import pytest

from core.models.config import Endpoint

Protocol = Literal["openai", "anthropic", "ollama", "unknown"]
ReasoningFormat = Literal["field", "reasoning", "think_tags"]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    connection: int = 0  # which TCP connection carried it (1, 2, ...): shows keep-alive reuse

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    @property
    def protocol(self) -> Protocol:
        return _protocol(self.path)

    @property
    def stream(self) -> bool:
        data = self.json
        if not isinstance(data, dict):
            return False
        # Ollama streams unless told not to; the others only when asked.
        return bool(data.get("stream", self.protocol == "ollama"))

    @property
    def messages(self) -> list[dict[str, Any]]:
        data = self.json
        return list(data.get("messages", [])) if isinstance(data, dict) else []


@dataclass
class Reply:
    """What the server answers. `reasoning_format`: how reasoning is sent —
    "field": the protocol's own field (openai reasoning_content, anthropic thinking block, ollama message.thinking);
    "reasoning": openai's alternative `reasoning` field (same as "field" elsewhere);
    "think_tags": `<think>reasoning</think>` in front of the answer text."""

    text: str = "Hello from the fake server."
    reasoning: str | None = None
    reasoning_format: ReasoningFormat = "field"
    finish_reason: str | None = None  # default per protocol: stop / end_turn / stop
    prompt_tokens: int | None = None  # default: words in the request messages
    completion_tokens: int | None = None  # default: words in text + reasoning
    model: str | None = None  # default: the requested model


ReplyFn = Callable[[RecordedRequest], "Reply | str | tuple[str, str | None]"]


@dataclass(frozen=True)
class Fault:
    """One injected failure for one request. Build with the classmethods."""

    kind: Literal["status", "drop", "drop_midstream", "malformed", "missing_fields", "delay"]
    status: int = 500
    retry_after: str | None = None
    body: str | None = None
    delay_s: float = 0.0
    after_chunks: int = 2

    @classmethod
    def http(cls, status: int, *, retry_after: str | None = None, body: str | None = None) -> Fault:
        return cls("status", status=status, retry_after=retry_after, body=body)

    @classmethod
    def http429(cls, retry_after: str | None = "1") -> Fault:
        return cls.http(429, retry_after=retry_after)

    @classmethod
    def http500(cls) -> Fault:
        return cls.http(500)

    @classmethod
    def drop(cls) -> Fault:
        """Close the connection after reading the request, before any response byte."""
        return cls("drop")

    @classmethod
    def drop_midstream(cls, after_chunks: int = 2) -> Fault:
        """Send the headers and part of the body (streaming: `after_chunks` events), then close."""
        return cls("drop_midstream", after_chunks=after_chunks)

    @classmethod
    def malformed(cls, body: str = '{"choices": [{"message": ') -> Fault:
        """200 with a body that is not JSON (streaming: an event whose data is not JSON)."""
        return cls("malformed", body=body)

    @classmethod
    def missing_fields(cls, body: str = '{"id": "fake", "object": "unexpected"}') -> Fault:
        """200 with valid JSON lacking the fields the protocol needs (sent as a plain JSON body)."""
        return cls("missing_fields", body=body)

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Extra latency for this request, then a normal reply (use with a short client timeout)."""
        return cls("delay", delay_s=seconds)


@dataclass
class _Stats:
    in_flight: int = 0
    max_in_flight: int = 0
    served: int = 0


class FakeServer:
    def __init__(
        self,
        reply: ReplyFn | None = None,
        *,
        latency_s: float = 0.0,
        chunk_size: int = 4,
        stream_delay_s: float = 0.0,
        api_key: str | None = None,
        models: list[str] | None = None,
    ) -> None:
        self.reply: ReplyFn = reply or (lambda req: Reply())
        self.latency_s = latency_s  # before every response
        self.chunk_size = chunk_size  # characters per streamed delta
        self.stream_delay_s = stream_delay_s  # between streamed events
        self.api_key = api_key  # when set, requests without it get 401
        self.models = models or ["fake-model"]
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self._requests: list[RecordedRequest] = []
        self._stats = _Stats()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._connections = itertools.count(1)
        self.port = 0

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> FakeServer:
        ready = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                self._server = loop.run_until_complete(
                    asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=1024, limit=2**20)
                )
                self.port = self._server.sockets[0].getsockname()[1]
            except BaseException as exc:  # report to start(), not to a dead thread
                errors.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-llm-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if errors:
            raise errors[0]
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        self._loop = self._thread = None

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = [t for t in self._tasks if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> FakeServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)

    # -- configuration and inspection (thread-safe) ----------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def base_url(self, kind: str) -> str:
        """What to put in OPENAI_BASE_URL / ANTHROPIC_BASE_URL / OLLAMA_HOST."""
        return self.url + "/v1" if kind == "openai" else self.url

    def endpoint(self, kind: str, **overrides: Any) -> Endpoint:
        """An Endpoint for this server with test-friendly timings: tiny backoff, short timeouts."""
        settings: dict[str, Any] = {
            "kind": kind,
            "base_url": self.base_url(kind),
            "api_key": self.api_key,
            "max_concurrency": 16,
            "timeout_s": 10.0,
            "connect_timeout_s": 5.0,
            "max_retries": 3,
            "backoff_base_s": 0.001,
            "backoff_cap_s": 0.005,
            "retry_after_cap_s": 0.005,
        }
        settings.update(overrides)
        return Endpoint(**settings)

    def endpoints(self, **overrides: Any) -> dict[str, Endpoint]:
        return {kind: self.endpoint(kind, **overrides) for kind in ("openai", "anthropic", "ollama")}

    def env(self) -> dict[str, str]:
        """Environment variables pointing every provider kind at this server (for CLI/subprocess tests)."""
        env = {
            "OPENAI_BASE_URL": self.base_url("openai"),
            "ANTHROPIC_BASE_URL": self.base_url("anthropic"),
            "OLLAMA_HOST": self.base_url("ollama"),
        }
        if self.api_key:
            env["OPENAI_API_KEY"] = env["ANTHROPIC_API_KEY"] = self.api_key
        return env

    def fail_next(self, n: int, fault: Fault) -> None:
        """The next n requests (after already queued faults) get `fault`."""
        with self._lock:
            self._faults.extend([fault] * n)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    @property
    def pending_faults(self) -> int:
        with self._lock:
            return len(self._faults)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def last_request(self) -> RecordedRequest:
        with self._lock:
            return self._requests[-1]

    @property
    def in_flight(self) -> int:
        return self._stats.in_flight

    @property
    def max_in_flight(self) -> int:
        return self._stats.max_in_flight

    def reset(self) -> None:
        """Forget recorded requests, queued faults and the in-flight peak."""
        with self._lock:
            self._requests.clear()
            self._faults.clear()
            self._stats = _Stats(in_flight=self._stats.in_flight)

    # -- HTTP --------------------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        connection = next(self._connections)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                request.connection = connection
                if not await self._serve(request, writer):
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        except asyncio.CancelledError:
            pass  # shutdown
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _serve(self, req: RecordedRequest, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection must close."""
        with self._lock:
            self._requests.append(req)
            fault = self._faults.pop(0) if self._faults else None
        stats = self._stats
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        try:
            delay = self.latency_s + (fault.delay_s if fault is not None and fault.kind == "delay" else 0.0)
            if delay > 0:
                await asyncio.sleep(delay)
            keep_alive = req.headers.get("connection", "").lower() != "close"
            ok = await self._respond(req, fault, writer)
            stats.served += 1
            return ok and keep_alive
        finally:
            stats.in_flight -= 1

    async def _respond(self, req: RecordedRequest, fault: Fault | None, writer: asyncio.StreamWriter) -> bool:
        kind = fault.kind if fault is not None else None
        if kind == "drop":
            return False
        if fault is not None and kind == "status":
            body = (
                fault.body
                if fault.body is not None
                else json.dumps({"error": {"message": f"injected HTTP {fault.status}"}})
            )
            headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            await _send(writer, fault.status, body.encode(), headers=headers)
            return True
        if fault is not None and kind == "missing_fields":
            await _send(writer, 200, (fault.body or "{}").encode())
            return True
        if req.method == "GET":
            return await self._models(req, writer)
        protocol = req.protocol
        if protocol == "unknown" or req.method != "POST":
            await _send(
                writer,
                404,
                json.dumps({"error": {"message": f"no route for {req.method} {req.path}"}}).encode(),
            )
            return True
        if not self._authorized(req, protocol):
            sent = req.headers.get("x-api-key") or req.headers.get("authorization", "").removeprefix(
                "Bearer "
            )
            # Echo the rejected key like real servers do, so tests can check that clients never repeat it.
            body = {
                "error": {"type": "authentication_error", "message": f"Incorrect API key provided: {sent}"}
            }
            await _send(writer, 401, json.dumps(body).encode())
            return True
        data = req.json
        if not isinstance(data, dict):
            await _send(writer, 400, json.dumps({"error": {"message": "body is not a JSON object"}}).encode())
            return True
        reply = self._make_reply(req)
        if req.stream:
            return await self._stream(req, protocol, reply, fault, writer)
        if kind == "malformed":
            await _send(writer, 200, (fault.body or "").encode())  # type: ignore[union-attr]
            return True
        body_bytes = json.dumps(_whole_body(protocol, req, reply)).encode()
        if kind == "drop_midstream":
            await _send_head(writer, 200, "application/json", {"Content-Length": str(len(body_bytes))})
            writer.write(body_bytes[: len(body_bytes) // 2])
            await writer.drain()
            return False
        await _send(writer, 200, body_bytes)
        return True

    def _authorized(self, req: RecordedRequest, protocol: Protocol) -> bool:
        if not self.api_key or protocol == "ollama":
            return True
        if protocol == "anthropic":
            return req.headers.get("x-api-key") == self.api_key
        return req.headers.get("authorization") == f"Bearer {self.api_key}"

    def _make_reply(self, req: RecordedRequest) -> Reply:
        out = self.reply(req)
        if isinstance(out, str):
            return Reply(text=out)
        if isinstance(out, tuple):
            return Reply(text=out[0], reasoning=out[1])
        return out

    async def _models(self, req: RecordedRequest, writer: asyncio.StreamWriter) -> bool:
        if req.path.startswith("/api/tags"):
            body: dict[str, Any] = {"models": [{"name": m, "model": m} for m in self.models]}
        elif req.path.endswith("/models"):
            body = {"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]}
        else:
            await _send(writer, 404, b'{"error": {"message": "not found"}}')
            return True
        await _send(writer, 200, json.dumps(body).encode())
        return True

    async def _stream(
        self,
        req: RecordedRequest,
        protocol: Protocol,
        reply: Reply,
        fault: Fault | None,
        writer: asyncio.StreamWriter,
    ) -> bool:
        events = _stream_events(protocol, req, reply, self.chunk_size)
        ctype = "application/x-ndjson" if protocol == "ollama" else "text/event-stream"
        await _send_head(writer, 200, ctype, {"Transfer-Encoding": "chunked", "Cache-Control": "no-cache"})
        for i, event in enumerate(events):
            if fault is not None and fault.kind == "drop_midstream" and i == fault.after_chunks:
                return False  # no terminating chunk: the client sees an incomplete body
            if (
                fault is not None
                and fault.kind == "malformed"
                and i == min(fault.after_chunks, len(events) - 1)
            ):
                event = _frame(protocol, fault.body or "{not json", event_name="content_block_delta")
            if i == len(events) - 1:
                break
            writer.write(_chunk(event))
            await writer.drain()
            if self.stream_delay_s:
                await asyncio.sleep(self.stream_delay_s)
        # Last event and terminator in one write with no await after it, so the request leaves
        # the in-flight count before the client can see the end of the reply (see _send).
        writer.write((_chunk(event) if events else b"") + b"0\r\n\r\n")
        return True


# -- HTTP/1.1, just enough ---------------------------------------------------------------------------
_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


async def _read_request(reader: asyncio.StreamReader) -> RecordedRequest | None:
    line = await reader.readline()
    if not line:
        return None
    method, path, _version = line.decode("latin-1").strip().split(" ", 2)
    headers: dict[str, str] = {}
    while True:
        raw = await reader.readline()
        if raw in (b"\r\n", b"\n", b""):
            break
        name, _, value = raw.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    body = b""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readline()
                break
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)
        body = b"".join(parts)
    elif headers.get("content-length"):
        body = await reader.readexactly(int(headers["content-length"]))
    return RecordedRequest(method=method, path=path, headers=headers, body=body)


async def _send_head(writer: asyncio.StreamWriter, status: int, ctype: str, headers: dict[str, str]) -> None:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}", f"Content-Type: {ctype}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    await writer.drain()


async def _send(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    headers: dict[str, str] | None = None,
    ctype: str = "application/json",
) -> None:
    # One write and no drain: the caller returns to _serve, which lowers the in-flight count, without
    # yielding to the loop, so a client that got this reply and sends its next request at once is
    # never counted twice. (The transport buffers whatever the socket does not take right away.)
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}", f"Content-Type: {ctype}"]
    lines += [f"{k}: {v}" for k, v in {"Content-Length": str(len(body)), **(headers or {})}.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _protocol(path: str) -> Protocol:
    path = path.split("?", 1)[0]
    if path.endswith("/chat/completions"):
        return "openai"
    if path == "/v1/messages":
        return "anthropic"
    if path == "/api/chat":
        return "ollama"
    return "unknown"


# -- reply bodies ------------------------------------------------------------------------------------
def _words(text: str | None) -> int:
    return len(text.split()) if text else 0


def _counts(req: RecordedRequest, reply: Reply) -> tuple[int, int]:
    data = req.json or {}
    system = data.get("system") if isinstance(data.get("system"), str) else ""
    prompt = sum(
        _words(m.get("content")) for m in req.messages if isinstance(m.get("content"), str)
    ) + _words(system)
    completion = _words(reply.text) + _words(reply.reasoning)
    return (
        reply.prompt_tokens if reply.prompt_tokens is not None else prompt,
        reply.completion_tokens if reply.completion_tokens is not None else completion,
    )


def _visible_text(reply: Reply) -> str:
    if reply.reasoning and reply.reasoning_format == "think_tags":
        return f"<think>{reply.reasoning}</think>\n\n{reply.text}"
    return reply.text


def _field_reasoning(reply: Reply) -> str | None:
    return reply.reasoning if reply.reasoning_format != "think_tags" else None


def _model(req: RecordedRequest, reply: Reply) -> str:
    data = req.json or {}
    return reply.model or str(data.get("model", "fake-model"))


def _whole_body(protocol: Protocol, req: RecordedRequest, reply: Reply) -> dict[str, Any]:
    prompt, completion = _counts(req, reply)
    model = _model(req, reply)
    reasoning = _field_reasoning(reply)
    if protocol == "openai":
        message: dict[str, Any] = {"role": "assistant", "content": _visible_text(reply)}
        if reasoning is not None:
            message["reasoning" if reply.reasoning_format == "reasoning" else "reasoning_content"] = reasoning
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason or "stop"}],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "completion_tokens_details": {"reasoning_tokens": _words(reply.reasoning)},
            },
        }
    if protocol == "anthropic":
        content: list[dict[str, Any]] = []
        if reasoning is not None:
            content.append({"type": "thinking", "thinking": reasoning, "signature": "fake-signature"})
        content.append({"type": "text", "text": _visible_text(reply)})
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": reply.finish_reason or "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": prompt, "output_tokens": completion},
        }
    message = {"role": "assistant", "content": _visible_text(reply)}
    if reasoning is not None:
        message["thinking"] = reasoning
    return {
        "model": model,
        "created_at": "2025-01-01T00:00:00Z",
        "message": message,
        "done": True,
        "done_reason": reply.finish_reason or "stop",
        "total_duration": 1,
        "prompt_eval_count": prompt,
        "eval_count": completion,
    }


def _pieces(text: str | None, size: int) -> list[str]:
    if not text:
        return []
    return [text[i : i + size] for i in range(0, len(text), max(1, size))]


def _frame(protocol: Protocol, data: str, event_name: str | None = None) -> bytes:
    if protocol == "ollama":
        return (data + "\n").encode()
    if protocol == "anthropic":
        return f"event: {event_name}\ndata: {data}\n\n".encode()
    return f"data: {data}\n\n".encode()


def _stream_events(protocol: Protocol, req: RecordedRequest, reply: Reply, size: int) -> list[bytes]:
    prompt, completion = _counts(req, reply)
    model = _model(req, reply)
    reasoning = _field_reasoning(reply)
    text = _visible_text(reply)
    events: list[bytes] = []

    def emit(obj: dict[str, Any], name: str | None = None) -> None:
        events.append(_frame(protocol, json.dumps(obj), event_name=name or obj.get("type")))

    if protocol == "openai":
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model}
        field_name = "reasoning" if reply.reasoning_format == "reasoning" else "reasoning_content"
        emit(
            {
                **base,
                "choices": [
                    {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
                ],
            }
        )
        for piece in _pieces(reasoning, size):
            emit({**base, "choices": [{"index": 0, "delta": {field_name: piece}, "finish_reason": None}]})
        for piece in _pieces(text, size):
            emit({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        emit({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": reply.finish_reason or "stop"}]})
        data = req.json or {}
        if (data.get("stream_options") or {}).get("include_usage"):
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "completion_tokens_details": {"reasoning_tokens": _words(reply.reasoning)},
            }
            emit({**base, "choices": [], "usage": usage})
        events.append(b"data: [DONE]\n\n")
    elif protocol == "anthropic":
        emit(
            {
                "type": "message_start",
                "message": {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": prompt, "output_tokens": 1},
                },
            }
        )
        emit({"type": "ping"})
        index = 0
        if reasoning is not None:
            emit(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "thinking", "thinking": ""},
                }
            )
            for piece in _pieces(reasoning, size):
                emit(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "thinking_delta", "thinking": piece},
                    }
                )
            emit(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "signature_delta", "signature": "fake"},
                }
            )
            emit({"type": "content_block_stop", "index": index})
            index += 1
        emit({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
        for piece in _pieces(text, size):
            emit(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece},
                }
            )
        emit({"type": "content_block_stop", "index": index})
        emit(
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.finish_reason or "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": completion},
            }
        )
        emit({"type": "message_stop"})
    else:
        base = {"model": model, "created_at": "2025-01-01T00:00:00Z"}
        for piece in _pieces(reasoning, size):
            emit({**base, "message": {"role": "assistant", "content": "", "thinking": piece}, "done": False})
        for piece in _pieces(text, size):
            emit({**base, "message": {"role": "assistant", "content": piece}, "done": False})
        emit(
            {
                **base,
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "done_reason": reply.finish_reason or "stop",
                "prompt_eval_count": prompt,
                "eval_count": completion,
            }
        )
    return events


@pytest.fixture
def fake_server() -> Any:
    """A started FakeServer, stopped after the test."""
    with FakeServer() as srv:
        yield srv


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """For raw-socket test servers: one request's head, its Content-Length body read and dropped."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    await reader.readexactly(length)
    return head
