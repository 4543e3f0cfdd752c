"""Every provider against the fake server: replies, streaming, reasoning, usage, faults, limits."""

from __future__ import annotations

import asyncio
import socket

import pytest

from core.models import Message, ProviderError, SamplingParams, make_provider
from core.models.config import Endpoint
from tests.models.fakeserver import FakeServer, Fault, Reply

MSGS = [Message(role="system", content="Be brief."), Message(role="user", content="What is six times seven?")]


class Deltas:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def __call__(self, kind: str, text: str) -> None:
        self.events.append((kind, text))

    def joined(self, kind: str) -> str:
        # Only what came after the last reset counts: earlier deltas belonged to a failed attempt.
        last_reset = max((i for i, (k, _) in enumerate(self.events) if k == "reset"), default=-1)
        return "".join(t for k, t in self.events[last_reset + 1 :] if k == kind)


# -- success paths -------------------------------------------------------------------------------------
async def test_complete(kind, make, fake_server):
    fake_server.reply = lambda req: Reply("The answer is 42.")
    reply = await make(kind).complete(MSGS, SamplingParams(temperature=0))
    assert reply.text == "The answer is 42."
    assert reply.reasoning is None
    assert reply.retries == 0
    assert reply.model == "test-model"
    assert reply.finish_reason == {"openai": "stop", "anthropic": "end_turn", "ollama": "stop"}[kind]
    assert reply.latency_s >= 0
    assert len(fake_server.requests) == 1


async def test_usage_recorded(kind, make, fake_server):
    fake_server.reply = lambda req: Reply("x", prompt_tokens=11, completion_tokens=5)
    for on_delta in (None, Deltas()):
        reply = await make(kind).complete(MSGS, on_delta=on_delta)
        assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (11, 5)


async def test_streaming_deltas_in_order_and_equal_final(kind, make, fake_server):
    text = "Forty-two, because six times seven is forty-two."
    fake_server.reply = lambda req: Reply(text, reasoning="6*7: 6*7 = 42, done.")
    fake_server.chunk_size = 3
    deltas = Deltas()
    provider = make(kind)
    streamed = await provider.complete(MSGS, on_delta=deltas)
    assert fake_server.last_request.stream
    assert len([e for e in deltas.events if e[0] == "text"]) > 5  # really arrived in pieces
    assert deltas.joined("text") == streamed.text == text
    assert deltas.joined("reasoning") == streamed.reasoning == "6*7: 6*7 = 42, done."
    # all reasoning arrives before the answer, as the server sent it
    kinds = [k for k, _ in deltas.events]
    assert kinds.index("text") > max(i for i, k in enumerate(kinds) if k == "reasoning")
    whole = await provider.complete(MSGS)
    assert not fake_server.last_request.stream
    assert whole.model_dump(exclude={"latency_s"}) == streamed.model_dump(exclude={"latency_s"})


@pytest.mark.parametrize("fmt", ["field", "reasoning", "think_tags"])
@pytest.mark.parametrize("stream", [False, True])
async def test_reasoning_kept_apart(kind, make, fake_server, fmt, stream):
    fake_server.reply = lambda req: Reply(
        "Answer: 42", reasoning="Let me think. 6*7=42.", reasoning_format=fmt
    )
    fake_server.chunk_size = 2  # splits the <think> tags across chunks
    deltas = Deltas() if stream else None
    reply = await make(kind).complete(MSGS, on_delta=deltas)
    assert reply.text == "Answer: 42"
    assert reply.reasoning == "Let me think. 6*7=42."
    if deltas is not None:
        assert deltas.joined("text") == reply.text
        assert deltas.joined("reasoning") == reply.reasoning
        assert all("<think>" not in t and "</think>" not in t for _, t in deltas.events)


async def test_openai_reasoning_tokens(make, fake_server):
    fake_server.reply = lambda req: Reply("ok", reasoning="one two three")
    reply = await make("openai").complete(MSGS)
    assert reply.usage.reasoning_tokens == 3


async def test_unicode_round_trip(kind, make, fake_server):
    text = "λx. x ⊢ ∀a. a → a — 「ok」 🎉"
    fake_server.reply = lambda req: Reply(text)
    fake_server.chunk_size = 1  # multi-byte characters split across network chunks
    deltas = Deltas()
    assert (await make(kind).complete(MSGS, on_delta=deltas)).text == text
    assert deltas.joined("text") == text


