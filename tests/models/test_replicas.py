"""An endpoint with several servers for one model: configured as `base_urls = [...]` or
OPENAI_BASE_URL with commas; requests go to the replica with the fewest in flight, each with its own
concurrency limit; a replica that dies is taken out and the requests go on on the other; the answer says
which replica gave it, and the attempt keeps it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from core.models import make_provider
from core.models.base import ChatResponse, Message
from core.models.config import ConfigError, load_endpoints
from core.models.solver import to_result
from tests.models.fakeserver import FakeServer


def test_replicas_from_the_environment_and_from_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[openai]\nbase_urls = ["http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1/"]\n')
    endpoint = load_endpoints({}, config)["openai"]
    assert endpoint.base_urls == ("http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1")
    assert endpoint.base_url == "http://10.0.0.1:8000/v1"
    env = {"OPENAI_BASE_URL": "http://a:1/v1, http://b:2/v1"}
    assert load_endpoints(env, config)["openai"].replicas == ("http://a:1/v1", "http://b:2/v1")
    assert load_endpoints({"OPENAI_BASE_URL": "http://a:1/v1"}, config)["openai"].replicas == ("http://a:1/v1",)
    config.write_text('[openai]\nbase_urls = ["http://a:1/v1", "ftp://b"]\n')
    with pytest.raises(ConfigError, match="ftp://b"):
        load_endpoints({}, config)


async def test_requests_spread_over_replicas_and_survive_one_dying() -> None:
    first, second = FakeServer(latency_s=0.05).start(), FakeServer(latency_s=0.05).start()
    try:
        urls = (first.base_url("openai"), second.base_url("openai"))
        endpoint = first.endpoint("openai", base_urls=urls, max_concurrency=3, max_retries=6)
        provider = make_provider("openai:fake-model", endpoint)
        gate = asyncio.Semaphore(8)  # more in flight than one replica's limit
        answered: list[tuple[bool, str | None]] = []  # (sent after the second died, replica)
        dead = asyncio.Event()

        async def one(i: int) -> None:
            async with gate:
                after = dead.is_set()
                reply = await provider.complete([Message(role="user", content=f"question {i}")])
                answered.append((after, reply.replica))
                if len(answered) == 12 and not dead.is_set():
                    await asyncio.to_thread(second.stop)  # dies with requests in flight
                    dead.set()

        await asyncio.gather(*(one(i) for i in range(48)))
        await provider.aclose()
    finally:
        first.stop()
        second.stop()
    assert len(answered) == 48  # every request answered, none lost with the replica that died
    before = [r for after, r in answered if not after]
    assert {r for r in before} == set(urls)  # both served while both were up
    assert {r for after, r in answered if after} == {urls[0]}  # then only the survivor
    assert first.max_in_flight <= 3 and second.max_in_flight <= 3  # each replica's own limit
    assert first.max_in_flight + second.max_in_flight > 3  # ...and together more than one replica's


def test_the_attempt_records_which_replica_answered() -> None:
    result = to_result(ChatResponse(text="42", replica="http://10.0.0.2:8000/v1"), 0.1)
    assert result.usage["replica"] == "http://10.0.0.2:8000/v1"
    assert "replica" not in to_result(ChatResponse(text="42"), 0.1).usage
