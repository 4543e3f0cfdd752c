"""Which models an endpoint serves, as the endpoint itself reports them: `GET /models` for
OpenAI-compatible servers (vLLM, llama.cpp, LM Studio, Ollama's /v1), `GET /api/tags` for Ollama,
`GET /v1/models` for Anthropic. For the workbench's model picker: an endpoint that does not answer is a
listing with an error line, never an exception, and free text stays allowed.

Only endpoints the user configured (a key or a base URL) are asked, and the local Ollama default (a
loopback address): a built-in hosted default (api.openai.com, api.anthropic.com) is never contacted, not
even looked up, because nobody asked for it."""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel

from core.models.config import Endpoint, safe_url
from core.models.secrets import redact

LIST_TIMEOUT_S = 3.0  # a picker waits this long at most per endpoint
MAX_MODELS = 2000
MAX_BODY_BYTES = 4 * 1024 * 1024

PATHS = {"openai": "/models", "ollama": "/api/tags", "anthropic": "/v1/models"}
NOT_CONFIGURED = "no endpoint configured: `sembench models` explains how"


class ModelListing(BaseModel):
    """One endpoint's models, or why there are none."""

    kind: str
    base_url: str  # without credentials
    models: list[str] = []
    error: str | None = None


def _headers(endpoint: Endpoint) -> dict[str, str]:
    key = endpoint.key()
    if endpoint.kind == "anthropic":
        return {"anthropic-version": "2023-06-01", **({"x-api-key": key} if key else {})}
    return {"Authorization": f"Bearer {key}"} if key else {}


def _names(kind: str, body: Any) -> list[str]:
    if not isinstance(body, dict):
        raise ValueError("the reply is not a JSON object")
    items = body.get("models") if kind == "ollama" else body.get("data")
    if not isinstance(items, list):
        raise ValueError(f"the reply has no '{'models' if kind == 'ollama' else 'data'}' list")
    field = "name" if kind == "ollama" else "id"
    names = [item.get(field) for item in items if isinstance(item, dict)]
    return sorted({n for n in names if isinstance(n, str) and n and len(n) <= 200})[:MAX_MODELS]


def list_models(endpoint: Endpoint, timeout_s: float = LIST_TIMEOUT_S) -> ModelListing:
    url = endpoint.base_url.rstrip("/") + PATHS.get(endpoint.kind, "/models")
    shown = safe_url(endpoint.base_url)
    key = endpoint.key()
    try:
        with httpx.Client(timeout=timeout_s, follow_redirects=False) as client:
            response = client.get(url, headers=_headers(endpoint))
        if response.status_code != 200:
            raise ValueError(f"HTTP {response.status_code}")
        if len(response.content) > MAX_BODY_BYTES:
            raise ValueError("the reply is too large")
        models = _names(endpoint.kind, response.json())
    except httpx.TimeoutException:
        return ModelListing(kind=endpoint.kind, base_url=shown, error=f"not answering within {timeout_s:g} s")
    except httpx.HTTPError as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        return ModelListing(kind=endpoint.kind, base_url=shown,
                            error=redact(f"not answering ({detail})", (key,) if key else ()))
    except ValueError as exc:  # json.JSONDecodeError is a ValueError too
        return ModelListing(kind=endpoint.kind, base_url=shown,
                            error=redact(f"no model list ({exc})", (key,) if key else ()))
    return ModelListing(kind=endpoint.kind, base_url=shown, models=models)


def on_this_machine(url: str) -> bool:
    """A loopback address (`localhost`, 127.0.0.0/8, ::1): asking it never leaves the machine."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def may_ask(endpoint: Endpoint) -> bool:
    """Whether a listing may contact the endpoint unasked: configured, or every address on this machine."""
    return endpoint.configured or all(on_this_machine(url) for url in endpoint.replicas)


def list_all(endpoints: dict[str, Endpoint], timeout_s: float = LIST_TIMEOUT_S) -> list[ModelListing]:
    """Every endpoint's listing, asked one after another (a picker runs this in a worker); one that is
    not configured (`may_ask`) is not contacted and says how to configure it."""
    return [list_models(ep, timeout_s) if may_ask(ep) else
            ModelListing(kind=ep.kind, base_url=safe_url(ep.base_url), error=NOT_CONFIGURED)
            for _, ep in sorted(endpoints.items())]
