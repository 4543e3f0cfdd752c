"""The exact JSON each provider sends (as built, and as the server received it), and its headers."""

from __future__ import annotations

import json

import pytest

from core.models import Message, SamplingParams
from tests.models.fakeserver import FakeServer

MSGS = [
    Message(role="system", content="You are terse."),
    Message(role="user", content="2+2?"),
    Message(role="assistant", content="4"),
    Message(role="user", content="3+3?"),
]
AS_DICTS = [m.model_dump() for m in MSGS]
ALL = SamplingParams(
    temperature=0.2,
    top_p=0.9,
    max_tokens=64,
    seed=7,
    stop=["END"],
    reasoning_effort="low",
    thinking_budget=2048,
)


def _noop(kind: str, text: str) -> None:
    pass


async def _sent(make, fake_server: FakeServer, kind: str, params: SamplingParams, stream: bool) -> dict:
    provider = make(kind, "the-model")
    await provider.complete(MSGS, params, on_delta=_noop if stream else None)
    sent = fake_server.last_request.json
    assert sent == provider.build_payload(MSGS, params, stream)  # build_payload is what goes on the wire
    return sent


# -- openai ----------------------------------------------------------------------------------------------
async def test_openai_minimal(make, fake_server):
    assert await _sent(make, fake_server, "openai", SamplingParams(), False) == {
        "model": "the-model",
        "messages": AS_DICTS,
    }


async def test_openai_all_params(make, fake_server):
    assert await _sent(make, fake_server, "openai", ALL, False) == {
        "model": "the-model",
        "messages": AS_DICTS,
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 64,
        "seed": 7,
        "stop": ["END"],
        "reasoning_effort": "low",
    }


