"""Released tasks GHC rejects at their stated type are kept and flagged at import (`meta.released_defect`,
GHC's first error line); reports give Acc over every task as released and over the valid ones; the
browser finds them with `defect=yes`. The 188 released base files and the 71 historical pure files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.families.typeinf import defects
from core.family import get_family
from core.store.workspace import Workspace
from tests.families.typeinf import released_fixtures as rf

FAM = get_family("typeinf")
# task id suffix -> what GHC's first error line names (docs/typeinf.md lists why each is a defect)
DEFECTS = {
    "(<)": "section",  # `not (y <= x>)`: a typo
    "tail": "with actual type: [Char] -> a0",  # `error` unapplied
    "init": "with actual type: [Char] -> a0",
    "cycle": "with actual type: [Char] -> a0",
    "last": "[Char] -> a0",
    "properFraction": "Ratio Integer",  # RealFrac's method written at Ratio
    "fromRational": "Ratio Integer",
    "exponent": "floatDigit",  # not in scope (floatDigits is)
    "scaleFloat": "(Int, Int)",
    "mconcat-[]": "[a]",  # the code is [[a]] -> [a]
    "(<*>)-(,)": "a0",
    "floatRange-Float": "dbl_max_exp",  # dbl_min_exp listed twice, dbl_max_exp missing
    "decodeFloat-Float": "data constructor ‘F’",  # F/I in the code, F_/I_ declared
}

pytestmark = pytest.mark.ghc


def _suffix(inst) -> str:  # type: ignore[no-untyped-def]
    return inst.meta["task_id"].split("--", 1)[1]


def test_the_thirteen_released_defects_are_kept_and_flagged_with_ghcs_first_error_line() -> None:
    instances = rf.released_base()
    assert len(instances) == 188  # kept, as released
    assert all(i.meta.get("released_checked", "").startswith("ghc") for i in instances)
    flagged = {_suffix(i): i.meta["released_defect"] for i in instances if i.meta.get("released_defect")}
    assert set(flagged) == set(DEFECTS)
    for name, words in DEFECTS.items():
        assert words in flagged[name], (name, flagged[name])
        assert "\n" not in flagged[name] and ".hs:" not in flagged[name]
    assert FAM.describe_snapshot(instances) == {"released_checked": 188, "released_defects": 13}
    assert {FAM.feature_values(i)["defect"] for i in instances} == {True, False}


def test_a_dependency_that_only_narrows_the_preludes_is_not_a_defect() -> None:
    """Released foldl's `(.) :: (a -> a) -> (a -> a) -> (a -> a)`, with which its code does not type: with
    the Prelude's (.) it does, so the task is not flagged (its code types as GHC's base types it)."""
    [foldl] = rf.by_file("task_59.hs.md")
    assert "(.) :: (a -> a) -> (a -> a) -> (a -> a)" in foldl.dependencies
    assert "released_defect" not in foldl.meta and "released_checked" in foldl.meta
    direct = defects.validate([defects._source(foldl, "k", foldl.dependencies)], infer=False)
    assert not direct["k"].signature_ok  # the released dependency alone: GHC rejects it


def test_the_historical_pure_files_are_checked_too() -> None:
    instances = rf.released_pure()
    assert len(instances) == 71
    flagged = {_suffix(i): i.meta["released_defect"] for i in instances if i.meta.get("released_defect")}
    # as measured (docs/typeinf.md): literals at renamed types (`x + 1` at T1), undeclared constructors,
    # MagicHash names, and the base tasks' own defects
    assert len(flagged) == 38
    assert "Num T1" in flagged["succ-Int"] and "floatDigit" in flagged["exponent"]
    assert "quot" not in flagged and "div" not in flagged  # `T1 =>` is read as `T1 a =>`, and types


def test_without_ghc_nothing_is_flagged_nor_said_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    class Missing:
        def available(self) -> bool:
            return False

    monkeypatch.setattr(defects, "GHC", Missing())
    instances = FAM.import_files(rf.BASE / "task_139.hs.md")
    assert instances is not None and len(instances) == 1
    assert "released_defect" not in instances[0].meta and "released_checked" not in instances[0].meta
    assert FAM.describe_snapshot(instances) == {} and FAM.feature_values(instances[0])["defect"] is None


def test_reports_give_acc_over_all_tasks_and_acc_valid_over_the_accepted() -> None:
    instances = rf.released_base()
    rows = [(i, FAM.check(i, FAM.baseline_response(i, 1.0))[1]) for i in instances]
    summary = FAM.summarize(rows)
    assert summary["n_base"] == 188 and summary["n_released_defects"] == 13
    assert summary["acc"] == pytest.approx(168 / 188)
    assert summary["acc_valid"] == pytest.approx(168 / 175)
    assert summary["acc_valid_lo"] < summary["acc_valid"] < summary["acc_valid_hi"]
    by_defect = FAM.metrics(rows)["by"]["defect"]
    assert by_defect["True"]["n"] == 13 and by_defect["True"]["acc"] == 0.0
    compared = FAM.compare_metrics([({"id": "r", "solver": "baseline"}, rows)])
    assert compared["per_solver"]["baseline"]["acc_valid"] == pytest.approx(168 / 175)
    # generated tasks were never checked: no acc_valid figure beside theirs
    generated = list(FAM.generate(FAM.resolve_params("tfbench-base"), 0, 3))
    plain = FAM.summarize([(i, FAM.check(i, FAM.oracle_response(i))[1]) for i in generated])
    assert "acc_valid" not in plain and "n_released_defects" not in plain


def test_snapshot_import_records_the_defects_and_the_browser_finds_them(tmp_path: Path) -> None:
    from tui.data import filter_rows, load_table

    db = tmp_path / "log.db"
    res = subprocess.run([sys.executable, "-m", "core", "--db", str(db), "snapshot", "import", str(rf.BASE),
                          "--family", "typeinf", "--name", "released"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    listed = subprocess.run([sys.executable, "-m", "core", "--db", str(db), "snapshot", "list", "--format", "json"],
                            capture_output=True, text=True, timeout=120)
    snap = next(s for s in json.loads(listed.stdout) if s["name"] == "released")
    assert snap["meta"]["released_defects"] == 13 and snap["meta"]["released_checked"] == 188
    workspace = Workspace(db, tmp_path / "no-snapshots.db")
    try:
        table = load_table(workspace.store_for("released"), "released", "typeinf", FAM.visible_features(), {})
    finally:
        workspace.close()
    assert len(table.rows) == 188
    found = filter_rows(table.rows, "defect=yes")
    assert len(found) == 13 and len(filter_rows(table.rows, "defect=no")) == 175
    assert {r.id.split("--", 1)[1] for r in found} == set(DEFECTS)
