"""specs tests share the session's one tool cache (tests/conftest.py: both xdist workers, and the family
kit and contract tests), so a program proved by one test is not proved again by the next."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _specs_tool_cache(shared_tool_cache):
    yield shared_tool_cache
