"""`sembench snapshot import` refuses an empty file, and checks every instance's ground
truth with the family's own verifier (its oracle response must verify): each one that does not is named by
line and id, and the file is refused unless --keep-unverified. A family without a reference for an
instance (oracle_response raising, or a verdict with status "no_reference") is not refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runs_support import run_cli

from core.family import get_family
from core.store import LogStore
from core.verdict import Verdict


def _snapshots(db: Path) -> list[str]:
    return [r[0] for r in LogStore(db).db.execute("select name from snapshots")]


@pytest.mark.parametrize("text", ["", "\n\n  \n"], ids=["empty", "blank-lines"])
def test_an_empty_file_is_refused(log_db, tmp_path: Path, text: str) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text(text)
    result = run_cli("snapshot", "import", str(empty), "--name", "e", "--family", "cascade")
    assert result.exit_code == 2 and "empty.jsonl: no instances in it" in result.stderr
    assert "e" not in _snapshots(log_db)
    run = run_cli("run", "--snapshot", "e", "--solver", "oracle")
    assert run.exit_code == 2 and "unknown snapshot 'e'" in run.stderr, "no 0/0 run that 'finishes'"


def _cascade_file(tmp_path: Path) -> tuple[Path, list[dict]]:
    cascade = get_family("cascade")
    rows = [inst.to_json_dict() for inst in cascade.generate(cascade.resolve_params("pbebench-lite"), 0, 5)]
    rows[1]["outputs"][0] = "zzzz"  # an output that does not follow from the ground truth
    rows[3]["ground_truth"]["cascade"][0][0] = ""  # a rule with an empty left-hand side
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path, rows


def test_instances_whose_ground_truth_does_not_verify_are_named_and_refused(log_db, tmp_path: Path) -> None:
    path, rows = _cascade_file(tmp_path)
    result = run_cli("snapshot", "import", str(path), "--name", "c", "--family", "cascade")
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith(f"{path}: line 2: id '{rows[1]['id']}': ground truth does not verify")
    assert lines[1].startswith(f"{path}: line 4: id '{rows[3]['id']}': ground truth does not verify")
    assert "empty lhs" in lines[1]
    assert lines[-1].startswith("error:") and "2 of 5 instances does not verify" in lines[-1]
    assert "--keep-unverified" in lines[-1] and len(lines) == 3
    assert "c" not in _snapshots(log_db), "nothing imported"

    kept = run_cli("snapshot", "import", str(path), "--name", "c", "--family", "cascade", "--keep-unverified")
    assert kept.exit_code == 0 and "2 whose ground truth does not verify" in kept.stdout
    (meta,) = [json.loads(r[0]) for r in LogStore(log_db).db.execute("select meta from snapshots where name='c'")]
    assert meta["unverified"] == [rows[1]["id"], rows[3]["id"]]


def test_a_clean_file_imports_silently(log_db, tmp_path: Path) -> None:
    cascade = get_family("cascade")
    path = tmp_path / "ok.jsonl"
    path.write_text("".join(json.dumps(i.to_json_dict()) + "\n"
                            for i in cascade.generate(cascade.resolve_params("pbebench-lite"), 1, 4)))
    result = run_cli("snapshot", "import", str(path), "--name", "ok", "--family", "cascade")
    assert result.exit_code == 0 and result.stderr == "" and "imported 4 instances" in result.stdout
    # the family's own facts are stored with the snapshot, as for a bundled one
    (meta,) = [json.loads(r[0]) for r in LogStore(log_db).db.execute("select meta from snapshots where name='ok'")]
    assert sum(meta["category_counts"].values()) == 4 and meta["statistics"] and meta["format"] == "instance JSONL"


def test_instances_without_a_reference_are_counted_not_refused(toy, log_db, tmp_path: Path, monkeypatch) -> None:
    instances = list(toy.generate({}, 0, 4))
    no_oracle = {instances[0].id}
    says_none = {instances[1].id}

    def oracle(instance):
        if instance.id in no_oracle:
            raise ValueError("real data: no known answer")
        return type(toy).oracle_response(toy, instance)

    def verify(instance, answer):
        if instance.id in says_none:
            return Verdict(correct=False, score=0.0, status="no_reference", explanation="no reference")
        return type(toy).verify(toy, instance, answer)

    monkeypatch.setattr(toy, "oracle_response", oracle)
    monkeypatch.setattr(toy, "verify", verify)
    path = tmp_path / "real.jsonl"
    path.write_text("".join(json.dumps(i.to_json_dict()) + "\n" for i in instances), encoding="utf-8")
    result = run_cli("snapshot", "import", str(path), "--name", "real", "--family", "toy")
    assert result.exit_code == 0, result.stderr
    assert "2 without a reference" in result.stdout
