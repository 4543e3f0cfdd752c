"""`membership`: does `is_member_0(x)` return True? Recursive conditions from the PAG theorem.

Each concern lives in its own module (model, generator, presets, render, evaluate, prompt, extract,
verify, trace, metrics, baseline); this class only names them.
"""

from __future__ import annotations

from core.family import Citation, Family, hook, lazy, register


@register
class MembershipFamily(Family):
    id = "membership"
    title = "Recursive membership (PAG theorem)"
    citation = Citation(
        title="Rethinking Logic in AI: A Novel Benchmark Inspired by Polynomial Analogue of Gandy's Fixed Point "
              "Theorem",
        authors="Anonymous authors (under double-blind review)",
        venue="ICLR 2025 submission",
        url="https://openreview.net/forum?id=mHx8JFURtn",
    )
    instance_model = lazy(".model:MembershipInstance")
    params_model = lazy(".model:MembershipParams")
    answer_model = lazy(".answer:MembershipAnswer")
    step_model = lazy(".answer:MembershipStep")
    features = ("depth", "I", "N_max", "b", "N_T", "label")
    spoiler_features = ("label",)  # the label is the answer
    check_cost_s = 0.0001  # ~50-100 µs a check: never worth a cluster task's round trip (core.cluster.routing)
    # depth, I, N_max, b and N_T are read off the code and the probe a model is shown: no hint
    hint_features = ()
    prompt_styles = ("chat", "completion")
    answer_placeholder = "True or False"

    presets = hook(".presets:PRESETS")
    generate_one = hook(".generator:generate_one")
    prompt = hook(".prompt:render_prompt")
    extract = hook(".extract:extract")
    verify = hook(".verify:verify")
    trace = hook(".trace:trace")
    oracle_response = hook(".baseline:oracle_response")
    # Exact evaluation is linear in the probe's size; it never needs the budget.
    baseline_response = hook(".baseline:baseline_response")
    summarize = hook(".metrics:summarize")
    extra_solvers = hook(".baseline:extra_solvers")

    def check(self, instance, response):  # type: ignore[no-untyped-def]
        # extraction and verification called directly: the generic hook path costs more than a check
        from core.extraction import too_long
        from core.families.membership.extract import extract
        from core.families.membership.verify import verify

        instance = self.cast(instance)
        answer = too_long(response) or extract(response, instance)  # bounded, as Family.check
        return answer, verify(instance, answer)

    def check_many(self, items):  # type: ignore[no-untyped-def]
        return [self.check(instance, response) for instance, response in items]
