"""What an attempt cost, when the user configured prices for its endpoint (US dollars per million
tokens, per endpoint or per model: see docs/models-and-runs.md). Computed when shown, from the stored
token counts, so a price set later applies to attempts recorded before."""

from __future__ import annotations

import math
from collections.abc import Mapping

from core.models.config import Endpoint


def price_for(endpoint: Endpoint, model: str) -> tuple[float, float] | None:
    """(in, out) dollars per million tokens for this model, the model's own price first."""
    pair = endpoint.prices.get(model)
    if pair is not None:
        return float(pair[0]), float(pair[1])
    if endpoint.price_in_per_mtok is None and endpoint.price_out_per_mtok is None:
        return None
    return float(endpoint.price_in_per_mtok or 0.0), float(endpoint.price_out_per_mtok or 0.0)


def attempt_cost(solver: str, tokens_in: int | None, tokens_out: int | None,
                 endpoints: Mapping[str, Endpoint]) -> float | None:
    """Dollars for one attempt of `solver` (`kind:model`), or None when no price is configured or the
    server reported no token counts."""
    kind, sep, model = solver.partition(":")
    endpoint = endpoints.get(kind) if sep else None
    if endpoint is None or (tokens_in is None and tokens_out is None):
        return None
    price = price_for(endpoint, model)
    if price is None:
        return None
    cost = ((tokens_in or 0) * price[0] + (tokens_out or 0) * price[1]) / 1_000_000
    return cost if math.isfinite(cost) else None
