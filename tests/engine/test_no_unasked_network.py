"""Nothing contacts a host the user did not name. With no endpoint configured, `sembench models --served` and
the workbench's model picker make no connection and no DNS look-up beyond this machine: each runs in a
network namespace of its own (bubblewrap; only loopback), with a resolver that is not on loopback (so a
look-up shows as a connection to it) and every connect() of every process traced by strace. The local
Ollama default (localhost) may be asked. A configured endpoint is contacted: the same trace sees it."""

from __future__ import annotations

import ipaddress
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.paths import DATA_ROOT

pytestmark = [pytest.mark.bwrap, pytest.mark.strace]

RESOLVER = "192.0.2.53"  # TEST-NET-1: never a real server, and never loopback
ADDRESS = re.compile(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"')

# The picker as a person opens it: the workbench on the bundled snapshots, the first instance, the Solve
# tab, a model solver (openai) chosen; it prints what the picker's line says once the listings have come back.
PICKER = """
import asyncio, sys
from textual.widgets import Select
from tui.app import SembenchApp
from tests.kit.pilot import render_text

async def main():
    app = SembenchApp(db=sys.argv[1], fresh=True)
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot.pause()
        browser = app.screen
        app.open_instance(browser.table.snapshot, browser.view[0].id, tab="solve")
        for _ in range(200):
            await pilot.pause(0.05)
            if app.screen is not browser:
                break
        screen = app.screen
        screen.query_one("#solver", Select).value = "model:openai"
        for _ in range(400):  # the listings are asked in a worker: until they are back
            await pilot.pause(0.05)
            if screen.panel.listings:
                break
        await pilot.pause()
        print(" ".join(render_text(app).split()))

asyncio.run(main())
"""


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """No endpoint configured: none of the providers' variables, an empty configuration folder."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "ANTHROPIC_", "OLLAMA_", "SEMBENCH_CONFIG", "HTTP_PROXY", "HTTPS_PROXY",
                                "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"))}
    (tmp_path / "config").mkdir(exist_ok=True)
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path), SEMBENCH_DB=str(tmp_path / "log.db"),
               PYTHONPATH=str(DATA_ROOT), **extra)
    return env


def traced(tmp_path: Path, argv: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run `argv` alone on its network, every connect() traced; what it printed and the addresses it tried
    to reach beyond this machine (as "address:port")."""
    resolv = tmp_path / "resolv.conf"
    resolv.write_text(f"nameserver {RESOLVER}\n")
    trace = tmp_path / "connect.trace"
    done = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--unshare-net", "--ro-bind", str(resolv), "/etc/resolv.conf",
                           "--", "strace", "-f", "--seccomp-bpf", "-qq", "-e", "trace=connect", "-e", "signal=none", "-o", str(trace),
                           *argv], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    away = []
    for line in trace.read_text().splitlines():
        if "AF_INET" not in line:
            continue
        for v4, v6 in ADDRESS.findall(line):
            address = ipaddress.ip_address(v4 or v6)
            mapped = getattr(address, "ipv4_mapped", None)
            if not (address.is_loopback or (mapped is not None and mapped.is_loopback)):
                port = re.search(r"sin6?_port=htons\((\d+)\)", line)
                away.append(f"{address}:{port.group(1) if port else '?'}")
    return done, away


def test_models_served_asks_only_this_machine_when_nothing_is_configured(tmp_path: Path) -> None:
    done, away = traced(tmp_path, [sys.executable, "-m", "core", "models", "--served"], clean_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert away == [], f"contacted unasked: {away}"
    lines = {line.split(" ", 1)[0]: line for line in done.stdout.splitlines()}
    assert "no endpoint configured: `sembench models` explains how" in lines["openai"]
    assert "no endpoint configured" in lines["anthropic"]
    assert "not answering" in lines["ollama"]  # the local default was asked (nothing listens in the namespace)


def test_a_configured_endpoint_is_contacted_and_the_trace_sees_it(tmp_path: Path) -> None:
    """The check above can fail: the same trace sees the look-up of a host the user named."""
    env = clean_env(tmp_path, OPENAI_BASE_URL="http://models.example.test/v1")
    done, away = traced(tmp_path, [sys.executable, "-m", "core", "models", "--served"], env)
    assert done.returncode == 0, done.stderr
    assert f"{RESOLVER}:53" in away, away
    assert "no endpoint configured" in done.stdout  # anthropic, still unasked


def test_the_model_picker_asks_no_one_unasked(tmp_path: Path) -> None:
    script = tmp_path / "picker.py"
    script.write_text(PICKER)
    done, away = traced(tmp_path, [sys.executable, str(script), str(tmp_path / "log.db")], clean_env(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    assert away == [], f"contacted unasked: {away}"
    for kind in ("openai", "anthropic"):  # the picker's line names every endpoint
        assert re.search(rf"{kind} \(\S+\): no endpoint configured: `sembench models` explains how", done.stdout), \
            done.stdout[-3000:]
