"""`specs`: FormalBench's formal specification inference, on C programs with ACSL and Frama-C WP.

Each concern lives in its own module (csyntax, corpus, generator, presets, prompt, extract, wp, runtime,
mutate, transform, verify, trace, metrics, baseline, importer, repair); this class only names them.
Nothing heavy is imported here: tree-sitter and the tools load on first use.
"""

from __future__ import annotations

from core.families.specs.tools import REQUIRED
from core.family import Citation, Family, hook, lazy, register


@register
class SpecsFamily(Family):
    id = "specs"
    title = "Formal specification inference (FormalBench, C/ACSL with Frama-C WP)"
    citation = Citation(
        title="Can LLMs Reason About Program Semantics? A Comprehensive Evaluation of LLMs on Formal "
              "Specification Inference",
        authors="Thanh Le-Cong, Bach Le, Toby Murray",
        venue="ACL 2025 (Long Papers); arXiv:2503.04779",
        url="https://arxiv.org/abs/2503.04779",
    )
    instance_model = lazy(".model:SpecsInstance")
    params_model = lazy(".model:SpecsParams")
    answer_model = lazy(".model:SpecsAnswer")
    step_model = lazy(".model:GoalStep")
    features = ("control_flow", "loops", "transformation")
    prompt_styles = ("zero-shot", "few-shot", "chain-of-thought", "least-to-most", "paper")
    requires = REQUIRED
    answer_language = "c"
    answer_template = "```c\n/*@ requires ...;\n    assigns ...;\n    ensures ...;\n*/\n```"
    answer_placeholder = "the task's program with ACSL annotations added (code unchanged), in a ```c block"
    baseline_complete = False
    baseline_floor = 0.25
    commands = {"specs-repair": ".cli:repair_command"}

    presets = hook(".presets:PRESETS")
    generate_one = hook(".generator:generate_one")
    prompt = hook(".prompt:render_prompt")
    extract = hook(".extract:extract")
    verify = hook(".verify:verify")
    verify_many = hook(".verify:verify_many")
    trace = hook(".trace:trace")
    oracle_response = hook(".prompt:oracle_response")
    baseline_response = hook(".baseline:baseline_response")
    summarize = hook(".metrics:summarize")
    import_files = hook(".importer:import_files")
    feature_values = hook(".corpus:feature_values")
