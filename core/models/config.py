"""Where each provider kind lives: base URL, key, limits. From the environment and a TOML file.

Precedence: environment variable > config file > built-in default. The config file
(`$SEMBENCH_CONFIG`, else `$XDG_CONFIG_HOME/sembench/config.toml`) looks like:

    [openai]
    base_url = "http://localhost:8000/v1"
    api_key_env = "VLLM_KEY"      # read the key from another variable (or `api_key = "..."`)
    max_concurrency = 16
    timeout_s = 600               # read timeout: the longest silence between two bytes of a reply
    request_deadline_s = 900      # the whole request, retries included, never takes longer than this
    max_retries = 5

Keys are SecretStr and only ever leave this module as "set" / "not set"; every Endpoint registers its key
with `core.models.secrets`, which keeps real-looking keys out of everything Sembench writes. A key is stripped of surrounding
whitespace (a trailing newline from `$(cat keyfile)`); one with other control or non-ASCII characters
(a stray paste) is refused here, naming where it came from, because it cannot be sent in an HTTP header.
"""

from __future__ import annotations

import os
import time
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from core.limits import MAX_CONCURRENCY
from core.models import secrets
from core.paths import default_config_path

KINDS = ("openai", "anthropic", "ollama")

DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "ollama": "http://localhost:11434",
}
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL", "ollama": "OLLAMA_HOST"}
API_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "ollama": None}

# A local Ollama serves a few requests at a time (OLLAMA_NUM_PARALLEL); hosted APIs take more.
DEFAULT_CONCURRENCY = {"openai": 8, "anthropic": 8, "ollama": 2}
DAY_S = 86400.0


class ConfigError(ValueError):
    """A bad config file or value; the message is one line and names the file and field."""


class Endpoint(BaseModel):
    """One server and how to talk to it. Retry timings are here so tests can make them tiny."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    kind: str
    base_url: str
    # Replicas serving the same model (`base_urls = [...]`, or OPENAI_BASE_URL with commas): requests go
    # to the one with the fewest in flight, each with max_concurrency of its own (core.models.replicas).
    # The first is `base_url` (cache keys and messages name it); empty when there is only one.
    base_urls: tuple[str, ...] = ()
    api_key: SecretStr | None = None
    # Every number has an upper bound: a typo (an extra zero or three) is an error, not 10^9 connections.
    max_concurrency: int = Field(default=8, ge=1, le=MAX_CONCURRENCY)
    timeout_s: float = Field(default=600.0, gt=0, le=DAY_S)  # read timeout: reasoning models think for minutes
    connect_timeout_s: float = Field(default=10.0, gt=0, le=DAY_S)
    max_retries: int = Field(default=4, ge=0, le=100)
    backoff_base_s: float = Field(default=0.5, ge=0, le=DAY_S)
    backoff_cap_s: float = Field(default=20.0, ge=0, le=DAY_S)
    retry_after_cap_s: float = Field(default=60.0, ge=0, le=DAY_S)  # a server asking for an hour gets this
    max_response_bytes: int = Field(default=32 * 1024 * 1024, ge=1024, le=1024**3)
    # The read timeout restarts with every byte, so a server trickling a reply could hold a request
    # forever; this bounds the whole call (retries and backoff included).
    request_deadline_s: float = Field(default=900.0, gt=0, le=7 * DAY_S)
    # Prices in US dollars per million tokens, for the cost shown beside an attempt (core.models.prices):
    # one pair for every model of the endpoint, and/or `prices = {"MODEL" = [IN, OUT]}` per model.
    price_in_per_mtok: float | None = Field(default=None, ge=0, le=1e6)
    price_out_per_mtok: float | None = Field(default=None, ge=0, le=1e6)
    prices: dict[str, tuple[float, float]] = Field(default_factory=dict, max_length=10_000)
    # Where each setting came from ("env OPENAI_BASE_URL", "config PATH", "default"), for `sembench models`.
    sources: tuple[tuple[str, str], ...] = ()

    def model_post_init(self, _context: Any) -> None:
        # A process that may send this key scrubs it from everything it writes (core.models.secrets).
        if self.api_key is not None:
            secrets.register(self.api_key.get_secret_value())

    @property
    def replicas(self) -> tuple[str, ...]:
        return self.base_urls or (self.base_url,)

    @property
    def has_key(self) -> bool:
        return self.api_key is not None and bool(self.api_key.get_secret_value())

    @property
    def configured(self) -> bool:
        """The user named this endpoint: a key, or a base URL from the environment or the config file.
        Nothing contacts an endpoint that is only a built-in default unless a request names it."""
        return self.has_key or self.source("base_url") != "default"

    def key(self) -> str | None:
        return self.api_key.get_secret_value() if self.has_key else None  # type: ignore[union-attr]

    def source(self, name: str) -> str:
        return dict(self.sources).get(name, "default")

    def describe(self) -> dict[str, Any]:
        """Safe to print or store: no key, no credentials embedded in the URL."""
        shown = {
            "kind": self.kind,
            "base_url": safe_url(self.base_url),
            **({"base_urls": [safe_url(u) for u in self.base_urls]} if self.base_urls else {}),
            "api_key": "set" if self.has_key else "not set",
            "max_concurrency": self.max_concurrency,
            "timeout_s": self.timeout_s,
            "connect_timeout_s": self.connect_timeout_s,
            "request_deadline_s": self.request_deadline_s,
            "max_retries": self.max_retries,
        }
        shown["sources"] = {name: self.source(name) for name in shown if name not in ("kind", "base_urls")}
        return shown


def safe_url(url: str) -> str:
    """The URL without user:password@, which some people put in base URLs."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def normalize_ollama_host(host: str) -> str:
    """OLLAMA_HOST may be `host`, `host:port`, `:port` or a full URL; the server default port is 11434."""
    host = host.strip()
    if "://" not in host:
        host = "http://" + host
    parts = urlsplit(host)
    hostname = parts.hostname or "localhost"
    if ":" in hostname:  # IPv6 literal
        hostname = f"[{hostname}]"
    port = parts.port or (443 if parts.scheme == "https" else 11434)
    return urlunsplit((parts.scheme, f"{hostname}:{port}", parts.path.rstrip("/"), "", ""))


