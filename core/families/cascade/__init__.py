"""`cascade`: PBEBench — find a cascade of `str.replace` programs mapping inputs to outputs.

Each concern lives in its own module (generator, presets, prompt, extract, verify, trace, metrics,
baseline, relations); this class only names them.
"""

from __future__ import annotations

from core.family import Citation, Family, hook, lazy, register


@register
class CascadeFamily(Family):
    id = "cascade"
    title = "Rewrite cascades (PBEBench)"
    citation = Citation(
        title="PBEBench: A Multi-Step Programming by Examples Reasoning Benchmark inspired by Historical Linguistics",
        authors="Atharva Naik, Prakam, Darsh Agrawal, Yash Mathur, Manav Kapadnis, Yuwei An, Clayton Marr, "
                "Carolyn Rose, David Mortensen",
        venue="arXiv:2505.23126 (2025)",
        url="https://arxiv.org/abs/2505.23126",
    )
    instance_model = lazy(".model:CascadeInstance")
    params_model = lazy(".model:CascadeParams")
    answer_model = lazy(".answer:CascadeAnswer")
    step_model = lazy(".answer:RuleStep")
    # `category` is the released detector's (the benchmark's categories), `category_exact` the exact
    # count-based classifier's; the four relation flags are the released detector's
    features = ("cascade_length", "category", "category_exact", "feeding", "bleeding", "counter_feeding",
                "counter_bleeding")
    # the length is the number of rules in the answer; the category and the four flags say how they interact
    hint_features = ("cascade_length", "category", "category_exact", "feeding", "bleeding", "counter_feeding",
                     "counter_bleeding")
    prompt_styles = ("chat", "released")
    answer_language = "python"
    answer_template = '```python\ns = s.replace("", "")\n```'
    answer_placeholder = ""
    inline_checks = True  # ~60 µs a check: on the loop, not in batches sent to a thread
    # "released": the released scorer's reading of a reply, exactly (released_scoring.py)
    scorings = ("workbench", "released")

    presets = hook(".presets:PRESETS")
    generate_one = hook(".generator:generate_one")
    describe_snapshot = hook(".generator:describe")
    import_files = hook(".imports:import_files")
    prompt = hook(".prompt:render_prompt")
    extract = hook(".extract:extract")
    verify = hook(".verify:verify")
    trace = hook(".trace:trace")
    oracle_response = hook(".baseline:oracle_response")
    baseline_response = hook(".baseline:baseline_response")
    summarize = hook(".metrics:summarize")
    feature_values = hook(".model:feature_values")

    def check(self, instance, response):  # type: ignore[no-untyped-def]
        # extraction and verification called directly: the generic hook path costs more than a check
        from core.families.cascade.check import check

        return check(self.cast(instance), response)

    def check_many(self, items):  # type: ignore[no-untyped-def]
        from core.families.cascade.check import check

        return [check(self.cast(instance), response) for instance, response in items]

    def check_scored(self, items, scoring):  # type: ignore[no-untyped-def]
        if self.scoring(scoring) != "released":
            return self.check_many(items)
        from core.families.cascade import released_scoring

        return [released_scoring.check(self.cast(instance), response) for instance, response in items]

    def select_scored(self, verdicts, scoring):  # type: ignore[no-untyped-def]
        if scoring != "released":
            return self.select(verdicts)
        from core.families.cascade.released_scoring import select

        return select(verdicts)
