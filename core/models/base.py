"""The provider contract: messages, sampling parameters, responses, errors, and the Provider ABC.

Everything here is plain data so the runner, the store and the TUI can use it without httpx.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.limits import MAX_STOP, MAX_TEMPERATURE, MAX_TOKENS

Role = Literal["system", "user", "assistant"]

# on_delta(kind, chunk): kind is "text" or "reasoning". A provider that has to retry after it already
# streamed something calls on_delta("reset", "") first, so a viewer can clear what it showed.
DeltaCallback = Callable[[str, str], None]

ErrorKind = Literal[
    "timeout", "connection", "http_429", "http_5xx", "http_4xx", "auth", "malformed", "cancelled"
]


class Message(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True)

    role: Role
    content: str


class SamplingParams(BaseModel):
    """Per-request options. None means "not sent", so the server's own default applies."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    # Bounded so that nan, inf or a typo of a few zeros is refused up front, not sent with every request.
    temperature: float | None = Field(default=None, ge=0, le=MAX_TEMPERATURE, allow_inf_nan=False)
    top_p: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_TOKENS)
    seed: int | None = Field(default=None, ge=-(2**63), le=2**63 - 1)
    stop: list[str] | None = Field(default=None, max_length=MAX_STOP)
    reasoning_effort: str | None = None  # openai-style "low" / "medium" / "high"
    thinking_budget: int | None = Field(default=None, ge=1, le=MAX_TOKENS)  # anthropic-style token budget

    def wants_reasoning(self) -> bool:
        return self.thinking_budget is not None or (
            self.reasoning_effort is not None and self.reasoning_effort.lower() not in _NO_REASONING
        )


# Effort values that mean "do not think" (openai's "none", plus the obvious spellings).
_NO_REASONING = frozenset({"none", "off", "false", "0"})


class ChatRequest(BaseModel):
    """One request as the cache sees it. `provider` and `base_url` are filled by Provider.request()."""

    model_config = ConfigDict(defer_build=True)

    model: str
    messages: list[Message]
    params: SamplingParams = Field(default_factory=SamplingParams)
    provider: str = ""
    base_url: str = ""

    def cache_key(self) -> str:
        # Canonical JSON (sorted keys, unset params dropped) so adding a new optional parameter later
        # does not invalidate existing cache entries. The API key is not part of the request at all.
        payload = {
            "provider": self.provider,
            "base_url": self.base_url.rstrip("/"),
            "model": self.model,
            "messages": [m.model_dump() for m in self.messages],
            "params": self.params.model_dump(exclude_none=True),
        }
        blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class Usage(BaseModel):
    model_config = ConfigDict(defer_build=True)

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None


class ChatResponse(BaseModel):
    """A completed reply. `text` never contains <think> blocks; they are in `reasoning`."""

    model_config = ConfigDict(defer_build=True)

    text: str
    reasoning: str | None = None
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    model: str | None = None
    latency_s: float = 0.0  # wall time of the whole complete() call, retries and backoff included
    retries: int = 0
    replica: str | None = None  # which of the endpoint's base_urls answered, when it has several


class ProviderError(Exception):
    """The only exception providers raise. `message` is one line and never contains an API key."""

    def __init__(self, kind: str, message: str, *, status: int | None = None, retries: int = 0) -> None:
        self.kind = kind
        self.message = " ".join(message.split())  # one line, whatever the server sent
        self.status = status
        self.retries = retries
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"

    def __repr__(self) -> str:
        return f"ProviderError(kind={self.kind!r}, message={self.message!r}, status={self.status!r}, retries={self.retries})"

    def __reduce__(self):  # picklable (process pools, multiprocessing queues) despite keyword-only args
        return (_rebuild_error, (self.kind, self.message, self.status, self.retries))


def _rebuild_error(kind: str, message: str, status: int | None, retries: int) -> ProviderError:
    return ProviderError(kind, message, status=status, retries=retries)


class Provider(ABC):
    """An async chat model. Implementations raise ProviderError only (never httpx or json errors)."""

    name: str  # the model spec, e.g. "openai:gpt-4o"
    kind: str  # "openai" | "anthropic" | "ollama"
    model: str
    base_url: str

    @abstractmethod
    async def complete(
        self,
        request_messages: list[Message],
        params: SamplingParams | None = None,
        on_delta: DeltaCallback | None = None,
    ) -> ChatResponse:
        """Send one chat request. With on_delta the reply is streamed; the final response is the same."""

    @abstractmethod
    async def aclose(self) -> None:
        """Close the connection pool. Safe to call twice."""

    def request(self, messages: list[Message], params: SamplingParams | None = None) -> ChatRequest:
        return ChatRequest(
            model=self.model,
            messages=list(messages),
            params=params or SamplingParams(),
            provider=self.kind,
            base_url=self.base_url,
        )

    def cache_key(self, messages: list[Message], params: SamplingParams | None = None) -> str:
        return self.request(messages, params).cache_key()

    async def __aenter__(self) -> Provider:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
