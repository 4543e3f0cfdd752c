"""Admission of workers: the largest group agreeing on code and tool versions is admitted, every other
worker is refused by name with what differs (here from this machine's own probe, one tool changed)."""

from __future__ import annotations

import pytest

from core.cluster.remote import probe
from core.cluster.session import admit
from core.errors import UserError


def test_a_worker_with_another_tool_version_is_refused_naming_the_tool() -> None:
    here = probe()
    tool = sorted(here["tools"])[0]
    other = {**here, "tools": {**here["tools"], tool: "0.0.1-other"}}
    admission = admit({"tcp://a:1": here, "tcp://b:2": here, "tcp://c:3": other,
                       "tcp://d:4": {"error": "cannot run Sembench (ModuleNotFoundError: core)"}})
    assert admission.admitted == ["tcp://a:1", "tcp://b:2"]
    assert admission.refused["tcp://c:3"] == f"{tool} 0.0.1-other, not {here['tools'][tool] or 'missing'}"
    assert "ModuleNotFoundError" in admission.refused["tcp://d:4"]
    assert admission.fingerprint == here["fingerprint"]


def test_no_worker_that_can_run_sembench_is_a_user_error() -> None:
    with pytest.raises(UserError, match="tcp://d:4: cannot run Sembench"):
        admit({"tcp://d:4": {"error": "cannot run Sembench (ModuleNotFoundError: core)"}})