# -- retries -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("stream", [False, True])
async def test_429_retry_after_honoured(kind, make, fake_server, sleeps, stream):
    fake_server.fail_next(2, Fault.http429(retry_after="7"))
    provider = make(kind, retry_after_cap_s=60)
    reply = await provider.complete(MSGS, on_delta=Deltas() if stream else None)
    assert reply.text == "Hello from the fake server."
    assert reply.retries == 2
    assert sleeps.delays == [7.0, 7.0]  # the server's wait, not our backoff
    assert len(fake_server.requests) == 3


async def test_retry_after_is_capped(make, fake_server, sleeps):
    fake_server.fail_next(1, Fault.http429(retry_after="86400"))
    await make("openai", retry_after_cap_s=2.5).complete(MSGS)
    assert sleeps.delays == [2.5]


async def test_429_without_retry_after_uses_jittered_backoff(make, fake_server, sleeps):
    fake_server.fail_next(3, Fault.http429(retry_after=None))
    reply = await make("openai", backoff_base_s=1.0, backoff_cap_s=3.0).complete(MSGS)
    assert reply.retries == 3
    ceilings = [1.0, 2.0, 3.0]  # base * 2**n, capped
    assert all(0 <= d <= c for d, c in zip(sleeps.delays, ceilings, strict=True))


@pytest.mark.parametrize(
    "fault",
    [Fault.http500(), Fault.http(503, retry_after="0"), Fault.drop(), Fault.drop_midstream()],
    ids=["500", "503", "drop", "drop-midbody"],
)
async def test_transient_fault_then_success(kind, make, fake_server, fault):
    fake_server.fail_next(1, fault)
    reply = await make(kind).complete(MSGS)
    assert reply.text == "Hello from the fake server."
    assert reply.retries == 1


async def test_stream_dropped_midway_is_retried_and_reset(kind, make, fake_server):
    fake_server.reply = lambda req: Reply("a fairly long answer that streams in many pieces")
    fake_server.fail_next(1, Fault.drop_midstream(after_chunks=4))
    deltas = Deltas()
    reply = await make(kind).complete(MSGS, on_delta=deltas)
    assert reply.retries == 1
    assert ("reset", "") in deltas.events  # the viewer is told to discard the partial reply
    assert deltas.joined("text") == reply.text == "a fairly long answer that streams in many pieces"


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (Fault.http429(retry_after="1"), "http_429"),
        (Fault.http500(), "http_5xx"),
        (Fault.drop(), "connection"),
    ],
    ids=["429", "500", "drop"],
)
async def test_retries_exhausted(kind, make, fake_server, sleeps, fault, expected):
    fake_server.fail_next(10, fault)
    with pytest.raises(ProviderError) as info:
        await make(kind, max_retries=2).complete(MSGS)
    err = info.value
    assert err.kind == expected
    assert err.retries == 2
    assert len(fake_server.requests) == 3
    assert len(sleeps.delays) == 2
    assert "\n" not in err.message
    if expected != "connection":
        assert err.status == fault.status


async def test_read_timeout(make, fake_server):
    fake_server.fail_next(2, Fault.delay(0.3))
    with pytest.raises(ProviderError) as info:
        await make("openai", timeout_s=0.05, max_retries=1).complete(MSGS)
    assert info.value.kind == "timeout"
    assert info.value.retries == 1


async def test_read_timeout_then_success(make, fake_server):
    fake_server.fail_next(1, Fault.delay(0.3))
    reply = await make("ollama", timeout_s=0.05).complete(MSGS)
    assert reply.retries == 1


# -- errors that are not retried -----------------------------------------------------------------------
@pytest.mark.parametrize("stream", [False, True])
async def test_malformed_json(kind, make, fake_server, stream):
    fake_server.fail_next(1, Fault.malformed())
    with pytest.raises(ProviderError) as info:
        await make(kind).complete(MSGS, on_delta=Deltas() if stream else None)
    assert info.value.kind == "malformed"
    assert info.value.retries == 0
    assert len(fake_server.requests) == 1


