"""Issue "Done when" for membership, through the real CLI: generate (byte-identical, balanced, depth 4),
oracle and random solvers verified, and the trace of a negative instance in text and JSON."""

from __future__ import annotations

import collections
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.family import get_family

GENERATE = ("generate", "membership", "--param", "I=3", "--param", "N_max=3", "--param", "b=2", "--param", "N_T=2",
            "--param", "depth=4", "--seed", "7", "--count", "400")


def sembench(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc


def depth_of(value: Any) -> int:
    """Nesting depth, computed here rather than by the family: 0 for a flat list."""
    inner = [depth_of(item) + 1 for item in value if isinstance(item, list)]
    return max(inner, default=0)


def balanced_accuracy(solver: str, cwd: Path) -> float:
    sembench("solve", "membership", "--instances", "pag.jsonl", "--solver", solver, "--out", f"{solver}.jsonl", cwd=cwd)
    out = sembench("verify", "membership", "--instances", "pag.jsonl", "--answers", f"{solver}.jsonl",
                   "--format", "json", cwd=cwd).stdout
    report = json.loads(out)
    assert report["n"] == 400 and report["missing"] == 0
    return report["overall"]["balanced_accuracy"]


@pytest.mark.slow
def test_membership_end_to_end(tmp_path: Path) -> None:
    sembench(*GENERATE, "--out", "pag.jsonl", cwd=tmp_path)
    sembench(*GENERATE, "--out", "again.jsonl", cwd=tmp_path)
    first = (tmp_path / "pag.jsonl").read_bytes()
    assert first == (tmp_path / "again.jsonl").read_bytes()
    lines = first.decode().splitlines()
    assert len(lines) == 400
    instances = [json.loads(line) for line in lines]
    assert collections.Counter(i["ground_truth"]["answer"] for i in instances) == {True: 200, False: 200}
    assert collections.Counter(i["meta"]["label"] for i in instances) == {"positive": 200, "negative": 200}
    assert all(depth_of(i["probe"]) == 4 for i in instances)
    assert {(i["meta"]["I"], i["meta"]["N_max"], i["meta"]["b"], i["meta"]["N_T"]) for i in instances} == {(3, 3, 2, 2)}

    assert balanced_accuracy("oracle", tmp_path) == 1.0
    assert 0.35 <= balanced_accuracy("random", tmp_path) <= 0.65

    # a negative instance whose evaluation short-circuits (a False term with terms after it)
    family = get_family("membership")
    negative = next(i for i in instances if i["ground_truth"]["answer"] is False
                    and any(s.data.get("short_circuit") for s in family.trace(family.parse_instance(i)).steps))
    text = sembench("trace", "membership", "--instances", "pag.jsonl", "--id", negative["id"], cwd=tmp_path).stdout
    rows = text.splitlines()
    assert rows[0].startswith("is_member_0(x) with x = ") and "-> False" in rows[0]
    assert rows[1].startswith("[0] call is_member_0(x)")
    indents = [len(row) - len(row.lstrip(" ")) for row in rows[1:] if re.match(r"\s*\[\d+\] ", row)]
    assert max(indents) >= 2 * 4  # a call tree: nested calls down to the probe's depth, two spaces a level
    assert any("short-circuit skips" in row for row in rows)
    last = re.sub(r"  @\S+$", "", rows[-1])  # the step's focus (document:line) ends the line
    assert last.startswith("[") and last.endswith("returns False")  # back at the entry call

    data = json.loads(sembench("trace", "membership", "--instances", "pag.jsonl", "--id", negative["id"],
                               "--format", "json", cwd=tmp_path).stdout)
    assert data["instance_id"] == negative["id"] and data["meta"]["result"] is False
    steps = data["steps"]
    assert steps and all({"depth", "kind", "highlight"} <= set(step) for step in steps)
    assert {step["kind"] for step in steps} == {"call", "branch", "term", "return"}
    assert all({"line", "path"} <= set(step["highlight"]) for step in steps)
    assert max(step["depth"] for step in steps) >= 4
    assert sum(1 for step in steps if step["data"].get("short_circuit")) >= 1
