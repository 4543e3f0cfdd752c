"""`sembench report RUN_A RUN_B` on a run over original snippets and a run over their
transformed variants pairs them by snippet and gives the Wilcoxon signed-rank test (paper §5.1) on
precision, recall and F1, with p-values. Real runs: answers imported through the CLI into a log
database, verified by the family (javac compile check included)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from core.cli import cli
from core.families.imports.compare import compare_metrics
from core.families.imports.prompt import format_response
from core.family import get_family
from core.instance import Snapshot
from core.store import LogStore

pytestmark = pytest.mark.javac
N = 24


def _cli(*args: str) -> dict:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _snapshot(db, family, name: str, params: dict) -> list:
    instances = list(family.generate(params, 0, N))
    store = LogStore(db)
    store.write_snapshot(Snapshot(name=name, family="imports", params=params, seed=0, count=N), instances,
                         features=family.feature_values)
    store.close()
    return instances


def _answers(path, rows: list[tuple[str, list[str]]]) -> str:
    path.write_text("".join(json.dumps({"id": iid, "response": format_response(imports)}) + "\n"
                            for iid, imports in rows), encoding="utf-8")
    return str(path)


def test_report_of_original_and_transformed_runs_gives_wilcoxon_p_values(log_db, tmp_path) -> None:
    family = get_family("imports")
    base = _snapshot(log_db, family, "orig", family.resolve_params("thalia-like"))
    renamed = _snapshot(log_db, family, "renamed", family.resolve_params("thalia-like", {"transform": "rename"}))
    assert [r.meta["variant_of"] for r in renamed] == [b.id for b in base]
    # On the originals every answer is right; on the variants, 16 of 24 answers miss one import.
    orig = _cli("import-answers", "--snapshot", "orig", "--solver-name", "m", "--format", "json", "--answers",
                _answers(tmp_path / "a.jsonl", [(b.id, b.expected()) for b in base]))
    worse = [(r.id, r.expected()[1:] if i % 3 else r.expected()) for i, r in enumerate(renamed)]
    trans = _cli("import-answers", "--snapshot", "renamed", "--solver-name", "m", "--format", "json", "--answers",
                 _answers(tmp_path / "b.jsonl", worse))
    report = _cli("report", orig["run"], trans["run"], "--format", "json")
    comparison = report["family_comparison"]
    assert comparison["wilcoxon_pairs"] == N and comparison["wilcoxon_pairs_left_out"] == 0
    assert "rename" in comparison["wilcoxon_runs"]
    recall_b = [len(r.expected()[1:] if i % 3 else r.expected()) / len(r.expected()) for i, r in enumerate(renamed)]
    # imported here, not at the top: scipy.stats is ~1.6 s of every xdist worker's collection
    from scipy.stats import wilcoxon

    expected_p = wilcoxon(recall_b, [1.0] * N).pvalue  # the same test, computed here from the answers
    assert comparison["recall_wilcoxon_p"] == pytest.approx(expected_p) and expected_p < 0.001
    assert comparison["recall_pairs_differing"] == 16 and comparison["recall_mean_a"] == 1.0
    assert comparison["f1_wilcoxon_p"] < 0.05
    assert comparison["precision_wilcoxon_p"] == 1.0 and comparison["precision_pairs_differing"] == 0
    assert comparison["significant_at_0.05"] == "recall, f1"
    table = CliRunner().invoke(cli, ["report", orig["run"], trans["run"]], catch_exceptions=False).stdout
    assert "recall_wilcoxon_p" in table
    # `sembench compare` gives the same test (the snapshots share no instance id: paired by snippet)
    compared = _cli("compare", orig["run"], trans["run"], "--format", "json")
    assert compared["paired"] == 0 and compared["family_comparison"] == comparison
    shown = CliRunner().invoke(cli, ["compare", orig["run"], trans["run"]], env={"COLUMNS": "200"}).stdout
    assert "recall_wilcoxon_p" in shown and "the family's own comparison" in shown


def test_no_shared_snippets_or_one_run_gives_no_test() -> None:
    assert compare_metrics([]) == {}
    family = get_family("imports")
    inst = family.generate_one(family.resolve_params("thalia-like"), 0, 0)
    other = family.generate_one(family.resolve_params("thalia-like"), 0, 1)
    verdict = family.verify(inst, family.extract(format_response(inst.expected())))
    assert compare_metrics([({"id": "a"}, [(inst, verdict)]), ({"id": "b"}, [(other, verdict)])]) == {}
    same = compare_metrics([({"id": "a"}, [(inst, verdict)]), ({"id": "b"}, [(inst, verdict)])])
    assert same["wilcoxon_pairs"] == 1 and same["f1_wilcoxon_p"] == 1.0 and same["significant_at_0.05"] == "none"
