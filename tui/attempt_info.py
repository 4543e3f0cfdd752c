"""What one attempt cost and how it ended, as the attempts list (Runs › run) and the History tab show it:
tokens in/out, latency, the server's finish reason and, when prices are configured for the endpoint, the
cost (core.models.prices, computed when shown, so a price set later applies to old attempts too)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tui.data import fmt_seconds, parse_json


def configured_endpoints() -> dict[str, Any]:
    """The configured endpoints, or none when the config is broken (the instance view says why)."""
    try:
        from core.models.config import load_endpoints

        return dict(load_endpoints())
    except Exception:  # ConfigError, an unreadable file: costs are simply not shown
        return {}


def usage_of(row: Mapping[str, Any]) -> dict[str, Any]:
    usage = parse_json(row.get("usage"))
    return usage if isinstance(usage, dict) else {}


def tokens_cell(row: Mapping[str, Any]) -> str:
    tokens_in, tokens_out = row.get("tokens_in"), row.get("tokens_out")
    if tokens_in is None and tokens_out is None:
        return ""
    return f"{'-' if tokens_in is None else tokens_in}/{'-' if tokens_out is None else tokens_out}"


def latency_cell(row: Mapping[str, Any]) -> str:
    return fmt_seconds(row.get("elapsed_s"))


def finish_cell(row: Mapping[str, Any]) -> str:
    reason = usage_of(row).get("finish_reason")
    return str(reason) if reason else ""


def cost_of(row: Mapping[str, Any], endpoints: Mapping[str, Any]) -> float | None:
    from core.models.prices import attempt_cost

    try:
        return attempt_cost(str(row.get("solver") or ""), row.get("tokens_in"), row.get("tokens_out"), endpoints)
    except Exception:  # a price written by another version: no cost, never a crash
        return None


def cost_cell(row: Mapping[str, Any], endpoints: Mapping[str, Any]) -> str:
    cost = cost_of(row, endpoints)
    return "" if cost is None else f"${cost:.4f}"