def _read_config(path: Path, explicit: bool) -> dict[str, Any]:
    if not path.exists():
        if explicit:
            raise ConfigError(f"{path}: config file not found")
        return {}
    if not path.is_file():  # a device never ends (/dev/zero fills the memory), a FIFO blocks until written to
        from core.folders import kind_of

        raise ConfigError(f"{path}: cannot read config: not a regular file ({kind_of(path)})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {' '.join(str(exc).split())}") from None
    for kind, section in data.items():
        if kind in KINDS and not isinstance(section, dict):
            raise ConfigError(f"{path}: [{kind}] must be a table")
    return data


def load_endpoints(
    env: Mapping[str, str] | None = None, config_path: str | Path | None = None
) -> dict[str, Endpoint]:
    """One Endpoint per provider kind."""
    env = os.environ if env is None else env
    explicit = config_path is not None or bool(env.get("SEMBENCH_CONFIG"))
    path = Path(config_path) if config_path is not None else default_config_path(env)
    data = _read_config(path, explicit)
    endpoints: dict[str, Endpoint] = {}
    for kind in KINDS:
        section = dict(data.get(kind, {}))
        if "sources" in section:  # computed below, not a setting
            raise ConfigError(f"{path}: [{kind}]: sources: Extra inputs are not permitted")
        key_env = section.pop("api_key_env", None) or API_KEY_ENV[kind]
        file_key = section.pop("api_key", None)
        file_url = section.pop("base_url", None)
        file_urls = section.pop("base_urls", None)
        url_env = BASE_URL_ENV[kind]
        source = url_env if env.get(url_env) else f"{path}: [{kind}] base_url"
        if file_urls is not None and (not isinstance(file_urls, list) or not file_urls
                                      or not all(isinstance(u, str) and u.strip() for u in file_urls)):
            raise ConfigError(f"{path}: [{kind}] base_urls must be a non-empty list of URLs")
        if file_urls is not None and file_url is not None:
            raise ConfigError(f"{path}: [{kind}] has both base_url and base_urls; keep one")
        if file_urls is not None:
            file_url = ",".join(file_urls)
            source = f"{path}: [{kind}] base_urls"
        base_url = env.get(url_env) or file_url or DEFAULT_BASE_URLS[kind]
        sources = {name: f"config {path}" for name in section}
        sources["base_url"] = f"env {url_env}" if env.get(url_env) else f"config {path}" if file_url else "default"
        api_key, sources["api_key"] = _api_key(env, key_env, file_key, path, kind)
        urls = [u.strip() for u in str(base_url).split(",") if u.strip()] or [DEFAULT_BASE_URLS[kind]]
        for i, url in enumerate(urls):
            if kind == "ollama":
                urls[i] = normalize_ollama_host(url)
            elif urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
                # Caught here, once, rather than as a connection error on every request.
                raise ConfigError(f"{source}: {safe_url(url)!r} is not an http:// or https:// URL")
            urls[i] = urls[i].rstrip("/")
        if len(set(urls)) != len(urls):
            raise ConfigError(f"{source}: the same URL is given twice")
        base_url = urls[0]
        section.setdefault("max_concurrency", DEFAULT_CONCURRENCY[kind])
        try:
            endpoints[kind] = Endpoint(
                kind=kind,
                base_url=str(base_url).rstrip("/"),
                base_urls=tuple(urls) if len(urls) > 1 else (),
                api_key=SecretStr(api_key) if api_key else None,
                sources=tuple(sources.items()),
                **section,
            )
        except (ValidationError, TypeError) as exc:
            raise ConfigError(f"{path}: [{kind}]: {_first_error(exc)}") from None
    return endpoints


