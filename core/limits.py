"""Upper bounds of every count, size and index a user can ask for, in one place.

A typo of a few zeros (`--samples 1000000000000`, `--concurrency 1000000000`, `"sample": 10**30`) is a
one-line error naming the bound, not gigabytes of memory, 10^9 tasks or an SQLite overflow. The
families' generator parameters carry their own bounds (`le=` in each `params_model`).
"""

from __future__ import annotations

MAX_SAMPLES = 1000  # samples per instance in a run or an import (pass@k up to k = 1000)
MAX_CONCURRENCY = 1024  # attempts / requests in flight (per run, per endpoint)
MAX_LIMIT = 10**9  # `run --limit`: the first N instances
DEFAULT_BUDGET_S = 5.0  # seconds per instance for local solvers (`--budget`)
MAX_BUDGET_S = 3600.0
MAX_TEMPERATURE = 100.0
MAX_TOKENS = 10_000_000  # --max-tokens, --thinking-budget
MAX_STOP = 16  # stop sequences
MAX_COUNT = 1_000_000  # `generate --count`
MAX_INDEX = 10**12  # `generate --start`
MAX_INSTANCES = 1_000_000  # instances in one imported or generated snapshot
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # what SQLite stores as an integer (seeds)
