"""ModelSolver: a provider behind the Solver interface, with the response cache.

Cache rule (documented in `is_deterministic`): a request is cached only when repeating it should give
the same reply — temperature 0, or a seed the provider honours (openai/ollama; the Anthropic API has
no seed). Entries are keyed by the request as sent, `ChatRequest.cache_key()` (provider, base URL,
model, messages, sampling params; never the API key), so an identical deterministic request is never
paid twice: a rerun of the same configuration asks the server nothing, and with temperature 0 and no
seed the K samples of an instance are one request (asked once, recorded K times as cached). Identical
requests in flight at the same moment share one reply too.

A reply is cached only when it can be stored exactly as received: one holding a secret (a server echoing
the API key) or lone surrogates is not cached (see `cache_entry`), so a replay is always what the
server sent and the cache never holds a key.

With a seed, sample k is sent with seed + k: K samples with one fixed seed would be K copies of one
answer, while seed + k keeps every sample reproducible and the samples distinct (and their keys apart).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from core.canonical import storable
from core.errors import UserError
from core.instance import Instance
from core.models import ConfigError, Endpoint, make_provider, parse_model_spec, secrets
from core.models.base import ChatResponse, Message, Provider, ProviderError, SamplingParams
from core.models.config import known_secrets
from core.solver_base import DeltaCallback, Solver, SolveResult
from core.store import LogStore
from core.trace import Prompt

# Providers whose API accepts a seed; for the others a seed does not make a request repeatable.
SEEDED_KINDS = frozenset({"openai", "ollama"})
# Prompts whose Message models a solver keeps (a snapshot's worth; each entry shares its strings with the prompt).
MESSAGE_MEMO_PROMPTS = 4096


def is_deterministic(kind: str, params: SamplingParams) -> bool:
    """Whether a reply may be reused: temperature 0, or a seed the provider honours."""
    if params.temperature is not None and params.temperature == 0:
        return True
    return params.seed is not None and kind in SEEDED_KINDS


def resolve_endpoint(
    spec: str, endpoints: Mapping[str, Endpoint] | Endpoint | None = None, max_concurrency: int | None = None
) -> Endpoint:
    """The endpoint for a spec, with an explicit concurrency overriding the configured limit."""
    from core.models.config import load_endpoints

    try:
        kind, _model = parse_model_spec(spec)
        if isinstance(endpoints, Endpoint):
            endpoint: Endpoint | None = endpoints
        else:
            endpoint = (load_endpoints() if endpoints is None else endpoints).get(kind)
    except (ValueError, ConfigError) as exc:  # ConfigError is a ValueError; both are user input
        raise UserError(str(exc)) from None
    if endpoint is None:
        raise UserError(f"no endpoint configured for '{kind}'")
    if max_concurrency is not None and max_concurrency != endpoint.max_concurrency:
        # The user asked for C requests in flight; the endpoint's own limit (default 8) would cap it.
        endpoint = endpoint.model_copy(update={"max_concurrency": max_concurrency})
    return endpoint


class ModelSolver(Solver):
    """Answers with a chat model. Errors come back in the SolveResult, never raised."""

    def __init__(
        self,
        spec: str,
        params: SamplingParams | None = None,
        endpoints: Mapping[str, Endpoint] | Endpoint | None = None,
        cache: LogStore | None = None,
        *,
        max_concurrency: int | None = None,
        use_cache: bool = True,
        provider: Provider | None = None,
        sample: int = 0,
    ) -> None:
        self.spec = spec
        self.params = params or SamplingParams()
        self.cache = cache if use_cache else None
        self.sample = sample
        # key -> the reply of the identical request in flight (shared by the for_sample clones), or
        # None when that request ended without one (cancelled): the waiter then asks itself.
        self._inflight: dict[str, asyncio.Future[ChatResponse | ProviderError | None]] = {}
        # (role, content) pairs -> their Message models, shared by the clones: a run asks each prompt
        # once per sample, and building the models took ~7 µs of the event loop per request
        self._message_memo: dict[tuple[tuple[str, str], ...], list[Message]] = {}
        if provider is None:
            endpoint = resolve_endpoint(spec, endpoints, max_concurrency)
            try:
                provider = make_provider(spec, endpoint)
            except ValueError as exc:
                raise UserError(str(exc)) from None
            # Fail before the first request when a hosted API has no key, instead of N identical errors.
            reason = getattr(provider, "missing_key_message", lambda: None)()
            if reason:
                raise UserError(reason)
        self.provider = provider

    @property
    def kind(self) -> str:
        return self.provider.kind

    @property
    def base_url(self) -> str:
        return self.provider.base_url

    def for_sample(self, sample: int) -> ModelSolver:
        """The same model and connection pool, asking for sample `sample` (cache key, seed + sample)."""
        if sample == self.sample:
            return self
        clone = object.__new__(ModelSolver)
        clone.__dict__.update(self.__dict__)
        clone.sample = sample
        return clone

    def sample_params(self) -> SamplingParams:
        if self.params.seed is None or self.sample == 0:
            return self.params
        return self.params.model_copy(update={"seed": self.params.seed + self.sample})

    def cache_key(self, messages: list[Message]) -> str | None:
        params = self.sample_params()
        if self.cache is None or not is_deterministic(self.kind, params):
            return None
        if self.kind not in SEEDED_KINDS:
            params = params.model_copy(update={"seed": None})  # never sent, so not part of the request
        return self.provider.cache_key(messages, params)

    def _legacy_key(self, key: str) -> str:
        # Before the key was the request as sent, it carried the sample index; sample 0's entry (or,
        # with a seed, this sample's) holds the same reply, so an upgrade does not pay for it again.
        return f"{key}:{self.sample if self.params.seed is not None else 0}"

    def _cached(self, key: str) -> ChatResponse | None:
        assert self.cache is not None
        for candidate in (key, self._legacy_key(key)):
            hit = self.cache.cache_get(candidate)
            if hit is None:
                continue
            try:
                return ChatResponse.model_validate(hit)
            except ValidationError:  # an entry written by another version: ask again, then overwrite
                return None
        return None

    async def solve(self, instance: Instance, prompt: Prompt, on_delta: DeltaCallback | None = None) -> SolveResult:
        start = time.perf_counter()
        messages = self._messages(prompt)
        key = self.cache_key(messages)
        if key is None:
            return await self._ask(messages, on_delta, start)
        while True:  # the cache, then an identical request in flight, then the server
            cached = self._cached(key)
            if cached is not None:
                return replay(cached, on_delta, start)
            pending = self._inflight.get(key)
            if pending is None:
                break
            # shield: a waiter being cancelled must not cancel the request other solves wait on
            shared = await asyncio.shield(pending)
            if isinstance(shared, ChatResponse):
                return replay(shared, on_delta, start)
            if isinstance(shared, ProviderError):
                return error_result(shared, start)
        future: asyncio.Future[ChatResponse | ProviderError | None] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        outcome: ChatResponse | ProviderError | None = None
        try:
            outcome = await self._fetch(messages, on_delta)
            if isinstance(outcome, ChatResponse) and self.cache is not None:
                entry = cache_entry(outcome)
                if entry is not None:
                    self.cache.cache_put(key, self.spec, entry)
        except Exception as exc:  # a provider bug must not take a whole run down; it is recorded
            return bug_result(exc, start)
        finally:
            del self._inflight[key]
            future.set_result(outcome)
        if isinstance(outcome, ProviderError):
            return error_result(outcome, start)
        return to_result(outcome, time.perf_counter() - start)

    def _messages(self, prompt: Prompt) -> list[Message]:
        """The prompt's messages as models (a new list each time: the caller may change it)."""
        pairs = tuple((m["role"], m["content"]) for m in prompt.messages)
        memo = self._message_memo
        messages = memo.get(pairs)
        if messages is None:
            messages = [Message(role=role, content=content) for role, content in pairs]  # type: ignore[arg-type]
            if len(memo) >= MESSAGE_MEMO_PROMPTS:
                memo.pop(next(iter(memo)))  # the oldest
            memo[pairs] = messages
        return list(messages)

    async def _ask(self, messages: list[Message], on_delta: DeltaCallback | None, start: float) -> SolveResult:
        """Uncached: straight to the provider."""
        try:
            outcome = await self._fetch(messages, on_delta)
        except Exception as exc:
            return bug_result(exc, start)
        if isinstance(outcome, ProviderError):
            return error_result(outcome, start)
        return to_result(outcome, time.perf_counter() - start)

    async def _fetch(self, messages: list[Message], on_delta: DeltaCallback | None) -> ChatResponse | ProviderError:
        try:
            return await self.provider.complete(messages, self.sample_params(), on_delta)
        except ProviderError as exc:
            return exc

    async def aclose(self) -> None:
        await self.provider.aclose()