@pytest.mark.parametrize("stream", [False, True])
async def test_missing_fields(kind, make, fake_server, stream):
    fake_server.fail_next(1, Fault.missing_fields())
    with pytest.raises(ProviderError) as info:
        await make(kind).complete(MSGS, on_delta=Deltas() if stream else None)
    assert info.value.kind == "malformed"


@pytest.mark.parametrize(
    "body",
    [
        "[1, 2]",
        '"just a string"',
        "",
        '{"choices": [], "content": "x", "message": 5}',
        '{"choices": [{"message": {"content": 7}}], "content": [{"type": "text", "text": 7}], "message": {"content": 7}}',
    ],
)
async def test_wrong_shapes_are_malformed(kind, make, fake_server, body):
    fake_server.fail_next(1, Fault.missing_fields(body))
    with pytest.raises(ProviderError) as info:
        await make(kind).complete(MSGS)
    assert info.value.kind == "malformed"


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_auth_error_not_retried_and_key_not_echoed(kind, fake_server, sleeps):
    secret = "sk-test-SUPERSECRET-0123456789abcdef"
    fake_server.api_key = "sk-the-right-key"
    endpoint = fake_server.endpoint(kind, api_key=secret)
    provider = make_provider(f"{kind}:m", endpoint, sleep=sleeps)
    try:
        with pytest.raises(ProviderError) as info:
            await provider.complete(MSGS)
    finally:
        await provider.aclose()
    err = info.value
    assert err.kind == "auth" and err.status == 401 and err.retries == 0
    assert len(fake_server.requests) == 1
    for text in (str(err), repr(err), err.message):
        assert secret not in text and "SUPERSECRET" not in text


async def test_ollama_ignores_keys(make, fake_server):
    fake_server.api_key = "sk-needed-elsewhere"
    assert (await make("ollama", api_key=None).complete(MSGS)).text


async def test_correct_key_is_sent(make, fake_server):
    fake_server.api_key = "sk-correct-key-123456"
    assert (await make("openai").complete(MSGS)).text
    assert fake_server.last_request.headers["authorization"] == "Bearer sk-correct-key-123456"
    assert (await make("anthropic").complete(MSGS)).text
    assert fake_server.last_request.headers["x-api-key"] == "sk-correct-key-123456"


async def test_4xx_message_redacts_echoed_key(make, fake_server):
    secret = "sk-live-ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    body = '{"error": {"message": "bad request for key sk-live-ABCDEFGHIJKLMN... model unknown"}}'
    fake_server.fail_next(1, Fault.http(400, body=body))
    with pytest.raises(ProviderError) as info:
        await make("openai", api_key=secret).complete(MSGS)
    err = info.value
    assert err.kind == "http_4xx" and err.status == 400 and err.retries == 0
    assert "model unknown" in err.message  # the server's reason is kept
    assert "ABCDEFGHIJKL" not in err.message


async def test_404_model_not_found(make, fake_server):
    fake_server.fail_next(
        1, Fault.http(404, body='{"error": "model \\"nope\\" not found, try pulling it first"}')
    )
    with pytest.raises(ProviderError) as info:
        await make("ollama").complete(MSGS)
    assert info.value.kind == "http_4xx"
    assert "not found" in info.value.message


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed on exit: nothing listens there


async def test_connection_refused(kind, sleeps):
    port = _dead_port()
    base = f"http://127.0.0.1:{port}" + ("/v1" if kind == "openai" else "")
    endpoint = Endpoint(kind=kind, base_url=base, max_retries=2, backoff_base_s=0.001, backoff_cap_s=0.001)
    provider = make_provider(f"{kind}:m", endpoint, sleep=sleeps)
    with pytest.raises(ProviderError) as info:
        await provider.complete(MSGS)
    await provider.aclose()
    assert info.value.kind == "connection"
    assert info.value.retries == 2


async def test_hosted_api_without_key_fails_fast(sleeps):
    for kind, url in (("openai", "https://api.openai.com/v1"), ("anthropic", "https://api.anthropic.com")):
        provider = make_provider(f"{kind}:m", Endpoint(kind=kind, base_url=url), sleep=sleeps)
        with pytest.raises(ProviderError) as info:
            await provider.complete(MSGS)
        assert info.value.kind == "auth"
        assert "API_KEY" in info.value.message


