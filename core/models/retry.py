"""Backoff, Retry-After, and the per-endpoint concurrency registry."""

from __future__ import annotations

import asyncio
import random
import weakref
from datetime import UTC, datetime
from typing import Protocol


class Headers(Protocol):
    """Case-insensitive response headers (aiohttp's, httpx's, or a test's)."""

    def get(self, key: str, default: None = None) -> str | None: ...


def backoff_delay(retry: int, base_s: float, cap_s: float, rng: random.Random | None = None) -> float:
    """Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2**retry)].

    Full jitter spreads a burst of clients that all got 429 at once, instead of having them retry in
    lockstep and collide again.
    """
    ceiling = min(cap_s, base_s * (2 ** min(retry, 62)))
    return (rng or random).uniform(0.0, ceiling)


def parse_retry_after(headers: Headers, now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms`, or `Retry-After` as seconds or an HTTP date."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime  # here: the email package is ~5 ms of every start-up

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def retry_delay(
    retry: int,
    retry_after: float | None,
    *,
    base_s: float,
    cap_s: float,
    retry_after_cap_s: float,
    rng: random.Random | None = None,
) -> float:
    if retry_after is not None:
        return min(retry_after, retry_after_cap_s)
    return backoff_delay(retry, base_s, cap_s, rng)


# Semaphores belong to one event loop, so the registry is per loop; a finished loop's entry goes
# away with it. Keyed by base URL: every provider talking to the same server shares the limit.
_SEMAPHORES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)


def endpoint_semaphore(base_url: str, limit: int) -> asyncio.Semaphore:
    """The shared limiter for base_url in the running loop. The first provider to ask sets the limit."""
    loop = asyncio.get_running_loop()
    per_loop = _SEMAPHORES.setdefault(loop, {})
    key = base_url.rstrip("/")
    sem = per_loop.get(key)
    if sem is None:
        sem = per_loop[key] = asyncio.Semaphore(max(1, limit))
    return sem
