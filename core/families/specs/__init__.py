"""`specs`: FormalBench's formal specification inference, on C programs with ACSL and Frama-C WP.

Each concern lives in its own module (csyntax, corpus, generator, presets, prompt, extract, wp, runtime,
mutate, transform, verify, trace, metrics, baseline, importer, repair); this class only names them.
Nothing heavy is imported here: tree-sitter and the tools load on first use.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from core.families.specs.tools import REQUIRED
from core.family import TEMPLATE_CURSOR, Citation, Family, hook, lazy, register

if TYPE_CHECKING:  # annotations only: importing the family must not load pydantic (start-up)
    from core.instance import Instance


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
    # the control flow and the loops are read off the program a model is shown, and the transformation
    # says how the program was rewritten, not what its contract is: no hint
    hint_features = ()
    prompt_styles = ("zero-shot", "few-shot", "chain-of-thought", "least-to-most", "paper")
    label_field = "function"  # the id is a hash: the browser shows this
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
    complete_verdict = hook(".verify:complete_verdict")
    # completeness's mutants as tasks of their own on a cluster (core.cluster.remote)
    check_parts = hook(".verify:check_parts")
    run_part = hook(".verify:run_part")
    finish_parts = hook(".verify:finish_parts")
    trace = hook(".trace:trace")
    oracle_response = hook(".prompt:oracle_response")
    baseline_response = hook(".baseline:baseline_response")
    summarize = hook(".metrics:summarize")
    import_files = hook(".importer:import_files")

    def answer_template_for(self, instance: Instance | None) -> str:
        """The task's program in a ```c fence with an empty contract comment right above the function to
        specify, the cursor inside it: what a person adds to make an answer (the format only without an
        instance)."""
        code, name = getattr(instance, "code", None), getattr(instance, "function", None)
        if not isinstance(code, str) or not isinstance(name, str):
            return self.answer_template
        lines = code.strip("\n").split("\n")
        # the definition: a top-level line naming the function that is not a prototype
        at = next((i for i, line in enumerate(lines) if line[:1].strip() and re.search(rf"\b{re.escape(name)}\s*\(", line)
                   and not line.rstrip().endswith(";")), 0)
        contract = [f"/*@ {TEMPLATE_CURSOR}", "*/"]
        return "```c\n" + "\n".join(lines[:at] + contract + lines[at:]) + "\n```"
    feature_values = hook(".corpus:feature_values")
