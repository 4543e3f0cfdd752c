"""A JSONL line nested 200,000 deep or holding a 5,000-digit integer is the usual
file/line error (exit 2, one line), wherever JSONL is read: instances, answers, imports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runs_support import run_cli, write_snapshot

DEEP = "[" * 200_000 + "]" * 200_000
MEDIUM = '{"id": "a", "response": "x", "meta": ' + "[" * 300 + "]" * 300 + "}"
BIG = '{"id": "a", "response": "x", "n": ' + "9" * 5000 + "}"


def _one_line(result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(("line", "fragment"), [(DEEP, "nested too deeply"), (MEDIUM, "nested too deeply"),
                                                (BIG, "more than 4300 digits")], ids=["deep", "300-deep", "big-int"])
def test_limits_in_every_jsonl_reader(toy, log_db, tmp_path: Path, line: str, fragment: str) -> None:
    instances = write_snapshot(log_db, toy, "s", 2)
    good = tmp_path / "inst.jsonl"
    good.write_text("".join(json.dumps(i.to_json_dict()) + "\n" for i in instances), encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": instances[0].id, "response": "1"}) + "\n" + line + "\n", encoding="utf-8")
    commands = [
        ["verify", "toy", "--instances", str(good), "--answers", str(bad)],
        ["verify", "toy", "--instances", str(bad), "--answers", str(good)],
        ["prompt", "toy", "--instances", str(bad)],
        ["snapshot", "import", str(bad), "--name", "x", "--family", "toy"],
        ["import-answers", "--snapshot", "s", "--answers", str(bad), "--solver-name", "x"],
    ]
    for args in commands:
        _one_line(run_cli(*args), "bad.jsonl:2:", fragment)
