"""`imports`: ThaliaType — which import statements does a Java snippet need?

Each concern lives in its own module (kb, generator, presets, prompt, extract, verify, metrics,
baseline, transform, ddmin, trace, folder, compiler, cli, compare); this class only names them. Heavy imports
(tree-sitter, the knowledge base, the JVM) happen inside the hooks, never here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.families.imports.tools import JAVA, JAVAC
from core.family import TEMPLATE_CURSOR, Citation, Family, hook, lazy, register

if TYPE_CHECKING:  # annotations only: importing the family must not load pydantic (start-up)
    from core.instance import Instance


@register
class ImportsFamily(Family):
    id = "imports"
    title = "Java snippet imports (ThaliaType)"
    citation = Citation(
        title="Beyond Memorization: Evaluating the True Type Inference Capabilities of LLMs for Java Code Snippets",
        authors="Yiwen Dong, Zhenyang Xu, Yongqiang Tian, Chengnian Sun",
        venue="arXiv:2503.04076 (2025)",
        url="https://arxiv.org/abs/2503.04076",
    )
    instance_model = lazy(".model:ImportsInstance")
    params_model = lazy(".model:ImportsParams")
    answer_model = lazy(".model:ImportsAnswer")
    step_model = lazy(".model:ImportsStep")
    features = ("library", "n_types", "n_ambiguous", "statements", "chain_depth", "transform")
    # which library, how many types to import and how many of them are ambiguous: the answer's shape
    hint_features = ("library", "n_types", "n_ambiguous")
    prompt_styles = ("chat",)
    requires = (JAVAC, JAVA)
    answer_language = "java"
    answer_template = "```java\nimport ;\n```"
    answer_placeholder = ""
    # SnR-style inference is not complete: ties between candidates that satisfy every constraint are
    # broken by a heuristic. Exact match is ~0.9 on thalia-like (tests/bench/bench_imports_baseline.py);
    # the floor is for the family kit's small samples.
    baseline_complete = False
    baseline_floor = 0.5
    commands = {"kb": ".cli:kb_group", "ddmin": ".cli:ddmin_command"}

    presets = hook(".presets:PRESETS")
    generate_one = hook(".generator:generate_one")
    prompt = hook(".prompt:render_prompt")
    extract = hook(".extract:extract")
    verify = hook(".verify:verify")
    verify_many = hook(".verify:verify_many")
    trace = hook(".trace:trace")
    oracle_response = hook(".baseline:oracle_response")
    baseline_response = hook(".baseline:baseline_response")
    summarize = hook(".metrics:summarize")
    compare_metrics = hook(".compare:compare_metrics")
    import_files = hook(".folder:import_files")
    describe_snapshot = hook(".folder:describe_snapshot")

    def feature_values(self, instance: Instance) -> dict[str, Any]:
        """The features from meta; the library from the instance's own field when meta does not name it
        (instance JSONL from elsewhere carries `library` but seldom `meta.library`), so every set has
        per-library figures."""
        values = super().feature_values(instance)
        if values.get("library") in (None, ""):
            values["library"] = getattr(instance, "library", None) or None
        return values

    def missing_requirements(self) -> list[tuple[str, str, bool, str]]:
        """javac and java, and the libraries' jars the knowledge base and the compile check read."""
        from core.families.imports.paths import LIBRARIES, jar_dir

        out = super().missing_requirements()
        folder = jar_dir()
        for package, jars in LIBRARIES.values():
            absent = [jar for jar in jars if not (folder / jar).is_file()]
            if absent:  # one entry per library: its first absent jar, and how many more
                more = f" (and {len(absent) - 1} more jars)" if len(absent) > 1 else ""
                out.append((f"{folder / absent[0]}{more}", package, False, "a library the snippets use"))
        return out

    def answer_template_for(self, instance: Instance | None) -> str:
        """The format, the cursor after `import ` (inside the fence, on the line to edit)."""
        return self.answer_template.replace("import ;", f"import {TEMPLATE_CURSOR};", 1)
