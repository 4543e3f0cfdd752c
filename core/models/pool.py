"""A provider's connections: plain `http://` endpoints without a proxy (a local vLLM, Ollama, llama.cpp)
go through core.models.plainhttp, everything else (https, proxies, SEMBENCH_TRANSPORT=aiohttp) through one
aiohttp session per event loop, tuned for many requests in flight (make_pool; why: docs/performance.md,
a model run's CPU per request with each transport, measured side by side).

Why aiohttp and not httpx: measured side by side against a 200 ms local server (tests/bench/
bench_http_clients.py), httpx's pure-Python stack (httpcore, h11, anyio) spends 1.6-12 ms of CPU per
request at 256 in flight (one client: its pool reassigns queued requests in O(requests x connections);
shards of 8 connections: still 1.6 ms) and reaches 4-16% of the ideal throughput, while aiohttp, whose
HTTP parser is in C, spends ~0.2-0.3 ms and stays within a few percent of a hand-written asyncio client.
HTTP/2 would not help here: the local servers this is for (vLLM, llama.cpp, LM Studio, Ollama) speak
HTTP/1.1 in clear text, and the pure-Python h2 stack costs more CPU per request than h11.

Settings, each for a measured or documented reason:
  - the connector's limit equals the endpoint's concurrency, so a request that got past the
    per-endpoint semaphore never queues inside aiohttp;
  - no cookie jar (an API client has no use for cookies, and the jar is consulted on every request);
  - the proxy from the environment (HTTP(S)_PROXY / NO_PROXY, as httpx honoured it) is resolved once
    per pool, not on every request as `trust_env=True` would do;
  - one TLS context for every pool (loading the CA bundle costs ~30 ms).
"""

from __future__ import annotations

import functools
import os
import ssl
from typing import Any
from urllib.parse import urlsplit

from core import __version__
from core.models.aiohttp_lib import aiohttp, complete_contexts
from core.models.config import Endpoint
from core.models.plainhttp import PlainPool


def user_agent() -> str:
    return f"sembench/{__version__} aiohttp/{aiohttp.__version__}"


PLAIN_USER_AGENT = f"sembench/{__version__}"


@functools.cache
def ssl_context() -> ssl.SSLContext:
    """The system's CA store (and SSL_CERT_FILE / SSL_CERT_DIR), plus certifi's bundle when installed."""
    context = ssl.create_default_context()
    try:
        import certifi
    except ImportError:
        return context
    context.load_verify_locations(certifi.where())
    return context


def env_proxy(url: str) -> str | None:
    """The proxy the environment asks for this URL (None for NO_PROXY hosts and loopback)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if host in ("127.0.0.1", "localhost", "::1"):
        return None
    import urllib.request  # here: it imports http.client and email (~15 ms), which a local run never needs

    if urllib.request.proxy_bypass(host):
        return None
    return urllib.request.getproxies().get(parts.scheme)


# A local server's requests go through core.models.plainhttp: a run against one is CPU-bound on the event
# loop's thread, and aiohttp's request machinery was a third of the whole command's CPU (docs/performance.md).
# SEMBENCH_TRANSPORT=aiohttp sends them through aiohttp as before (a server the small client mishandles).
TRANSPORT_ENV = "SEMBENCH_TRANSPORT"


def plain_transport(endpoint: Endpoint) -> bool:
    """Whether the endpoint's requests go through the small plain-HTTP client (core.models.plainhttp):
    every replica is `http://` with no proxy, and SEMBENCH_TRANSPORT does not ask for aiohttp."""
    return (os.environ.get(TRANSPORT_ENV, "").strip().lower() != "aiohttp"
            and all(u.lower().startswith("http://") and env_proxy(u) is None for u in endpoint.replicas))


def needs_aiohttp(endpoint: Endpoint) -> None:
    """Import aiohttp now if the endpoint will use it: when a provider is made, before a run starts its
    threads (core.models.aiohttp_lib imports it cheaper in a process with one thread)."""
    if not plain_transport(endpoint):
        aiohttp.ClientSession  # noqa: B018 - the attribute read is the import


def make_pool(endpoint: Endpoint) -> ClientPool | PlainPool:
    """The connections a provider sends through: the small plain-HTTP client (core.models.plainhttp) when
    every replica is `http://` with no proxy, unless SEMBENCH_TRANSPORT=aiohttp; aiohttp otherwise."""
    return PlainPool(endpoint, PLAIN_USER_AGENT) if plain_transport(endpoint) else ClientPool(endpoint)


class ClientPool:
    """The session a provider sends through, created in (and bound to) the running loop."""

    def __init__(self, endpoint: Endpoint) -> None:
        # Any replica on https makes the pool verify certificates: the connector's `ssl` applies to every
        # https connection it opens, whichever replica comes first in the list.
        https = any(url.lower().startswith("https:") for url in endpoint.replicas)
        if https:
            complete_contexts()  # aiohttp's own defaults, as aiohttp builds them (core.models.aiohttp_lib)
        connector = aiohttp.TCPConnector(
            limit=endpoint.max_concurrency * len(endpoint.replicas), limit_per_host=0, ssl=ssl_context() if https else False,
            keepalive_timeout=60.0,
        )
        # Each replica's own proxy (another host may be behind one, or in NO_PROXY); one lookup when all agree.
        proxies = {base.rstrip("/"): env_proxy(base) for base in endpoint.replicas}
        self.proxy = next(iter(proxies.values())) if len(set(proxies.values())) == 1 else None
        self._proxies = None if len(set(proxies.values())) == 1 else proxies
        self.session = aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            # The read timeout restarts with every chunk (a slow reasoning model still streams);
            # the whole request is bounded by the provider's own deadline.
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=endpoint.connect_timeout_s,
                                          sock_read=endpoint.timeout_s),
            headers={"User-Agent": user_agent()},
            trust_env=False,
        )

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Any:
        """`async with pool.post(...) as response` (an aiohttp.ClientResponse)."""
        return self.session.post(url, data=body, headers=headers, proxy=self.proxy_for(url), allow_redirects=False)

    def proxy_for(self, url: str) -> str | None:
        """The proxy a request to `url` (under one of the replicas) goes through, None for none."""
        if self._proxies is None:
            return self.proxy
        for base, proxy in self._proxies.items():
            if url == base or url.startswith(base + "/"):
                return proxy
        return env_proxy(url)

    @property
    def closed(self) -> bool:
        return self.session.closed

    async def aclose(self) -> None:
        await self.session.close()
