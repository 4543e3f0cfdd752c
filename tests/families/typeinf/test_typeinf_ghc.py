"""Everything GHC decides, batched: a handful of GHC runs for the whole corpus.

* every corpus task compiles under its ground truth and GHC infers that type without it (or the
  principal type the task records where base declares a more specific one);
* every pure task compiles with the declarations the checker generates;
* generated tasks: GHC's type is the generator's ground truth;
* the in-process checker and the GHC oracle agree on every comparison: truth vs itself, renamed,
  reordered, `forall`, String/[Char], and perturbed wrong answers;
* released-format files import and their tasks compile.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from core.families.typeinf.check import equivalent
from core.families.typeinf.corpus import binder, load_corpus, solve_dependencies
from core.families.typeinf.env import task_env
from core.families.typeinf.ghc import TaskSource, pure_source, validate
from core.families.typeinf.hsparse import parse_type, split_signature
from core.families.typeinf.oracle import oracle_many
from core.families.typeinf.perturb import equivalents, perturbations
from core.family import get_family
from tests.families.typeinf.released_fixtures import NINE, by_file, released_base

pytestmark = pytest.mark.ghc
FIXTURES = Path(__file__).parent / "fixtures"


def _family():
    return get_family("typeinf")


def test_every_corpus_task_is_validated_by_ghc() -> None:
    tasks = load_corpus()
    sources = [TaskSource(t.key, t.name, t.code, solve_dependencies(t), t.signature) for t in tasks]
    outcomes = validate(sources)
    failures = []
    for task, source in zip(tasks, sources, strict=True):
        o = outcomes[task.key]
        expected = task.notes.get("more-specific") or split_signature(task.signature)[1]
        synonyms = task_env(source.dependencies).synonyms
        if not o.signature_ok:
            failures.append((task.key, "signature", o.signature_error[:300]))
        elif o.inferred is None or not equivalent(parse_type(o.inferred).scheme, parse_type(expected).scheme,
                                                   synonyms):
            failures.append((task.key, "inferred", o.inferred, o.infer_error[:300]))
    assert not failures, failures
    specific = [t.key for t in tasks if "more-specific" in t.notes]
    assert sorted(specific) == [">>=-Identity", "asTypeOf", "deleteBy"]


def test_every_pure_task_compiles() -> None:
    fam = _family()
    params = fam.resolve_params("tfbench-pure")
    instances = list(fam.generate(params, 0, fam.presets()["tfbench-pure"].count))
    sources = [pure_source(i.id, i.name, i.code, i.dependencies, i.ground_truth["signature"], i.meta["renaming"])
               for i in instances]
    outcomes = validate(sources, infer=False)
    bad = {k: o.signature_error[:300] for k, o in outcomes.items() if not o.signature_ok}
    assert not bad, bad
    assert len(outcomes) >= 150


def test_each_rewrite_operator_alone_still_compiles() -> None:
    fam = _family()
    sources = []
    for preset in ("tfbench-nl-types", "tfbench-tyvars", "tfbench-bindings"):
        params = fam.resolve_params(preset)
        for i in range(0, fam.presets()[preset].count, 5):  # every fifth task of each ablation
            inst = fam.generate_one(params, 0, i)
            sources.append(pure_source(inst.id, inst.name, inst.code, inst.dependencies,
                                       inst.ground_truth["signature"], inst.meta["renaming"]))
    outcomes = validate(sources, infer=False)
    bad = {k: o.signature_error[:300] for k, o in outcomes.items() if not o.signature_ok}
    assert not bad, bad


def test_generated_tasks_agree_with_ghc() -> None:
    fam = _family()
    instances = []
    for preset in ("tf-generated", "tf-generated-hard"):
        params = fam.resolve_params(preset)
        instances.extend(fam.generate(params, 7, 9))
    sources = [TaskSource(i.id, i.name, i.code, i.dependencies, i.ground_truth["signature"]) for i in instances]
    outcomes = validate(sources)
    bad = []
    for inst in instances:
        o = outcomes[inst.id]
        truth = parse_type(split_signature(inst.ground_truth["signature"])[1]).scheme
        synonyms = task_env(inst.dependencies).synonyms
        if not o.signature_ok or o.inferred is None or not equivalent(parse_type(o.inferred).scheme, truth, synonyms):
            bad.append((inst.id, inst.code, inst.ground_truth, o.inferred, o.infer_error[:200], o.signature_error[:200]))
    assert not bad, bad
    assert {i.meta["poly_type"] for i in instances} == {"monomorphic", "parametric", "ad-hoc"}


def _comparisons(instances) -> list[tuple[str, str, str, list[str], object]]:  # noqa: ANN001
    rng = random.Random(1234)
    out = []
    for inst in instances:
        truth_text = split_signature(inst.ground_truth["signature"])[1].strip()
        scheme = parse_type(truth_text).scheme
        for label, answer in {**equivalents(truth_text, scheme, rng), **perturbations(scheme)}.items():
            out.append((inst.id, label, truth_text, answer, inst))
    return out


def test_checker_agrees_with_the_ghc_oracle_on_every_comparison() -> None:
    fam = _family()
    base = list(fam.generate(fam.resolve_params("tfbench-base"), 0, fam.presets()["tfbench-base"].count))
    pure = list(fam.generate(fam.resolve_params("tfbench-pure"), 0, 60))
    comparisons = _comparisons(base + pure)
    results = oracle_many([(truth, answer, list(inst.dependencies)) for _, _, truth, answer, inst in comparisons])
    disagreements = []
    counts = {"equal": 0, "different": 0}
    for (iid, label, truth, answer, inst), res in zip(comparisons, results, strict=True):
        answer_obj = fam.extract(f"{binder(inst.name)} :: {answer}", inst)
        checker = fam.verify(inst, answer_obj).correct
        counts["equal" if checker else "different"] += 1
        if checker != res.equivalent:
            disagreements.append((iid, label, truth, answer, checker, res.equivalent, res.error[:200]))
        if label in ("itself", "renamed", "reverse-named", "reordered", "forall", "string", "expanded-string"):
            assert checker, (iid, label, truth, answer)
    assert not disagreements, disagreements
    assert len(comparisons) >= 2000
    assert counts["different"] > 1000 and counts["equal"] > 1000


def test_oracle_traps() -> None:
    """Cases a naive GHC proof gets wrong: constraints of one class sorted as strings, `forall`,
    constraint order, superclass-implied constraints, synonyms."""
    cases = [
        ("(Eq a, Eq b) => b -> a -> Bool", "(Eq x, Eq y) => x -> y -> Bool", True),
        ("(Eq a, Show b) => a -> b -> String", "(Show y, Eq x) => x -> y -> [Char]", True),
        ("forall a b. (a -> b) -> [a] -> [b]", "(c -> d) -> [c] -> [d]", True),
        ("Ord a => a -> a", "(Eq a, Ord a) => a -> a", False),
        ("ShowS", "String -> String", True),
        ("a -> b -> a", "a -> a -> a", False),
        ("Show a => a -> String", "Show a => a -> String -> String", False),
    ]
    results = oracle_many([(t, a, []) for t, a, _ in cases])
    for (t, a, expected), res in zip(cases, results, strict=True):
        assert res.equivalent is expected, (t, a, res)
        checker = equivalent(parse_type(t).scheme, parse_type(a).scheme, task_env([]).synonyms)
        assert checker is expected, (t, a)
    assert not results[0].refl and results[0].subsumption  # the proof alone would reject it


def test_released_files_import_verify_and_compile() -> None:
    fam = _family()
    folder = fam.import_files(FIXTURES / "tfbench")
    jsonl = fam.import_files(FIXTURES / "tfbench.jsonl")
    assert folder is not None and jsonl is not None
    assert len(folder) == 5 and len(jsonl) == 2
    assert {i.variant for i in folder} == {"base", "pure"}
    instances = folder + jsonl
    for inst in instances:
        answer, verdict = fam.check(inst, fam.oracle_response(inst))
        assert verdict.correct, (inst.id, verdict.explanation)
        answer, verdict = fam.check(inst, fam.baseline_response(inst, 1.0))
        assert verdict.correct, (inst.id, fam.baseline_response(inst, 1.0), verdict.explanation)
    base = [i for i in instances if i.variant == "base"]
    sources = [TaskSource(i.id, i.name, i.code, i.dependencies, i.ground_truth["signature"]) for i in base]
    outcomes = validate(sources)
    for inst in base:
        o = outcomes[inst.id]
        assert o.signature_ok, (inst.id, o.signature_error)
        truth = parse_type(split_signature(inst.ground_truth["signature"])[1]).scheme
        synonyms = task_env(inst.dependencies).synonyms
        assert o.inferred is not None and equivalent(parse_type(o.inferred).scheme, truth, synonyms), (inst.id, o)


def test_released_operator_tasks_compile_under_their_ground_truth() -> None:
    """Operators, sections and backticked names (written in the released format) and real released task
    files: GHC compiles each under its ground truth and infers a type equivalent to it."""
    fam = _family()
    instances = fam.import_files(FIXTURES / "tfbench_ops") + by_file(*NINE)
    sources = [TaskSource(i.id, i.name, i.code, i.dependencies, i.ground_truth["signature"]) for i in instances]
    outcomes = validate(sources)
    failed = {inst.name for inst in instances if not outcomes[inst.id].signature_ok}
    # released properFraction is RealFrac's method defined at Ratio: its code alone cannot have the
    # class's type (docs/typeinf.md, baseline misses)
    assert failed == {"properFraction"}, {n: outcomes[i.id].signature_error for i in instances
                                          if (n := i.name) in failed}


def test_every_released_base_truth_and_right_baseline_answer_is_proved_by_ghc() -> None:
    """With GHC as the oracle: for each of the 188 released base tasks the ground truth is proved equal to
    the oracle's answer, and each baseline answer the checker accepts is proved equal to the truth; one
    batched GHC run (oracle_many)."""
    from core.families.typeinf.verify import truth_parts

    fam = _family()
    instances = released_base()
    assert len(instances) == 188
    items, labels = [], []
    for inst in instances:
        parts = truth_parts(inst)
        assert parts is not None, inst.id
        for solver, reply in (("oracle", fam.oracle_response(inst)), ("baseline", fam.baseline_response(inst, 1.0))):
            if fam.check(inst, reply)[1].correct:
                items.append((parts[1], split_signature(reply)[1], inst.dependencies))
                labels.append((inst.id, solver))
    assert sum(1 for _, s in labels if s == "oracle") == len(instances)
    results = oracle_many(items)
    assert not [(label, r.error[:300]) for label, r in zip(labels, results, strict=True) if not r.equivalent]
