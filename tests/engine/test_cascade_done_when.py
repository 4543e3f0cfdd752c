"""Issue "Done when", through the real CLI: PBEBench-Lite generated, byte-identical, oracle verifies."""

from __future__ import annotations

import collections
import json
import subprocess
import sys

import pytest

from core.families.cascade.model import apply_cascade
from core.store import BUNDLED_SNAPSHOTS, SnapshotStore


def sembench(*args: str, cwd) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.slow
def test_pbebench_lite_end_to_end(tmp_path) -> None:
    sembench("generate", "cascade", "--preset", "pbebench-lite", "--seed", "0", "--out", "lite.jsonl", cwd=tmp_path)
    first = (tmp_path / "lite.jsonl").read_bytes()
    instances = [json.loads(line) for line in first.decode().splitlines()]
    assert len(instances) == 1008
    # Deterministic across processes and machines: the same instances as the bundled snapshot, which another
    # process generated (a second generation here would cost a minute of CPU and prove less).
    bundled = [(iid, data) for _, iid, _, data in SnapshotStore(BUNDLED_SNAPSHOTS).instance_rows("pbebench-lite")]
    assert [(i["id"], i) for i in instances] == bundled
    assert collections.Counter(i["meta"]["category"] for i in instances) == {
        f"{n:04b}": 63 for n in range(16)
    }
    for inst in instances:
        cascade = [tuple(r) for r in inst["ground_truth"]["cascade"]]
        assert [apply_cascade(s, cascade) for s in inst["inputs"]] == inst["outputs"]
        assert 2 <= inst["meta"]["cascade_length"] == len(cascade) <= 5

    sembench("solve", "cascade", "--instances", "lite.jsonl", "--solver", "oracle", "--out", "gt.jsonl", cwd=tmp_path)
    out = sembench("verify", "cascade", "--instances", "lite.jsonl", "--answers", "gt.jsonl", "--format", "json",
                   cwd=tmp_path).stdout
    report = json.loads(out)
    assert report["n"] == 1008
    assert report["overall"]["pass@1"] == 1.0
    assert report["overall"]["edit_sim"] == 1.0
    assert report["overall"]["valid_rate"] == 1.0
