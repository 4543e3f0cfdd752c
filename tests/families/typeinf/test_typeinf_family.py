"""The typeinf family without GHC: corpus shape, the platform's family contract (what the family kit
checks), extraction, verdict categories, the pure rewrite operators, metrics, traces and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.families.typeinf.corpus import load_corpus, solve_dependencies, task_category
from core.families.typeinf.hsparse import parse_type
from core.families.typeinf.metrics import compare_metrics, summarize
from core.families.typeinf.verify import classify
from core.family import get_family
from core.instance import Instance
from core.verdict import Verdict

REPO = Path(__file__).resolve().parents[3]


def fam():
    return get_family("typeinf")


def test_corpus_size_and_categories() -> None:
    tasks = load_corpus()
    counts = Counter(task_category(t) for t in tasks)
    assert len(tasks) >= 150
    assert min(counts[c] for c in ("monomorphic", "parametric", "ad-hoc")) >= 40, counts
    with_decls = [t for t in tasks if any(e.startswith(("data ", "newtype ", "class ")) for e in t.extra)]
    assert len(with_decls) >= 10
    multi = [t for t in tasks if len([ln for ln in t.code.splitlines() if ln.startswith(t.name + " ")]) >= 2]
    assert len(multi) >= 30
    for t in tasks:
        assert solve_dependencies(t) is not None


def test_dependencies_are_solved_like_tfbench() -> None:
    task = next(t for t in load_corpus() if t.key == "maybe")
    assert "data Maybe a = Nothing | Just a" in solve_dependencies(task)
    task = next(t for t in load_corpus() if t.key == "break")
    assert solve_dependencies(task) == ["span :: (a -> Bool) -> [a] -> ([a], [a])", "not :: Bool -> Bool",
                                        "(.) :: (b -> c) -> (a -> b) -> a -> c"]


@pytest.mark.parametrize("preset", ["tfbench-base", "tfbench-pure", "tf-generated"])
def test_oracle_verifies_and_baseline_answers(preset: str) -> None:
    f = fam()
    params = f.resolve_params(preset)
    instances = list(f.generate(params, 0, 9))
    right = 0
    for inst in instances:
        answer, verdict = f.check(inst, f.oracle_response(inst))
        assert answer.ok and verdict.correct and verdict.score == 1.0, (inst.id, verdict.explanation)
        again = f.parse_instance(json.loads(json.dumps(inst.to_json_dict())))
        assert again.to_json_dict() == inst.to_json_dict()
        right += f.check(inst, f.baseline_response(inst, 1.0))[1].correct
    assert right / len(instances) >= f.baseline_floor


def test_baseline_accuracy_on_the_corpus() -> None:
    """The README's numbers: base 247/250 (the three declared-more-specific tasks), pure 221/250."""
    f = fam()
    for preset, minimum in (("tfbench-base", 247), ("tfbench-pure", 221)):
        params = f.resolve_params(preset)
        n = f.presets()[preset].count
        right = sum(f.check(i, f.baseline_response(i, 1.0))[1].correct for i in f.generate(params, 0, n))
        assert right >= minimum, (preset, right)


