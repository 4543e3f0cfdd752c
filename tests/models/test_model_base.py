"""Data types, cache keys, errors, think-tag splitting and backoff helpers (no network)."""

from __future__ import annotations

import pickle
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.models import ChatRequest, Message, ProviderError, SamplingParams, make_provider
from core.models.config import Endpoint
from core.models.httpbase import redact
from core.models.retry import backoff_delay, parse_retry_after, retry_delay
from core.models.think import ReplyAssembler, split_think

MSGS = [Message(role="user", content="hi")]


# -- cache keys ------------------------------------------------------------------------------------------
def _key(**kw) -> str:
    base = {
        "model": "m",
        "messages": MSGS,
        "params": SamplingParams(),
        "provider": "openai",
        "base_url": "http://x/v1",
    }
    return ChatRequest(**{**base, **kw}).cache_key()


def test_cache_key_stable_and_sensitive():
    assert _key() == _key()
    assert len(_key()) == 64
    assert _key(base_url="http://x/v1/") == _key()  # trailing slash is not a different server
    for change in (
        {"model": "m2"},
        {"provider": "ollama"},
        {"base_url": "http://y/v1"},
        {"messages": [Message(role="user", content="hi!")]},
        {"params": SamplingParams(temperature=0)},
        {"params": SamplingParams(seed=1)},
    ):
        assert _key(**change) != _key(), change


def test_cache_key_never_depends_on_the_key():
    a = make_provider("openai:m", Endpoint(kind="openai", base_url="http://x/v1", api_key="sk-one"))
    b = make_provider("openai:m", Endpoint(kind="openai", base_url="http://x/v1", api_key="sk-two"))
    assert a.cache_key(MSGS) == b.cache_key(MSGS) == _key()
    assert "sk-one" not in a.request(MSGS).model_dump_json()


def test_sampling_params_validation():
    with pytest.raises(ValueError):
        SamplingParams(max_tokens=0)
    with pytest.raises(ValueError):
        SamplingParams(temprature=1)  # a typo is an error, not a silently ignored option
    assert SamplingParams().wants_reasoning() is False
    assert SamplingParams(reasoning_effort="none").wants_reasoning() is False
    assert SamplingParams(reasoning_effort="high").wants_reasoning() is True
    assert SamplingParams(thinking_budget=10).wants_reasoning() is True


# -- errors ----------------------------------------------------------------------------------------------
def test_provider_error_one_line_and_picklable():
    err = ProviderError("http_5xx", "bad\n gateway\r\n  here", status=502, retries=3)
    assert err.message == "bad gateway here"
    assert str(err) == "http_5xx: bad gateway here"
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.kind, copy.message, copy.status, copy.retries) == ("http_5xx", "bad gateway here", 502, 3)


def test_redact():
    key = "sk-abcdefghijklmnopqrstuvwxyz0123"
    assert redact(f"bad key {key}!", key) == "bad key [redacted key]!"
    assert "ghijklmnopqr" not in redact("bad key sk-abcdefghijklmnopqr...", key)
    assert redact("nothing here", None) == "nothing here"
    # a dummy key of a few characters is not a secret: the text is left alone
    for dummy in ("x", "EMPTY", "ollama"):
        assert redact(f"the examples {dummy} say {dummy}", dummy) == f"the examples {dummy} say {dummy}"


# -- think tags ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "text", "reasoning"),
    [
        ("plain answer", "plain answer", None),
        ("<think>hmm</think>answer", "answer", "hmm"),
        ("\n<think>\nstep 1\nstep 2\n</think>\n\nThe answer is 4.\n", "The answer is 4.", "step 1\nstep 2"),
        ("<think>a</think>x<think>b</think>y", "xy", "a\n\nb"),
        ("<think>cut off by max_tokens", "", "cut off by max_tokens"),
        ("<think></think>just text", "just text", None),
        ("a < b and <thin ice>", "a < b and <thin ice>", None),
        ("text ending in a partial tag <thi", "text ending in a partial tag <thi", None),
        ("reasoning without opening</think>answer", "reasoning without opening</think>answer", None),
        ("<Thinking>a</THINKING>x<reasoning>b</reasoning>y", "xy", "a\n\nb"),
        ("<think>a</thinking>b</think>c", "c", "a</thinking>b"),  # a block ends at its own closing tag
        ("text ending in a partial tag <reaso", "text ending in a partial tag <reaso", None),
    ],
)
def test_split_think(content, text, reasoning):
    assert split_think(content) == (text, reasoning)