# -- limits and lifecycle ------------------------------------------------------------------------------
async def test_concurrency_limit(kind, make, fake_server):
    fake_server.latency_s = 0.03
    provider = make(kind, max_concurrency=3)
    replies = await asyncio.gather(*(provider.complete(MSGS) for _ in range(12)))
    assert len(replies) == 12
    assert fake_server.max_in_flight == 3


async def test_limit_shared_by_providers_on_one_endpoint(make, fake_server):
    fake_server.latency_s = 0.03
    a, b = make("openai", "model-a", max_concurrency=2), make("openai", "model-b", max_concurrency=2)
    await asyncio.gather(*(p.complete(MSGS) for p in (a, b) for _ in range(5)))
    assert fake_server.max_in_flight == 2
    assert {r.json["model"] for r in fake_server.requests} == {"model-a", "model-b"}


async def test_connections_are_reused(kind, make, fake_server):
    # A streamed reply is read to its end, so its connection goes back to the pool (no new TCP or
    # TLS handshake per request against a real server).
    provider = make(kind)
    for on_delta in (Deltas(), Deltas(), None, Deltas()):
        await provider.complete(MSGS, on_delta=on_delta)
    assert {r.connection for r in fake_server.requests} == {fake_server.requests[0].connection}


async def test_concurrency_limit_above_one_shard(make, fake_server):
    # Providers spread connections over several httpx clients; the limit holds across them.
    fake_server.latency_s = 0.03
    provider = make("openai", max_concurrency=20)
    await asyncio.gather(*(provider.complete(MSGS) for _ in range(45)))
    assert fake_server.max_in_flight == 20


async def test_streams_count_against_the_limit(make, fake_server):
    fake_server.stream_delay_s = 0.005
    provider = make("anthropic", max_concurrency=2)
    await asyncio.gather(*(provider.complete(MSGS, on_delta=Deltas()) for _ in range(6)))
    assert fake_server.max_in_flight == 2


async def test_closed_provider(make):
    provider = make("openai")
    await provider.aclose()
    await provider.aclose()  # twice is fine
    with pytest.raises(ProviderError) as info:
        await provider.complete(MSGS)
    assert info.value.kind == "cancelled"


async def test_task_cancellation_propagates(make, fake_server):
    # CancelledError is not turned into a ProviderError: asyncio.timeout and TaskGroup rely on it.
    fake_server.latency_s = 5
    provider = make("openai")
    task = asyncio.create_task(provider.complete(MSGS))
    while fake_server.in_flight == 0:
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_on_delta_exception_propagates_unchanged(make, fake_server):
    def boom(kind: str, text: str) -> None:
        raise LookupError("viewer bug")

    with pytest.raises(LookupError, match="viewer bug"):
        await make("openai").complete(MSGS, on_delta=boom)
    assert len(fake_server.requests) == 1  # a caller's bug is not retried


async def test_server_ignoring_stream_flag(make, fake_server):
    # Some OpenAI-compatible servers answer stream=true with one JSON body; that still works.
    fake_server.fail_next(
        1,
        Fault.missing_fields(
            '{"choices": [{"index": 0, "message": {"role": "assistant", "content": "whole"}, "finish_reason": "stop"}]}'
        ),
    )
    deltas = Deltas()
    reply = await make("openai").complete(MSGS, on_delta=deltas)
    assert reply.text == "whole" and deltas.joined("text") == "whole"


async def test_response_size_cap(make, fake_server):
    fake_server.reply = lambda req: Reply("x" * 5000)
    with pytest.raises(ProviderError) as info:
        await make("openai", max_response_bytes=2048).complete(MSGS)
    assert info.value.kind == "malformed"
    with pytest.raises(ProviderError) as info:
        await make("ollama", max_response_bytes=2048).complete(MSGS, on_delta=Deltas())
    assert info.value.kind == "malformed"


def test_server_usable_from_sync_code_and_other_loops():
    # The runner/CLI tests call asyncio.run themselves; the server runs in its own thread for them.
    with FakeServer(lambda req: "sync ok") as srv:
        endpoint = srv.endpoint("ollama")

        async def one() -> str:
            async with make_provider("ollama:m", endpoint) as provider:
                return (await provider.complete(MSGS)).text

        assert asyncio.run(one()) == "sync ok"
        assert asyncio.run(one()) == "sync ok"
        assert srv.requests[0].path == "/api/chat"


