"""An attempt's cost comes from the configured prices (per endpoint, or per model) and its token counts."""

from __future__ import annotations

import pytest

from core.models.config import ConfigError, load_endpoints
from core.models.prices import attempt_cost


def _endpoints(tmp_path, text: str):
    path = tmp_path / "c.toml"
    path.write_text(text)
    return load_endpoints(env={}, config_path=path)


def test_costs_from_endpoint_and_model_prices(tmp_path) -> None:
    eps = _endpoints(tmp_path, '[openai]\nprice_in_per_mtok = 2.5\nprice_out_per_mtok = 10\n'
                               'prices = {"gpt-mini" = [0.15, 0.6]}\n')
    assert attempt_cost("openai:gpt-4o", 1_000_000, 100_000, eps) == pytest.approx(3.5)
    assert attempt_cost("openai:gpt-mini", 2_000_000, 1_000_000, eps) == pytest.approx(0.9)
    assert attempt_cost("anthropic:claude", 1000, 1000, eps) is None  # no price configured there
    assert attempt_cost("openai:gpt-4o", None, None, eps) is None  # the server reported no usage
    assert attempt_cost("baseline", 10, 10, eps) is None


def test_absurd_prices_are_config_errors(tmp_path) -> None:
    with pytest.raises(ConfigError, match="price_in_per_mtok"):
        _endpoints(tmp_path, "[openai]\nprice_in_per_mtok = -1\n")


def test_a_run_report_shows_its_cost_at_the_configured_prices(tmp_path, monkeypatch) -> None:
    from core.report import with_cost

    report = {"run": {"solver": "openai:m"}, "counts": {"tokens_in": 2_000_000, "tokens_out": 500_000}}
    config = tmp_path / "c.toml"
    config.write_text("[openai]\nprice_in_per_mtok = 1\nprice_out_per_mtok = 4\n")
    monkeypatch.setenv("SEMBENCH_CONFIG", str(config))
    assert with_cost(report)["counts"]["cost_usd"] == pytest.approx(4.0)
    config.write_text("[openai]\nprice_in_per_mtok = 2\nprice_out_per_mtok = 4\n")  # prices change: so does cost
    assert with_cost(report)["counts"]["cost_usd"] == pytest.approx(6.0)
    assert "cost_usd" not in with_cost({**report, "run": {"solver": "baseline"}})["counts"]