def test_field_reasoning_and_tags_combine():
    assert split_think("<think>b</think>ans", reasoning="a") == ("ans", "a\n\nb")


_pieces = st.lists(
    st.sampled_from(["<think>", "</think>", "<", "think", ">", "/", " ", "\n", "a", "bc", "é", "🎉",
                     "<Thinking>", "</thinking>", "ing", "<REASONING>", "</reasoning>", "K", "\u212a"]),
    max_size=30,
)


@given(_pieces, st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=10))
def test_assembler_independent_of_chunking(parts, cuts):
    """Streaming must give exactly the non-streaming result, wherever the network cuts the text."""
    content = "".join(parts)
    whole = split_think(content)
    chunks, i, c = [], 0, 0
    while i < len(content):
        size = cuts[c % len(cuts)]
        chunks.append(content[i : i + size])
        i, c = i + size, c + 1
    seen: list[tuple[str, str]] = []
    asm = ReplyAssembler(lambda kind, text: seen.append((kind, text)))
    for chunk in chunks:
        asm.content(chunk)
    result = asm.finish()
    assert result == whole
    assert "".join(t for k, t in seen if k == "text") == whole[0]
    assert "".join(t for k, t in seen if k == "reasoning") == (whole[1] or "")
    assert "<think>" not in whole[0]


@given(st.text(max_size=60))
def test_split_think_never_throws(content):
    text, reasoning = split_think(content)
    assert isinstance(text, str)
    assert reasoning is None or isinstance(reasoning, str)


# -- backoff and Retry-After -----------------------------------------------------------------------------
def test_backoff_full_jitter_bounds():
    rng = random.Random(1)
    for retry in range(12):
        delay = backoff_delay(retry, 0.5, 20.0, rng)
        assert 0 <= delay <= min(20.0, 0.5 * 2**retry)
    assert backoff_delay(1000, 0.5, 20.0, rng) <= 20.0  # no overflow for absurd retry counts


def test_parse_retry_after_forms():
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    h = httpx.Headers
    assert parse_retry_after(h({"Retry-After": "3"})) == 3.0
    assert parse_retry_after(h({"Retry-After": "1.5"})) == 1.5
    assert parse_retry_after(h({"Retry-After": "-4"})) == 0.0
    assert parse_retry_after(h({"retry-after-ms": "250", "Retry-After": "9"})) == 0.25
    date = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after(h({"Retry-After": date}), now=now) == 30.0
    past = format_datetime(now - timedelta(seconds=30), usegmt=True)
    assert parse_retry_after(h({"Retry-After": past}), now=now) == 0.0
    assert parse_retry_after(h({"Retry-After": "soon"})) is None
    assert parse_retry_after(h({"Retry-After": "nan"})) is None
    assert parse_retry_after(h({})) is None


def test_retry_delay_prefers_server_and_caps_it():
    assert retry_delay(0, 5.0, base_s=1, cap_s=2, retry_after_cap_s=60) == 5.0
    assert retry_delay(0, 500.0, base_s=1, cap_s=2, retry_after_cap_s=60) == 60.0
    assert 0 <= retry_delay(3, None, base_s=1, cap_s=2, retry_after_cap_s=60) <= 2


def test_backoff_jitters_and_doubles_its_ceiling_per_retry():
    """Full jitter: delays vary (so clients that failed together do not retry together), and the
    envelope grows as base * 2**retry (so a backoff that returns 0, or a constant, fails here)."""
    rng = random.Random(7)
    means = []
    for retry in range(6):
        ceiling = 0.5 * 2**retry
        draws = [backoff_delay(retry, 0.5, 1000.0, rng) for _ in range(400)]
        assert all(0 <= d <= ceiling for d in draws)
        assert len({round(d, 9) for d in draws}) > 350, "jitter: the delays differ"
        assert max(draws) > 0.95 * ceiling, "growth: the largest delays reach base * 2**retry"
        means.append(sum(draws) / len(draws))
    assert all(later > 1.5 * earlier for earlier, later in zip(means, means[1:], strict=False))
    capped = [backoff_delay(30, 0.5, 3.0, rng) for _ in range(400)]
    assert max(capped) <= 3.0 and max(capped) > 2.85, "the cap bounds the envelope, jitter stays"