def _api_key(
    env: Mapping[str, str], key_env: str | None, file_key: Any, path: Path, kind: str
) -> tuple[str | None, str]:
    """The key and where it came from. Messages name the variable or file, never the key itself."""
    if key_env and env.get(key_env, "").strip():
        key, where, source = env[key_env], key_env, f"env {key_env}"
    elif file_key is not None:
        if not isinstance(file_key, str):
            raise ConfigError(f"{path}: [{kind}] api_key must be a string")
        key, where, source = file_key, f"{path}: [{kind}] api_key", f"config {path}"
    else:
        return None, "not set"
    key = key.strip()
    if not key:
        return None, "not set"
    if not (key.isascii() and key.isprintable()):
        raise ConfigError(
            f"{where}: the API key contains a control or non-ASCII character (a stray paste?) "
            "and cannot be sent in an HTTP header"
        )
    return key, source


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        return f"{loc}: {err['msg']}"  # pydantic's msg does not echo the input value, so no key leaks
    return " ".join(str(exc).split())


_PATH_VARS = ("SEMBENCH_CONFIG", "XDG_CONFIG_HOME", "HOME")  # where the config file is
# The config file is looked at (a stat) at most this often; the environment on every call. Why: a
# stat on the event loop's thread lets go of the GIL, and the writer thread takes it each time; at 256
# requests in flight that measured as 0.80 -> 0.83 of the ideal throughput and 0.05 ms of CPU per
# request. What it cannot miss: a key is only ever echoed by a server it was sent to, and a provider's
# key is registered when its endpoint is built, before any request; a key added to the file during a
# run is known within this time. Another config path (SEMBENCH_CONFIG, XDG_CONFIG_HOME, HOME) is
# looked at at once.
CONFIG_STAT_EVERY_S = 0.25
_watch: dict[str, Any] = {"config": None, "vars": (), "values": None, "where": None, "path": None, "last": None}


def known_secrets() -> tuple[str, ...]:
    """Every secret this process knows (core.models.secrets.known()), after registering the keys the
    environment and the config file configure now. Cheap enough to call for every stored row: the
    config file is read again only when it changes, and the endpoints are loaded again only when one of
    the variables that can hold a key (the standard ones, and those the file's `api_key_env` names) does."""
    now = time.monotonic()
    # The answer stands while nothing it depends on has changed: the variables (one look at all of
    # them), the keys registered, and the config file until its next stat is due. It is asked three
    # times per request of a run (the usage, the cache entry, the stored row): ~7 µs each the long way.
    last = _watch["last"]
    if (last is not None and now < last[0] and secrets.registered_state() == last[1]
            and secrets.env_secret_names() == last[5] and secrets.env_values(last[2]) == last[3]):
        return last[4]  # type: ignore[no-any-return]
    env = os.environ
    where = secrets.env_values(_PATH_VARS)
    if _watch["where"] != where:  # building the path costs more than the rest together
        _watch.update(where=where, path=default_config_path(env), checked=None)
    path = _watch["path"]
    checked = _watch.get("checked")
    if checked is not None and now - checked < CONFIG_STAT_EVERY_S:
        stamp: Any = _watch["config"][1]
    else:
        try:
            stamp = os.stat(path).st_mtime_ns
        except OSError:
            stamp = None
        _watch["checked"] = now
    if _watch["config"] != (str(path), stamp):
        names = {v for v in API_KEY_ENV.values() if v} | {"SEMBENCH_CONFIG", "XDG_CONFIG_HOME"}
        try:
            data = _read_config(path, explicit=False)
        except ConfigError:
            data = {}
        names |= {section["api_key_env"] for section in data.values()
                  if isinstance(section, dict) and isinstance(section.get("api_key_env"), str)}
        _watch.update(config=(str(path), stamp), vars=tuple(sorted(names)), values=None)
    values = secrets.env_values(_watch["vars"])
    if values != _watch["values"]:
        try:
            load_endpoints(env)  # each Endpoint registers its key
        except Exception:  # noqa: BLE001 - a bad config is reported where it is used; the env keys still count
            pass
        _watch["values"] = values
    known = secrets.known()
    secret_names = secrets.env_secret_names()
    names = _PATH_VARS + _watch["vars"] + secrets.STANDARD_KEY_VARS + secret_names
    _watch["last"] = (_watch["checked"] + CONFIG_STAT_EVERY_S, secrets.registered_state(), names,
                      secrets.env_values(names), known, secret_names)
    return known


def describe_endpoints(endpoints: Mapping[str, Endpoint] | None = None) -> list[dict[str, Any]]:
    endpoints = load_endpoints() if endpoints is None else endpoints
    return [ep.describe() for ep in endpoints.values()]
