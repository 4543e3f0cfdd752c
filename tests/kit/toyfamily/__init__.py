"""`toysum`: a minimal family that lives only in the tests. It proves that a family is one package: it
registers (import it, or name it in $SEMBENCH_FAMILIES), lists, generates, solves, verifies, traces and opens
in the TUI with generic views, without any edit outside the tests.

The problem: the sum of a list of small integers, written one per line. `slow_verify_s` in an instance's
meta makes its verifier sleep that long (the tests use it to show that verification never blocks the UI or
the runner's streaming); `kill_verifier` makes it kill the process that checks it (the cluster tests' poison
answer, only ever checked on a Dask worker).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core.family import Citation, Family, hook, register
from core.instance import Instance


class ToyInstance(Instance):
    family: Literal["toysum"] = "toysum"
    numbers: list[int]


class ToyParams(BaseModel):
    length_min: int = Field(default=2, ge=1, le=50)
    length_max: int = Field(default=6, ge=1, le=50)


class ToyAnswer(BaseModel):
    total: int


class ToyStep(BaseModel):
    position: int
    running: int


@register
class ToyFamily(Family):
    id = "toysum"
    title = "Sum a list (test-only toy family)"
    citation = Citation(title="A toy family for tests", authors="Sembench", venue="tests",
                        url="https://example.invalid/toysum")
    instance_model = ToyInstance
    params_model = ToyParams
    answer_model = ToyAnswer
    step_model = ToyStep
    features = ("length", "total")
    spoiler_features = ("total",)
    answer_template = "Answer: "

    presets = hook(".logic:presets")
    generate_one = hook(".logic:generate_one")
    prompt = hook(".logic:prompt")
    extract = hook(".logic:extract")
    verify = hook(".logic:verify")
    trace = hook(".logic:trace")
    oracle_response = hook(".logic:oracle_response")
    baseline_response = hook(".logic:baseline_response")
    summarize = hook(".logic:summarize")