def test_generation_is_deterministic_across_processes() -> None:
    f = fam()
    params = f.resolve_params("tf-generated")
    here = [f.generate_one(params, 3, i).to_json_dict() for i in (0, 4)]
    code = ("import json; from core.family import get_family; f = get_family('typeinf'); "
            "p = f.resolve_params('tf-generated'); "
            "print(json.dumps([f.generate_one(p, 3, i).to_json_dict() for i in (0, 4)]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "123"})
    assert json.loads(out.stdout) == json.loads(json.dumps(here))
    assert f.generate_one(params, 3, 4).to_json_dict() == here[1]


def test_generation_parses_each_candidate_once(monkeypatch) -> None:
    """The generator judges a candidate from its parse, then infers its type from the same parse: parsing
    it again was ~13% of generating (the bundled tf-generated's rebuild checks the same instances)."""
    from core.families.typeinf import fresh, hsparse

    calls: Counter[str] = Counter()

    def counted(module, name: str) -> None:  # noqa: ANN001
        real = getattr(module, name)

        def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            calls[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    counted(fresh, "_candidate")
    counted(hsparse, "parse_decls")
    f = fam()
    instances = [f.generate_one(f.resolve_params("tf-generated"), 3, i) for i in range(4)]
    assert len(instances) == 4 and calls["_candidate"] > len(instances)
    # each candidate once; the one kept once more, by `solve_dependencies` (before: ~1.5 per candidate)
    assert calls["parse_decls"] == calls["_candidate"] + len(instances), calls

@pytest.mark.parametrize("response", ["", "   ", "I don't know", "f :: a -> (b", "\x00\x01garbage"])
def test_bad_answers_are_rejected_with_explanation_and_diff(response: str) -> None:
    f = fam()
    inst = f.generate_one(f.resolve_params("tfbench-base"), 0, 120)
    answer, verdict = f.check(inst, response)
    assert not verdict.correct and verdict.explanation and verdict.diff


def test_perturbed_answers_get_appendix_g_categories() -> None:
    cases = [
        ("(a -> b) -> [a] -> [b]", "(a -> a) -> [a] -> [a]", "UnderGeneralization"),
        ("a -> a -> a", "a -> b -> a", "OverGeneralization"),
        ("a -> [a] -> Bool", "[a] -> a -> Bool", "ArgOrderMismatch"),
        ("a -> a", "a -> a -> a", "ArityMismatch"),
        ("Eq a => a -> [a] -> Bool", "Ord a => a -> [a] -> Bool", "ConstraintError"),
        ("Eq a => a -> [a] -> Bool", "a -> [a] -> Bool", "ConstraintError"),
        ("Eq a => a -> [a] -> Bool", "(Eq a, Show a) => a -> [a] -> Bool", "UnderGeneralization"),
        ("Maybe a -> a", "[a] -> a", "TypeMismatch"),
        ("String -> Int", "[Char] -> Int", None),
    ]
    from core.families.typeinf.env import base_synonyms

    for truth, answer, expected in cases:
        assert classify(parse_type(truth).scheme, parse_type(answer).scheme, base_synonyms()) == expected, (truth, answer)
    f = fam()
    inst = f.generate_one(f.resolve_params("tfbench-base"), 0, 0)
    _, verdict = f.check(inst, "not :: Bool -> Bool -> Bool")
    assert verdict.details["category"] == "ArityMismatch" and any(not r.ok for r in verdict.diff)
    _, verdict = f.check(inst, "")
    assert verdict.details["category"] == "ResponseError"
    _, verdict = f.check(inst, "not x = x")
    assert verdict.details["category"] == "InstructionFollowing"


def test_extraction_variants() -> None:
    f = fam()
    inst = next(i for i in f.generate(f.resolve_params("tfbench-base"), 0, 250) if i.name == "break")
    ok = [
        "break :: (a -> Bool) -> [a] -> ([a], [a])",
        "(a -> Bool) -> [a] -> ([a], [a])",
        "<think>maybe Int</think>\n```haskell\nbreak :: (a -> Bool)\n      -> [a] -> ([a], [a])\n```\nDone.",
        "break :: forall a. (a -> Bool) -> [a] -> ([a], [a])",
        "break :: (x -> Bool) -> [x] -> ([x], [x]) -- splits at the first match",
        "span :: (a -> Bool) -> [a] -> ([a], [a])\nbreak :: (b -> Bool) -> [b] -> ([b], [b])",
    ]
    for text in ok:  # the lenient judgement; the released one wants the type alone (test_typeinf_released)
        answer, verdict = f.check(inst, text)
        assert verdict.details["correct_lenient"], (text, answer, verdict.explanation)
    assert [f.check(inst, text)[1].correct for text in ok] == [True, True, False, True, True, False]
    words = next(i for i in f.generate(f.resolve_params("tfbench-base"), 0, 250) if i.name == "words")
    assert f.check(words, "words :: [Char] -> [[Char]]")[1].correct
    assert f.check(words, "words :: String -> [String]")[1].correct


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_extraction_never_raises(text: str) -> None:
    f = fam()
    inst = f.generate_one(f.resolve_params("tfbench-base"), 0, 5)
    answer = f.extract(text, inst)
    assert answer.ok in (True, False)
    f.verify(inst, answer)


def test_each_rewrite_operator_alone() -> None:
    f = fam()
    base = next(i for i in f.generate(f.resolve_params("tfbench-base"), 0, 250) if i.name == "lookup")
    views = {}
    for preset in ("tfbench-nl-types", "tfbench-tyvars", "tfbench-bindings", "tfbench-pure"):
        params = f.resolve_params(preset)
        views[preset] = f.generate_one(params, 0, base.index if base.index is not None else 0)
    types, tyvars, binds, pure = (views[p] for p in ("tfbench-nl-types", "tfbench-tyvars", "tfbench-bindings",
                                                     "tfbench-pure"))
    assert types.name == "lookup" and "T1" in types.ground_truth["signature"] and " a " in types.ground_truth["signature"]
    assert tyvars.name == "lookup" and "t1" in tyvars.ground_truth["signature"] and "Eq" in tyvars.ground_truth["signature"]
    assert binds.name == "f1" and "Eq a" in binds.ground_truth["signature"]
    assert pure.ground_truth["signature"] == "f1 :: T1 t1 => t1 -> [(t1, t2)] -> T2 t2"
    assert "`f2`" in pure.code  # (==) keeps its infix position
    for inst in views.values():
        assert f.check(inst, f.oracle_response(inst))[1].correct


def test_trace_has_focus_documents_and_divergence() -> None:
    f = fam()
    inst = next(i for i in f.generate(f.resolve_params("tfbench-base"), 0, 250) if i.name == "words")
    t = f.trace(inst)
    assert t.steps and t.documents[0].name == "code" and all(s.focus is not None for s in t.steps)
    assert any(s.kind == "unify" and any(r.status == "new" for r in s.state) for s in t.steps)
    assert "[Char] -> [[Char]]" in t.title
    wrong = f.trace(inst, f.extract("words :: String -> [Int]", inst))
    assert wrong.reference is not None and wrong.divergence is not None
    fail = wrong.steps[wrong.divergence["step"]]
    assert fail.kind == "fail" and fail.focus.line >= 1
    less = f.trace(next(i for i in f.generate(f.resolve_params("tfbench-base"), 0, 250) if i.name == "id"),
                   f.extract("id :: Int -> Int", None))
    assert less.divergence is not None and "most general" in less.divergence["reason"]
    right = f.trace(inst, f.extract(f.oracle_response(inst), inst))
    assert right.divergence is None and right.reference is not None


def test_foreign_instance_verifies_solves_traces() -> None:
    f = fam()
    raw = {"id": "my-7", "family": "typeinf", "code": "twice f x = f (f x)", "dependencies": [], "name": "twice",
           "variant": "base", "ground_truth": {"signature": "twice :: (a -> a) -> a -> a"},
           "meta": {"whatever": [1, 2]}}
    inst = f.parse_instance(raw)
    assert inst.id == "my-7"
    assert f.check(inst, f.baseline_response(inst, 1.0))[1].correct
    assert f.check(inst, f.oracle_response(inst))[1].correct
    assert f.trace(inst).steps
    assert set(f.feature_values(inst)) == set(f.features)
    prompt = f.prompt(inst, "chat")
    assert prompt.messages[0]["role"] == "system" and prompt.messages[1]["content"].rstrip().endswith("twice ::")


def _rows(variant: str, right: int, n: int) -> list[tuple[Instance, Verdict]]:
    f = fam()
    inst = f.generate_one(f.resolve_params("tfbench-base" if variant == "base" else "tfbench-pure"), 0, 0)
    return [(inst, Verdict(correct=i < right, score=float(i < right), status="correct" if i < right else "wrong",
                           details={} if i < right else {"category": "ArityMismatch"})) for i in range(n)]


def test_metrics_acc_rs_re_with_intervals() -> None:
    rows = _rows("base", 80, 100) + _rows("pure", 40, 100)
    m = summarize(rows)
    assert m["acc"] == 0.8 and m["acc_pure"] == 0.4 and m["rs"] == pytest.approx(0.5)  # never pooled
    assert m["acc_lo"] < 0.8 < m["acc_hi"] and m["rs_lo"] < 0.5 < m["rs_hi"]
    assert m["errors_ArityMismatch"] == 80
    pairs = [({"id": "r1", "solver": "m"}, _rows("base", 80, 100)), ({"id": "r2", "solver": "m"}, _rows("pure", 40, 100)),
             ({"id": "r3", "solver": "m-ttc"}, _rows("base", 90, 100)), ({"id": "r4", "solver": "m-ttc"}, _rows("pure", 60, 100))]
    c = compare_metrics(pairs)
    assert c["per_solver"]["m"]["rs"] == pytest.approx(0.5)
    assert c["re"] == pytest.approx((0.6 - 0.4) / (0.9 - 0.8))
    assert c["re_lo"] is not None and c["re_lo"] <= c["re"] <= c["re_hi"]


def test_cli_verify_prints_the_papers_metrics(tmp_path: Path, log_db: Path) -> None:
    from core.cli import cli

    runner = CliRunner()
    inst_file = tmp_path / "inst.jsonl"
    res = runner.invoke(cli, ["generate", "typeinf", "--preset", "tfbench-base", "--seed", "0", "--count", "12",
                              "--out", str(inst_file)])
    assert res.exit_code == 0, res.output
    pure_file = tmp_path / "pure.jsonl"
    res = runner.invoke(cli, ["generate", "typeinf", "--preset", "tfbench-pure", "--seed", "0", "--count", "12",
                              "--out", str(pure_file)])
    assert res.exit_code == 0, res.output
    both = tmp_path / "both.jsonl"
    both.write_text(inst_file.read_text() + pure_file.read_text())
    answers = tmp_path / "answers.jsonl"
    res = runner.invoke(cli, ["solve", "typeinf", "--instances", str(both), "--solver", "baseline", "--out",
                              str(answers)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, ["verify", "typeinf", "--instances", str(both), "--answers", str(answers),
                              "--format", "json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output[res.output.index("{"):])
    overall = report["overall"]
    for key in ("acc", "acc_lo", "acc_hi", "acc_pure", "rs", "rs_lo", "rs_hi", "acc_lenient", "acc_pure_lenient"):
        assert key in overall
    assert set(report["by"]["poly_type"]) <= {"monomorphic", "parametric", "ad-hoc"}
