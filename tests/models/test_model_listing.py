"""The model picker's listings come from the endpoints themselves (a real HTTP server on 127.0.0.1):
`/v1/models` for OpenAI-compatible servers, `/api/tags` for Ollama, `/v1/models` for Anthropic; an
endpoint that does not answer, or answers badly, is a listing with an error line, not an exception."""

from __future__ import annotations

import socket

from core.models.config import Endpoint
from core.models.listing import list_all, list_models
from tests.models.fakeserver import FakeServer, Fault

KEY = "sk-listing-test-0123456789abcdef"


def test_each_kind_lists_what_the_server_reports() -> None:
    with FakeServer(api_key=KEY, models=["qwen3:8b", "llama3.2:1b"]) as server:
        listings = list_all(server.endpoints())
        paths = sorted(r.path for r in server.requests)
    assert [ls.kind for ls in listings] == ["anthropic", "ollama", "openai"]
    for listing in listings:
        assert listing.error is None and listing.models == ["llama3.2:1b", "qwen3:8b"]
    assert paths == ["/api/tags", "/v1/models", "/v1/models"]


def test_a_dead_endpoint_is_shown_as_such() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once the socket is closed
    listing = list_models(Endpoint(kind="openai", base_url=f"http://user:pw@127.0.0.1:{port}/v1", api_key=KEY))
    assert listing.models == [] and listing.error.startswith("not answering")
    assert "pw" not in listing.base_url and KEY not in (listing.error or "")


def test_faults_and_wrong_keys_are_errors_not_exceptions() -> None:
    with FakeServer(api_key=KEY) as server:
        server.fail_next(1, Fault.http500())
        assert list_models(server.endpoint("openai")).error == "no model list (HTTP 500)"
        server.fail_next(1, Fault.missing_fields('{"object": "list"}'))
        assert list_models(server.endpoint("openai")).error == "no model list (the reply has no 'data' list)"
        server.fail_next(1, Fault.missing_fields("not json"))
        assert list_models(server.endpoint("ollama")).error.startswith("no model list")
        server.fail_next(1, Fault.drop())
        assert list_models(server.endpoint("openai")).error.startswith("not answering")
        server.fail_next(1, Fault.delay(2.0))
        slow = list_models(server.endpoint("openai"), timeout_s=0.3)
        assert slow.error == "not answering within 0.3 s"


def test_the_cli_lists_served_models(monkeypatch, tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from core.cli import cli

    with FakeServer(models=["m-one", "m-two"]) as server:
        (tmp_path / "empty.toml").write_text("")
        env = {**server.env(), "SEMBENCH_CONFIG": str(tmp_path / "empty.toml")}
        result = CliRunner().invoke(cli, ["models", "--served", "--format", "json"], env=env)
    assert result.exit_code == 0, result.output
    listed = {row["kind"]: row for row in json.loads(result.output)}
    assert listed["openai"]["models"] == ["m-one", "m-two"] and listed["ollama"]["error"] is None