def cache_entry(response: ChatResponse) -> dict[str, Any] | None:
    """What the response cache stores for a reply, or None when the reply may not be cached: one that
    holds a secret (a server echoing the key) or text that cannot be stored as it is (lone surrogates).
    A cache replay is always exactly what the server sent, and never contains a key."""
    entry = response.model_dump(mode="json")
    if storable(entry) != entry or secrets.contains_secret(entry, known_secrets()):
        return None
    return entry


def replay(response: ChatResponse, on_delta: DeltaCallback | None, start: float) -> SolveResult:
    """A reply already paid for (cache, or an identical request in flight), shown as if streamed."""
    if on_delta is not None:
        if response.reasoning:
            on_delta("reasoning", response.reasoning)
        on_delta("text", response.text)
    response = response.model_copy(update={"retries": 0})
    result = to_result(response, time.perf_counter() - start)
    result.cached = True
    return result


def error_result(exc: ProviderError, start: float) -> SolveResult:
    return SolveResult(
        error=secrets.redact(str(exc), known_secrets()), error_kind=exc.kind, retries=exc.retries, usage={"retries": exc.retries},
        elapsed_s=time.perf_counter() - start,
    )


def bug_result(exc: Exception, start: float) -> SolveResult:
    return SolveResult(
        error=secrets.redact(f"{type(exc).__name__}: {' '.join(str(exc).split())}", known_secrets()),
        error_kind="solver",
        elapsed_s=time.perf_counter() - start,
    )


def to_result(response: ChatResponse, elapsed_s: float) -> SolveResult:
    usage: dict[str, Any] = response.usage.model_dump()
    # Not tokens, but they explain an answer (finish_reason "length" = cut off) and belong with it.
    usage["finish_reason"] = response.finish_reason
    usage["model"] = response.model
    usage["retries"] = response.retries  # the attempt record has no column for it; usage keeps it
    if response.replica:
        usage["replica"] = response.replica  # which of several servers of the model answered
    # Metadata is redacted; the text and reasoning go to extraction exactly as the server sent them
    # (their stored copies are redacted by AttemptRecord.row()).
    return SolveResult(
        response=response.text, reasoning=response.reasoning, usage=secrets.scrub(usage, known_secrets()),
        elapsed_s=elapsed_s,
        retries=response.retries,
    )