async def test_openai_stream(make, fake_server):
    params = SamplingParams(temperature=0.0, max_tokens=10)
    assert await _sent(make, fake_server, "openai", params, True) == {
        "model": "the-model",
        "messages": AS_DICTS,
        "temperature": 0.0,
        "max_tokens": 10,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


async def test_openai_request_line_and_headers(make, fake_server):
    await _sent(make, fake_server, "openai", SamplingParams(), False)
    req = fake_server.last_request
    assert (req.method, req.path) == ("POST", "/v1/chat/completions")
    assert req.headers["content-type"] == "application/json"
    assert "authorization" not in req.headers  # no key configured: none sent (local servers)


# -- anthropic -------------------------------------------------------------------------------------------
async def test_anthropic_minimal(make, fake_server):
    assert await _sent(make, fake_server, "anthropic", SamplingParams(), False) == {
        "model": "the-model",
        "max_tokens": 4096,
        "system": "You are terse.",
        "messages": AS_DICTS[1:],
    }


async def test_anthropic_all_params(make, fake_server):
    # seed and reasoning_effort have no Messages API equivalent and are not sent
    assert await _sent(make, fake_server, "anthropic", ALL, False) == {
        "model": "the-model",
        "max_tokens": 64,
        "system": "You are terse.",
        "messages": AS_DICTS[1:],
        "temperature": 0.2,
        "top_p": 0.9,
        "stop_sequences": ["END"],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
    }


async def test_anthropic_stream_thinking_default_max_tokens(make, fake_server):
    params = SamplingParams(thinking_budget=1024)
    assert (
        await _sent(make, fake_server, "anthropic", params, True)
        == {
            "model": "the-model",
            "max_tokens": 1024 + 4096,  # the answer still gets room after the thinking budget
            "system": "You are terse.",
            "messages": AS_DICTS[1:],
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "stream": True,
        }
    )


async def test_anthropic_no_system_and_several_systems(make):
    provider = make("anthropic", "m")
    no_system = provider.build_payload(MSGS[1:2], SamplingParams(), False)
    assert "system" not in no_system
    two = [Message(role="system", content="A"), Message(role="system", content="B"), MSGS[1]]
    assert provider.build_payload(two, SamplingParams(), False)["system"] == "A\n\nB"


async def test_anthropic_headers(make, fake_server):
    fake_server.api_key = "sk-ant-test"
    await _sent(make, fake_server, "anthropic", SamplingParams(), False)
    req = fake_server.last_request
    assert (req.method, req.path) == ("POST", "/v1/messages")
    assert req.headers["anthropic-version"] == "2023-06-01"
    assert req.headers["x-api-key"] == "sk-ant-test"
    assert "authorization" not in req.headers


# -- ollama ----------------------------------------------------------------------------------------------
async def test_ollama_minimal(make, fake_server):
    assert await _sent(make, fake_server, "ollama", SamplingParams(), False) == {
        "model": "the-model",
        "messages": AS_DICTS,
        "stream": False,
        "options": {},
    }


async def test_ollama_all_params(make, fake_server):
    assert await _sent(make, fake_server, "ollama", ALL, False) == {
        "model": "the-model",
        "messages": AS_DICTS,
        "stream": False,
        "options": {"temperature": 0.2, "top_p": 0.9, "num_predict": 64, "seed": 7, "stop": ["END"]},
        "think": True,
    }


async def test_ollama_stream(make, fake_server):
    params = SamplingParams(seed=1, thinking_budget=100)
    assert await _sent(make, fake_server, "ollama", params, True) == {
        "model": "the-model",
        "messages": AS_DICTS,
        "stream": True,
        "options": {"seed": 1},
        "think": True,
    }
    assert fake_server.last_request.path == "/api/chat"


@pytest.mark.parametrize(("effort", "think"), [("none", False), ("off", False), ("high", True)])
async def test_ollama_think_switch(make, effort, think):
    payload = make("ollama").build_payload(MSGS, SamplingParams(reasoning_effort=effort), False)
    assert payload["think"] is think


async def test_model_name_with_colons_sent_whole(make, fake_server):
    await make("ollama", "qwen3:8b").complete(MSGS)
    assert fake_server.last_request.json["model"] == "qwen3:8b"


# -- the same request again (a batch run sends each prompt once per sample) --------------------
async def test_a_repeated_request_is_encoded_once_and_sent_byte_for_byte(make, fake_server, kind):
    provider = make(kind, "the-model")
    built = []
    original = provider.build_payload

    def counting(messages, params, stream):
        built.append(1)
        return original(messages, params, stream)

    provider.build_payload = counting
    bodies = []
    for _ in range(3):
        await provider.complete([Message(role=m.role, content=m.content) for m in MSGS], ALL)
        bodies.append(fake_server.last_request.body)
    assert len(built) == 1  # encoded once, then the same bytes again
    assert bodies[0] == bodies[1] == bodies[2]
    assert fake_server.last_request.json == original(MSGS, ALL, False)


async def test_requests_that_differ_in_any_way_are_never_given_one_body(make, fake_server, kind):
    """Values that Python counts as equal but JSON writes apart (0.0 / -0.0, 1 / 1.0 / True) and every
    parameter, message and the stream flag: each request is sent as its own payload."""
    provider = make(kind, "the-model")
    variants = [
        (MSGS, SamplingParams(temperature=0.0), False),
        (MSGS, SamplingParams(temperature=-0.0), False),
        (MSGS, SamplingParams(temperature=1.0), False),
        (MSGS, SamplingParams(max_tokens=1), False),
        (MSGS, SamplingParams(stop=["END"]), False),
        (MSGS, SamplingParams(stop=["END", "STOP"]), False),
        (MSGS, SamplingParams(seed=7), False),
        (MSGS, SamplingParams(seed=8), False),
        (MSGS[:2], SamplingParams(seed=8), False),
        (MSGS, ALL, False),
        (MSGS, ALL, True),
    ]
    for _ in range(2):  # the second time from the memo
        for messages, params, stream in variants:
            await provider.complete(messages, params, on_delta=_noop if stream else None)
            sent = fake_server.last_request.body
            fresh = json.dumps(provider.build_payload(messages, params, stream), ensure_ascii=False,
                               separators=(",", ":"), allow_nan=False).encode()
            assert sent == fresh  # byte for byte what encoding it afresh gives
    zero, minus_zero = (provider._body(MSGS, SamplingParams(temperature=t), False) for t in (0.0, -0.0))
    assert zero != minus_zero and b"-0.0" in minus_zero and b"-0.0" not in zero
