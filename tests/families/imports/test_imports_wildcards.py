"""Wildcards in the ground truth and per-library figures.

StatType-SO's released import lines hold wildcards (`javax.persistence.*`, `java.util.*`, `static
org.junit.Assert.*` in 13 of the 166 snippets of the four libraries). A wildcard truth is the package it
imports: every answered entry in it counts as right, and a wildcard no answer falls under is one missing
entry (the answer's own wildcard matches it); the literal reading stays as `*_literal`. Per-library
precision, recall and F1 come with every set, instance JSONL written elsewhere included (its instances
carry `library` but no `meta.library`). No javac needed: the compile check is turned off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.families.imports import verify as verify_module
from core.families.imports.extract import extract
from core.families.imports.metrics import summarize
from core.families.imports.model import ImportsInstance
from core.families.imports.verify import build_verdict, in_wildcard, score_wildcards

JPA = ["javax.persistence.*", "org.hibernate.Session"]
NAMED = "import javax.persistence.Entity;\nimport javax.persistence.Id;\nimport org.hibernate.Session;"


def _verdict(truth: list[str], reply: str):
    inst = ImportsInstance(code="class A {}", library="hibernate", ground_truth={"imports": truth})
    return build_verdict(inst, extract(reply), None)


def test_a_wildcard_truth_counts_the_answered_types_of_its_package_right() -> None:
    verdict = _verdict(JPA, NAMED)
    d = verdict.details
    assert verdict.correct and verdict.status == "correct" and verdict.score == 1.0
    assert (d["tp"], d["fp"], d["fn"]) == (3, 0, 0) and d["precision"] == d["recall"] == 1.0
    # literally, the two JPA types are extra and the wildcard missing
    assert (d["tp_literal"], d["fp_literal"], d["fn_literal"]) == (1, 2, 1) and d["correct_literal"] is False
    assert d["f1_literal"] == pytest.approx(0.4)
    assert d["wildcard_matches"] == {"javax.persistence.*": ["javax.persistence.Entity", "javax.persistence.Id"]}
    row = next(r for r in verdict.diff if r.expected == "javax.persistence.*")
    assert row.ok and "javax.persistence.Entity" in row.got and "wildcard" in row.note
    assert not [r for r in verdict.diff if not r.ok and r.label != "compile"], "no row calls them extra"
    assert "`javax.persistence.*` covers 2" in verdict.explanation and "F1=0.40" in verdict.explanation


def test_a_wildcard_no_answer_falls_under_is_one_missing_entry_the_same_wildcard_matches() -> None:
    missed = _verdict(JPA, "import org.hibernate.Session;")
    assert not missed.correct and (missed.details["tp"], missed.details["fn"]) == (1, 1)
    assert any(r.expected == "javax.persistence.*" and not r.ok for r in missed.diff)
    same = _verdict(JPA, "import javax.persistence.*;\nimport org.hibernate.Session;")
    assert same.correct and same.details["correct_literal"] is True
    both = _verdict(JPA, "import javax.persistence.*;\nimport javax.persistence.Id;\nimport org.hibernate.Session;")
    assert both.correct and both.details["tp"] == 3


def test_a_concrete_truth_is_still_matched_as_written() -> None:
    # the answer's wildcard does not stand for a concrete truth (the paper's prompt forbids wildcards)
    verdict = _verdict(["java.util.List"], "import java.util.*;")
    assert not verdict.correct and (verdict.details["tp"], verdict.details["fp"], verdict.details["fn"]) == (0, 1, 1)
    # a concrete truth beside a wildcard of its own package: matched once, nothing missing
    s = score_wildcards(["java.util.*", "java.util.List"], ["java.util.List"])
    assert (s["tp"], s["fp"], s["fn"]) == (1, 0, 0) and (s["tp_literal"], s["fn_literal"]) == (1, 1)
    # a type from another package is wrong, whatever wildcard the truth has
    wrong = score_wildcards(["java.util.*"], ["java.awt.List"])
    assert (wrong["tp"], wrong["fp"], wrong["fn"]) == (0, 1, 1)


@pytest.mark.parametrize(("wildcard", "entry", "covered"), [
    ("java.util.*", "java.util.List", True),
    ("java.util.*", "java.util.Map.Entry", True),  # a member type: `Map.Entry` is written after `import java.util.*`
    ("java.util.*", "java.util.concurrent.TimeUnit", False),  # a subpackage is another package
    ("javax.*", "javax.persistence.Entity", False),
    ("java.util.*", "java.util.*", False),
    ("java.util.*", "static java.util.Collections.sort", False),
    ("static org.junit.Assert.*", "static org.junit.Assert.assertEquals", True),
    ("static org.junit.Assert.*", "org.junit.Assert", False),
    ("java.util.Map.*", "java.util.Map.Entry", True),
])
def test_what_a_wildcard_covers(wildcard: str, entry: str, covered: bool) -> None:
    assert in_wildcard(wildcard, entry) is covered


def test_the_summary_keeps_the_literal_reading() -> None:
    inst = ImportsInstance(code="", ground_truth={"imports": JPA})
    plain = ImportsInstance(code="", ground_truth={"imports": ["a.B"]})
    rows = [(inst, build_verdict(inst, extract(NAMED), None)), (plain, build_verdict(plain, extract("import a.B;"), None))]
    s = summarize(rows)
    assert s["precision"] == s["recall"] == s["f1"] == 1.0 and s["exact_match"] == 1.0
    assert s["precision_literal"] == pytest.approx(2 / 4) and s["recall_literal"] == pytest.approx(2 / 3)
    assert s["exact_match_literal"] == 0.5 and s["wildcard_truths"] == 1


# ---- through the CLI: instance JSONL from elsewhere --------------------------------------------------
def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


INSTANCES = [
    {"id": "h1", "family": "imports", "library": "hibernate", "code": "@Entity class A { @Id Long id; Session s; }",
     "ground_truth": {"imports": JPA}},
    {"id": "h2", "family": "imports", "library": "hibernate", "code": "class B { Session s; }",
     "ground_truth": {"imports": ["org.hibernate.Session"]}},
    {"id": "j1", "family": "imports", "library": "jdk", "code": "class C { List<String> l; Date d; }",
     "ground_truth": {"imports": ["java.util.*"]}},
    {"id": "x1", "family": "imports", "library": "xstream", "code": "class D { XStream x; }",
     "ground_truth": {"imports": ["com.thoughtworks.xstream.XStream"]}},
]
ANSWERS = [
    {"id": "h1", "response": NAMED},
    {"id": "h2", "response": "import org.hibernate.classic.Session;"},
    {"id": "j1", "response": "import java.util.List;\nimport java.util.Date;"},
    {"id": "x1", "response": "import com.thoughtworks.xstream.XStream;"},
]


def run_cli(*args: str):
    from click.testing import CliRunner

    from core.cli import cli

    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def no_javac(monkeypatch):
    monkeypatch.setattr(verify_module, "_javac_ok", lambda: False)


def _check_by_library(report: dict) -> None:
    by = report["by"]["library"]
    assert set(by) == {"hibernate", "jdk", "xstream"}, by.keys()
    hib = by["hibernate"]
    assert hib["n"] == 2 and hib["precision"] == pytest.approx(3 / 4) and hib["recall"] == pytest.approx(3 / 4)
    assert hib["f1"] == pytest.approx(0.75) and hib["f1_literal"] == pytest.approx(2 * (1 / 4) * (1 / 3) / (1 / 4 + 1 / 3))
    assert by["jdk"]["f1"] == 1.0 and by["jdk"]["f1_literal"] == 0.0 and by["xstream"]["f1"] == 1.0
    overall = report["overall"]
    assert overall["exact_match"] == 0.75 and overall["exact_match_literal"] == 0.25


def test_verify_json_gives_wildcard_scores_per_library(tmp_path: Path, no_javac) -> None:
    instances = _jsonl(tmp_path / "inst.jsonl", INSTANCES)
    answers = _jsonl(tmp_path / "answers.jsonl", ANSWERS)
    result = run_cli("verify", "imports", "--instances", str(instances), "--answers", str(answers),
                     "--format", "json")
    assert result.exit_code == 0, result.output
    _check_by_library(json.loads(result.stdout))


def test_a_run_on_an_imported_jsonl_snapshot_reports_per_library(tmp_path: Path, log_db, no_javac) -> None:
    instances = _jsonl(tmp_path / "inst.jsonl", INSTANCES)
    answers = _jsonl(tmp_path / "answers.jsonl", ANSWERS)
    imported = run_cli("snapshot", "import", str(instances), "--name", "so", "--family", "imports")
    assert imported.exit_code == 0, imported.output
    run = run_cli("import-answers", "--snapshot", "so", "--answers", str(answers), "--solver-name", "elsewhere",
                  "--format", "json")
    assert run.exit_code == 0, run.output
    run_id = json.loads(run.stdout)["run"]
    report = run_cli("report", run_id, "--format", "json")
    assert report.exit_code == 0, report.output
    _check_by_library(json.loads(report.stdout)["metrics"])
    text = run_cli("report", run_id)
    assert "by library" in text.stdout and "xstream" in text.stdout
