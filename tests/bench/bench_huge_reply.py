"""Huge replies: the cost of checking a 50 MB reply, side by side in one run.

    .venv/bin/python tests/bench/bench_huge_reply.py [--mb 50]

Per family: `unbounded_s` is the family's own extractor reading the whole reply (what every check did
before core.extraction), `check_s` is `family.check` now (a reply over MAX_REPLY_CHARS is refused by its
length), `at_bound_s` is a check of a reply exactly MAX_REPLY_CHARS long (the most any check reads), and
`stored_row_s` is making the attempt row storable (surrogates, secrets) for the 50 MB reply. Ratios > 1
mean the bounded path is faster. Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.attempts import AttemptRecord  # noqa: E402
from core.extraction import MAX_REPLY_CHARS  # noqa: E402
from core.family import get_family  # noqa: E402

FILLER = "Looking at the examples, the answer may be True or False. "


def timed(fn, *args) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=50.0)
    args = parser.parse_args()
    out: dict[str, object] = {"reply_chars": int(args.mb * 1e6), "max_reply_chars": MAX_REPLY_CHARS}
    for family_id in ("membership", "cascade"):
        family = get_family(family_id)
        inst = family.generate_one(family.resolve_params(sorted(family.presets())[0]), 0, 0)
        oracle = family.oracle_response(inst)
        huge = (FILLER * int(args.mb * 1e6 // len(FILLER) + 1))[: int(args.mb * 1e6) - len(oracle)] + oracle
        at_bound = (FILLER * (MAX_REPLY_CHARS // len(FILLER) + 1))[: MAX_REPLY_CHARS - len(oracle)] + oracle
        unbounded = timed(family.extract, huge, inst)
        check = timed(family.check, inst, huge)
        bound = timed(family.check, inst, at_bound)
        record = AttemptRecord(instance_id=inst.id, family=family_id, solver="x", response=huge)
        row = timed(record.row)
        out[family_id] = {"unbounded_s": round(unbounded, 4), "check_s": round(check, 4),
                          "at_bound_s": round(bound, 4), "stored_row_s": round(row, 4),
                          "ratio_unbounded_over_check": round(unbounded / max(check, 1e-9), 1)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