# -- which 5xx are worth a retry -------------------------------------------------------------------------
@pytest.mark.parametrize(("status", "retried"), [(500, True), (502, True), (503, True), (504, True), (529, True),
                                                 (501, False), (505, False)])
async def test_only_temporary_5xx_are_retried(make, fake_server, sleeps, status, retried):
    fake_server.fail_next(1, Fault.http(status))
    provider = make("openai")
    if retried:
        assert (await provider.complete(MSGS)).retries == 1
        assert len(fake_server.requests) == 2
        return
    with pytest.raises(ProviderError) as info:
        await provider.complete(MSGS)
    assert (info.value.kind, info.value.status, info.value.retries) == ("http_5xx", status, 0)
    assert len(fake_server.requests) == 1 and sleeps.delays == []


# -- the overall deadline --------------------------------------------------------------------------------
async def test_deadline_stops_a_server_trickling_a_reply(make, fake_server):
    # One byte every 20 ms never trips the read timeout; 500 of them would take 10 s.
    fake_server.chunk_size, fake_server.stream_delay_s = 1, 0.02
    fake_server.reply = lambda req: Reply("x" * 500)
    with pytest.raises(ProviderError) as info:
        await make("openai", timeout_s=5, request_deadline_s=0.2).complete(MSGS, on_delta=Deltas())
    assert info.value.kind == "timeout" and "request_deadline_s" in info.value.message
    assert len(fake_server.requests) == 1, "past the deadline nothing is retried"


async def test_no_retry_that_would_end_past_the_deadline(make, fake_server, sleeps):
    fake_server.fail_next(1, Fault.http429(retry_after="30"))
    with pytest.raises(ProviderError) as info:
        await make("openai", retry_after_cap_s=60, request_deadline_s=10).complete(MSGS)
    assert info.value.kind == "http_429" and sleeps.delays == [], "a 30 s wait cannot fit in 10 s"


# -- keys: unsendable, or echoed back in a reply ------------------------------------------------------------
BAD_KEYS = ["zqVVJWxkQPmm\u200bRRttLL", "zqVVJWxkQPmmRRtt\n", "zqVVJWxkQPmm\r\nX-Evil: 1"]


@pytest.mark.parametrize("key", BAD_KEYS)
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_unsendable_key_is_an_auth_error_that_quotes_none_of_it(kind, key, fake_server, sleeps):
    provider = make_provider(f"{kind}:m", fake_server.endpoint(kind, api_key=key), sleep=sleeps)
    try:
        with pytest.raises(ProviderError) as info:
            await provider.complete(MSGS)
    finally:
        await provider.aclose()
    err = info.value
    assert err.kind == "auth" and err.retries == 0 and sleeps.delays == []
    assert fake_server.requests == [], "nothing was sent (no header injection either)"
    for text in (str(err), repr(err)):
        leaked = {key[i : i + 4] for i in range(len(key) - 3)} & {text[i : i + 4] for i in range(len(text) - 3)}
        assert not leaked, f"{leaked} from the key in {text!r}"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_key_echoed_in_a_reply_reaches_the_caller_as_sent_and_metadata_is_redacted(kind, make, fake_server,
                                                                                          stream):
    # The text and reasoning are what extraction and verification see: never altered. Stored copies are
    # redacted where they are stored (tests/runs/test_runs_secrets.py); metadata is redacted here.
    secret = "sk-echo-ZYXWVUTSRQPONMLKJIHG-0123"
    header = "authorization" if kind == "openai" else "x-api-key"
    fake_server.reply = lambda req: Reply(text=f"you sent {req.headers[header]} ok", reasoning=f"key={req.headers[header]}",
                                          finish_reason=f"stop {req.headers[header]}", model=f"m-{req.headers[header]}")
    reply = await make(kind, api_key=secret).complete(MSGS, on_delta=Deltas() if stream else None)
    assert secret in fake_server.last_request.headers[header], "the key was sent and echoed"
    assert reply.text == f"you sent {fake_server.last_request.headers[header]} ok"
    assert reply.reasoning == f"key={fake_server.last_request.headers[header]}"
    for text in (reply.finish_reason or "", reply.model or ""):
        assert secret not in text and "ZYXWVUTSRQPO" not in text and "[redacted key]" in text
