"""The imports family against the real JDK and jars: the knowledge base, the generator's snippets and
their transformed variants under javac, the baseline, snippet folders, ddmin, the compile service."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from core.families.imports import compiler
from core.families.imports.presets import PRESETS
from core.families.imports.snippet import simple_name, split_imports, with_imports
from core.instance import Instance
from core.tools import HelperTimeout

pytestmark = pytest.mark.javac
FIXTURES = Path(__file__).parent / "fixtures"
LIBS = ("jdk", "jodatime", "xstream", "hibernate")


def _preset(family, name):
    preset = PRESETS[name]
    return list(family.generate(family.resolve_params(name), preset.seed, preset.count))


# ---- knowledge base ----------------------------------------------------------------------------
def test_kb_has_the_libraries_and_their_ambiguities(kb) -> None:
    stats = kb.stats()
    assert stats["types"] > 5000 and stats["ambiguous_simple_names"] > 100
    assert {"jar:joda-time.jar", "jar:xstream.jar", "jar:hibernate-core.jar", "jdk:java.base"} <= set(stats["by_origin"])
    logger = kb.candidates("Logger")
    assert "java.util.logging.Logger" in logger and "org.slf4j.Logger" in logger
    assert {"java.util.Date", "java.sql.Date"} <= set(kb.candidates("Date"))
    assert "org.w3c.dom.Element" in kb.candidates("Element") and "org.dom4j.Element" in kb.candidates("Element")
    assert any(m.name == "getLogger" and m.static for m in kb.methods("java.util.logging.Logger"))
    assert any(c.params == ("long",) for c in kb.get("org.joda.time.DateTime").ctors)
    assert kb.is_subtype("org.joda.time.DateTime", "org.joda.time.ReadableInstant")
    # inherited members come through the supertypes (getMillis is declared in BaseDateTime)
    assert any(m.name == "getMillis" for m in kb.methods("org.joda.time.DateTime"))


def test_kb_build_is_deterministic(kb, tmp_path, monkeypatch) -> None:
    from core.families.imports import kb as kbmod
    from core.families.imports.javabuild import helper_classes

    first = gzip.decompress(kbmod.kb_path().read_bytes())
    classes = helper_classes()  # the compiled extractor is reused; the dump is rebuilt from the jars
    (tmp_path / "imports").mkdir()
    shutil.copytree(classes, tmp_path / "imports" / classes.name)
    monkeypatch.setenv("SEMBENCH_CACHE_DIR", str(tmp_path))
    path, _seconds, built = kbmod.build()
    assert built and path.parent.parent == tmp_path
    assert gzip.decompress(path.read_bytes()) == first


# ---- generated snippets ------------------------------------------------------------------------
def test_thalia_like_snippets_compile_and_need_every_import(family) -> None:
    instances = _preset(family, "thalia-like")
    assert [sum(1 for i in instances if i.library == lib) for lib in LIBS] == [50, 50, 50, 50]
    assert all(i.meta["n_types"] == len(i.expected()) >= 1 for i in instances)
    assert sum(i.meta["n_ambiguous"] for i in instances) > 100
    assert all("import " not in i.code for i in instances)
    results = compiler.compile_sources([with_imports(i.code, i.expected()) for i in instances], together=True,
                                       confirm=True)
    failed = [(i.id, r.summary()) for i, r in zip(instances, results, strict=True) if not r.ok]
    assert not failed, failed[:3]
    drops, dropped = [], []
    for inst in instances:
        imports = inst.expected()
        for j, entry in enumerate(imports):
            drops.append(with_imports(inst.code, imports[:j] + imports[j + 1:]))
            dropped.append((inst.id, entry))
    results = compiler.compile_sources(drops, together=True)
    unneeded = [d for d, r in zip(dropped, results, strict=True) if r.ok or not r.decided]
    assert not unneeded, unneeded[:5]
    # each failure is about the removed type (not an accident of compiling many units in one task)
    unrelated = [d for d, r in zip(dropped, results, strict=True)
                 if not any(simple_name(d[1]) in diag.message for diag in r.diagnostics)]
    assert not unrelated, unrelated[:5]


def test_generated_snippets_compile_over_several_seeds(family) -> None:
    """The generator never emits a snippet whose ground truth does not compile. The three
    items that once failed (an overload made ambiguous by a generic sibling; a sibling whose parameter
    type is not on the classpath), then 300 fresh items of each of three other seeds."""
    from core.families.imports.generator import generate_one

    params = family.resolve_params("thalia-like")
    chosen = [(1, 692), (2, 302), (3, 618)] + [(seed, i) for seed in (4, 5, 6) for i in range(300)]
    instances = [generate_one(params, seed, index) for seed, index in chosen]
    results = compiler.compile_sources([with_imports(i.code, i.expected()) for i in instances], together=True,
                                       confirm=True, cache=False)
    assert all(r.decided for r in results)
    failed = [(where, r.summary()) for where, r in zip(chosen, results, strict=True) if not r.ok]
    assert not failed, failed[:3]


BASE_PRESETS = [name for name, p in PRESETS.items() if not p.params.get("transform")]
TRANSFORMS = {"rename": ["rename"], "lower": ["lower"], "comments": ["comments"], "all": ["rename", "lower", "comments"]}


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_transformed_variants_compile_with_the_same_imports(family, transform) -> None:
    """Every snippet of every untransformed preset, transformed, compiles with the same imports."""
    base, variants = [], []
    for name in BASE_PRESETS:
        preset = PRESETS[name]
        base += _preset(family, name)
        params = family.resolve_params(name, {"transform": ",".join(TRANSFORMS[transform])})
        variants += list(family.generate(params, preset.seed, preset.count))
    if transform != "all":
        assert [v.id for v in variants[:200]] == [v.id for v in _preset(family, f"thalia-like-{transform}")]
    for b, v in zip(base, variants, strict=True):
        assert v.expected() == b.expected() and v.library == b.library
        assert v.meta["variant_of"] == b.id and v.code != b.code
    results = compiler.compile_sources([with_imports(v.code, v.expected()) for v in variants], together=True,
                                       confirm=True)
    failed = [(v.id, r.summary()) for v, r in zip(variants, results, strict=True) if not r.ok]
    assert not failed, failed[:3]


def test_baseline_scores_and_is_unaffected_by_transformations(family) -> None:
    from core.families.imports.baseline import solve_instance
    from core.families.imports.verify import score

    base = _preset(family, "thalia-like")
    answers = [solve_instance(i).imports for i in base]
    totals = [score(i.expected(), a) for i, a in zip(base, answers, strict=True)]
    tp = sum(t["tp"] for t in totals)
    precision = tp / sum(t["n_predicted"] for t in totals)
    recall = tp / sum(t["n_expected"] for t in totals)
    assert precision > 0.8 and recall > 0.8, (precision, recall)
    variants = _preset(family, "thalia-like-all")
    assert [solve_instance(v).imports for v in variants] == answers


# ---- verification ------------------------------------------------------------------------------
def test_verdicts_carry_javac_diagnostics_and_batch_like_single(family) -> None:
    inst = _preset(family, "thalia-jodatime")[0]
    wrong = family.extract("import java.util.List;")
    verdict = family.verify(inst, wrong)
    assert not verdict.correct and verdict.details["compile"]["checked"]
    assert not verdict.details["compile"]["ok"] and verdict.details["compile"]["diagnostics"]
    assert "compile error" in verdict.explanation and verdict.diff[-1].label == "compile"
    right = family.verify(inst, family.extract(family.oracle_response(inst)))
    assert right.correct and right.details["compile"]["ok"]
    items = [(i, family.extract(family.baseline_response(i, 10))) for i in _preset(family, "ambiguous")[:12]]
    many = family.verify_many(items)
    one = [family.verify(i, a) for i, a in items]
    assert [v.model_dump(exclude={"details"}) for v in many] == [v.model_dump(exclude={"details"}) for v in one]
    assert [v.details["compile"]["ok"] for v in many] == [v.details["compile"]["ok"] for v in one]


def test_compile_service_restarts_and_bounds_requests(monkeypatch) -> None:
    source = "class Bounded { java.util.List l; }"
    assert compiler.compile_sources([source], cache=False)[0].ok
    service = compiler.service()
    starts = service.starts
    os.kill(service.pid, signal.SIGKILL)  # the JVM this test's process started
    assert compiler.compile_sources([source], cache=False)[0].ok
    assert service.starts == starts + 1
    # a request that hangs is cut off: the JVM is killed and the next request starts a fresh one
    with pytest.raises(HelperTimeout):
        service.request({"op": "sleep", "ms": 60000}, timeout_s=0.5)
    assert not service.alive
    assert compiler.compile_sources([source], cache=False)[0].ok and service.starts == starts + 2

    def hang(*_args, **_kwargs):
        raise HelperTimeout("java did not answer within the time limit")

    monkeypatch.setattr(service, "request", hang)
    hung = compiler.compile_sources([source + " // once more"], cache=False)[0]
    assert not hung.decided and "did not answer" in (hung.error or "") and not hung.ok
    monkeypatch.undo()
    assert compiler.compile_sources([source], cache=False)[0].ok


def test_foreign_instance_verifies_solves_and_traces(family) -> None:
    data = {"id": "so-17", "family": "imports", "library": "jodatime", "meta": {"whatever": [1, 2]},
            "code": "public class A {\n  public static void main(String[] a) {\n    Period p = new Period(1, 2, 3, 4);\n"
                    "    System.out.println(p.getYears());\n  }\n}\n",
            "ground_truth": {"imports": ["org.joda.time.Period"]}}
    inst = family.parse_instance(data)
    assert inst.id == "so-17"
    assert family.verify(inst, family.extract(family.oracle_response(inst))).correct
    assert family.check(inst, family.baseline_response(Instance.model_validate(data), 5))[1].correct
    trace = family.trace(inst)
    assert trace.documents and all(s.focus is not None for s in trace.steps)
    constraints = [s for s in trace.steps if s.kind.startswith("constraint")]
    assert constraints and trace.steps[-1].state[0].value == "org.joda.time.Period"
    # Period's candidates (java.time, jdk.jfr, joda) shrink to one: only joda's has that constructor
    assert len(trace.steps[0].data["candidates"]["Period"]) == 3
    assert constraints[-1].data["candidates"]["Period"] == ["org.joda.time.Period"]
    assert any(s.state[0].status == "changed" for s in constraints)
    answered = family.trace(inst, family.extract("import java.util.Date;"))
    assert answered.reference is not None and answered.divergence is not None
    for t in (trace, answered, answered.reference):
        for step in t.steps:
            family.step_model.model_validate(step.data or {"kind": step.kind})


# ---- snippet folders ---------------------------------------------------------------------------
HAND_WRITTEN = {"imports-jodatime-JodaTime17", "imports-jodatime-JodaTime31", "imports-hibernate-hibernate_class_3",
                "imports-jdk-Jdk12", "imports-android-Android04", "imports-xstream-XStream05"}


def test_snippet_folder_imports_with_flags(family) -> None:
    everything = family.import_files(FIXTURES / "so")  # with the 84 StatType-SO snippets below stattype*/
    assert everything is not None and len(everything) == 6 + 57 + 27
    instances = [i for i in everything if i.id in HAND_WRITTEN]
    assert len(instances) == 6
    by_id = {i.id: i for i in instances}
    joda = by_id["imports-jodatime-JodaTime17"]
    assert joda.library == "jodatime" and joda.code.startswith("package jodatime;")
    assert joda.expected() == ["org.joda.time.DateTime", "org.joda.time.format.DateTimeFormat",
                               "org.joda.time.format.DateTimeFormatter"]
    assert "//ID = 1000017" in joda.code and "import " not in split_imports(joda.code).code.split("\n")[2]
    android = by_id["imports-android-Android04"]
    assert android.meta["unresolved_imports"] == ["android.app.Activity", "android.os.Bundle"]
    assert by_id["imports-jdk-Jdk12"].expected() == ["java.util.logging.Logger", "java.util.logging.Level",
                                                     "static java.lang.Math.max"]
    assert by_id["imports-xstream-XStream05"].meta["unresolved_imports"] == []
    for inst in instances:
        prompt = family.prompt(inst).messages[-1]["content"]
        assert "import org." not in prompt and "import java.util.logging" not in prompt
    resolvable = [i for i in instances if i.library != "android"]
    results = compiler.compile_sources([with_imports(i.code, i.expected()) for i in resolvable])
    assert all(r.ok for r in results), [r.summary() for r in results]
    assert family.check(joda, family.baseline_response(joda, 10))[1].correct
    assert family.import_files(FIXTURES) is not None and family.import_files(FIXTURES / "nothing") is None


def test_library_flag_overrides_folder_names(family, monkeypatch) -> None:
    monkeypatch.setenv("SEMBENCH_IMPORTS_LIBRARY", "JodaTime")
    instances = family.import_files(FIXTURES / "so" / "android")
    assert [i.library for i in instances] == ["jodatime"] and instances[0].id == "imports-jodatime-Android04"


# ---- minimisation and the CLI ------------------------------------------------------------------
def test_ddmin_minimises_against_the_baseline_within_budget(family, tmp_path) -> None:
    from core.families.imports.cli import ddmin_command, kb_group
    from core.families.imports.ddmin import baseline_infer, ddmin
    from core.families.imports.prompt import prompt_code
    from core.families.imports.trace import ddmin_trace

    inst = _preset(family, "thalia-jodatime")[1]
    infer = baseline_infer(inst.library)
    result = ddmin(prompt_code(inst), infer, budget=1500)
    assert result.calls <= 1500 and result.tokens_after < result.tokens_before / 2
    assert set(result.expected) == set(infer(result.minimized)) and result.prop == "equal"  # Algorithm 2
    report = result.report()
    assert set(report["by_category"]) == {"control_structural", "whitespace", "inferred_simple_name", "other"}
    trace = ddmin_trace(inst.id, result)
    assert len(trace.steps) == len(result.rounds) + 2
    file = tmp_path / "one.jsonl"
    file.write_text(json.dumps(inst.to_json_dict()) + "\n")
    out = CliRunner().invoke(ddmin_command, ["--instances", str(file), "--id", inst.id, "--budget", "50",
                                             "--format", "json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["calls"] <= 50
    loose = CliRunner().invoke(ddmin_command, ["--instances", str(file), "--id", inst.id, "--budget", "50",
                                               "--property", "superset", "--format", "json"])
    assert loose.exit_code == 0 and json.loads(loose.output)["property"] == "superset", loose.output
    stats = CliRunner().invoke(kb_group, ["stats", "--format", "json"])
    assert stats.exit_code == 0 and json.loads(stats.output)["types"] > 5000
    missing = CliRunner().invoke(ddmin_command, ["--instances", str(file), "--id", "nope"])
    assert missing.exit_code != 0


def test_package_line_is_kept_and_imports_go_after_it(family) -> None:
    params = family.resolve_params(None, {"library": "xstream,hibernate", "package": "snippets.demo"})
    instances = list(family.generate(params, 3, 6))
    assert all(i.code.startswith("package snippets.demo;\n") for i in instances)
    prompt = family.prompt(instances[0]).messages[-1]["content"]
    assert "package snippets.demo;" in prompt and "import " not in prompt.split("package snippets.demo;")[1]
    sources = [with_imports(i.code, i.expected()) for i in instances]
    assert all(s.index("package snippets.demo;") < s.index("import ") for s in sources)
    assert all(r.ok for r in compiler.compile_sources(sources))


def test_parameters_steer_the_generator(family) -> None:
    def batch(**overrides):
        params = family.resolve_params(None, {"library": "jdk,jodatime,xstream,hibernate",
                                              **{k: str(v) for k, v in overrides.items()}})
        return list(family.generate(params, 5, 40))

    plain, ambiguous = batch(ambiguity=0.0), batch(ambiguity=1.0)
    share = [sum(i.meta["n_ambiguous"] for i in b) / sum(i.meta["n_types"] for i in b) for b in (plain, ambiguous)]
    assert share[1] > share[0] + 0.2, share
    small = batch(n_types=2, statements=4, chain_depth=1)
    assert all(i.meta["n_types"] <= 2 and i.meta["statements"] <= 4 and i.meta["chain_depth"] <= 1 for i in small)
    deep = batch(chain_depth=3, statements=12)
    assert max(i.meta["chain_depth"] for i in deep) == 3
    assert sum(i.meta["statements"] for i in deep) / len(deep) > 10


def test_baseline_survives_broken_snippets(family, kb) -> None:
    """ddmin feeds the baseline every kind of broken text; it must answer, not crash."""
    import random

    from core.families.imports.baseline import solve
    from core.families.imports.ddmin import tokenize

    cyclic = "class A { void m() { var a = b.m(); var b = a.n(); Level x = a; } }"
    assert solve(cyclic, kb, "jdk").imports == ["java.util.logging.Level"]
    rng = random.Random(7)
    for inst in _preset(family, "thalia-like-all")[:20]:
        tokens = tokenize(inst.code)
        for keep in (0.3, 0.7, 0.9):
            text = "".join(t for t in tokens if rng.random() < keep)
            assert isinstance(solve(text, kb, inst.library).imports, list)


def test_a_huge_package_name_is_too_long_not_a_compile_crash(family) -> None:
    """A 50,000-part name overflowed javac's stack and was reported as a compile crash.
    The answer is now the failure `too_long`, decided before javac; a name at the bound still reaches
    javac and is an ordinary compile error."""
    from core.families.imports.extract import MAX_PARTS, extract

    instance = _preset(family, "thalia-like")[0]
    right = "\n".join(f"import {e};" for e in instance.expected())
    verdict = family.verify(instance, extract(f"import {'.'.join(['a'] * 50_000)}.X;\n{right}"))
    assert verdict.status == "extraction_error" and not verdict.correct
    assert verdict.details["extraction_error"] == "too_long"
    assert "compile" not in verdict.details and "crash" not in verdict.explanation
    at_bound = extract(f"import {'.'.join(['a'] * (MAX_PARTS - 1))}.X;\n{right}")
    assert at_bound.ok
    verdict = family.verify(instance, at_bound)
    compile_info = verdict.details["compile"]
    assert compile_info["checked"] and not compile_info["ok"]
    assert all(d["code"] != "crash" for d in compile_info["diagnostics"]), compile_info


# ---- the attempt trace says why each simple name's FQN was or was not accepted ----------
def test_answer_trace_says_why_each_name_was_accepted_or_not(family) -> None:
    data = {"id": "so-18", "family": "imports", "library": "jodatime", "meta": {},
            "code": "public class A {\n  public static void main(String[] a) {\n    Period p = new Period(1, 2, 3, 4);\n"
                    "    System.out.println(p.getYears());\n  }\n}\n",
            "ground_truth": {"imports": ["org.joda.time.Period"]}}
    inst = family.parse_instance(data)

    def name_step(response: str):
        trace = family.trace(inst, family.extract(response))
        step = next(s for s in trace.steps if s.data.get("simple_name") == "Period")
        return {row.name: row for row in step.state}, step.lines

    # a knowledge-base candidate, not the expected one: javac's error on Period (its constructor) is named
    rows, lines = name_step("import java.time.Period;")
    assert rows["knowledge base"].value == "java.time.Period, jdk.jfr.Period, org.joda.time.Period"
    assert rows["why"].status == "fail" and "not the expected org.joda.time.Period" in rows["why"].value
    assert "javac: 1 error(s) on `Period`" in rows["why"].value
    assert lines and "constructor Period" in lines[0]
    # no import at all: cannot find symbol on that name
    rows, lines = name_step("import java.util.Date;")
    assert "imports nothing" in rows["why"].value and any("symbol: class Period" in line for line in lines)
    # a name the knowledge base does not know
    rows, _ = name_step("import com.example.Period;")
    assert "is not a type the knowledge base knows" in rows["why"].value
    # the expected one
    rows, lines = name_step("import org.joda.time.Period;")
    assert rows["why"].status == "ok" and rows["why"].value.startswith("accepted") and not lines
    # the baseline's tie-break says it is a heuristic
    assert "heuristic" in family.trace(inst).steps[-1].label
