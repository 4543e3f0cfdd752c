"""Model providers: `openai:MODEL`, `anthropic:MODEL`, `ollama:MODEL` over async HTTP (aiohttp).

    provider = make_provider("ollama:qwen3:8b")
    reply = await provider.complete([Message(role="user", content="hi")], SamplingParams(temperature=0))
    await provider.aclose()

Providers raise ProviderError only. Concurrency is limited per base URL across all providers in a loop.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.models.base import (
        ChatRequest,
        ChatResponse,
        DeltaCallback,
        Message,
        Provider,
        ProviderError,
        SamplingParams,
        Usage,
    )
    from core.models.config import KINDS, ConfigError, Endpoint, describe_endpoints, load_endpoints

# The data types and the config are imported on first use, not with the package: importing any
# submodule (core.models.secrets, which every error line's redaction uses) runs this file, and the
# types pull in pydantic (~0.15-0.25 s of a CLI process that only prints an error).
_LAZY = {
    **dict.fromkeys(("ChatRequest", "ChatResponse", "DeltaCallback", "Message", "Provider", "ProviderError",
                     "SamplingParams", "Usage"), "core.models.base"),
    **dict.fromkeys(("KINDS", "ConfigError", "Endpoint", "describe_endpoints", "load_endpoints"),
                    "core.models.config"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:  # `from core.models import secrets` then imports the submodule
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "KINDS",
    "ChatRequest",
    "ChatResponse",
    "ConfigError",
    "DeltaCallback",
    "Endpoint",
    "Message",
    "Provider",
    "ProviderError",
    "SamplingParams",
    "Usage",
    "describe_endpoints",
    "load_endpoints",
    "make_provider",
    "parse_model_spec",
]


def parse_model_spec(spec: str) -> tuple[str, str]:
    """`kind:model` -> (kind, model). Only the first colon splits: `ollama:qwen3:8b` -> ("ollama", "qwen3:8b")."""
    from core.models.config import KINDS

    if not isinstance(spec, str) or ":" not in spec:
        raise ValueError(f"bad model spec {spec!r}: expected KIND:MODEL with KIND one of {', '.join(KINDS)}")
    kind, model = spec.split(":", 1)
    kind = kind.strip().lower()
    model = model.strip()
    if kind not in KINDS:
        raise ValueError(
            f"bad model spec {spec!r}: unknown provider '{kind}' (use one of {', '.join(KINDS)})"
        )
    if not model:
        raise ValueError(f"bad model spec {spec!r}: missing model name after '{kind}:'")
    return kind, model


def provider_class(kind: str) -> type[Provider]:
    # Imported here so `import core.models` stays light for code that only needs the data types.
    from core.models.config import KINDS

    if kind == "openai":
        from core.models.openai import OpenAIProvider

        return OpenAIProvider
    if kind == "anthropic":
        from core.models.anthropic import AnthropicProvider

        return AnthropicProvider
    if kind == "ollama":
        from core.models.ollama import OllamaProvider

        return OllamaProvider
    raise ValueError(f"unknown provider '{kind}' (use one of {', '.join(KINDS)})")


def make_provider(
    spec: str, endpoints: Mapping[str, Endpoint] | Endpoint | None = None, **options: Any
) -> Provider:
    """A provider for a model spec. `endpoints` is a {kind: Endpoint} map (default: load_endpoints(),
    i.e. environment + config file) or one Endpoint of the spec's kind.

    `options` go to the provider constructor (`sleep=`, `rng=`), mostly for tests.
    """
    from core.models.config import Endpoint, load_endpoints

    kind, model = parse_model_spec(spec)
    if isinstance(endpoints, Endpoint):
        endpoint: Endpoint | None = endpoints
        if endpoints.kind != kind:
            raise ValueError(f"model spec {spec!r} is '{kind}' but the endpoint given is '{endpoints.kind}'")
    else:
        endpoint = (load_endpoints() if endpoints is None else endpoints).get(kind)
    if endpoint is None:
        raise ValueError(f"no endpoint configured for '{kind}'")
    return provider_class(kind)(model, endpoint, **options)  # type: ignore[call-arg]
