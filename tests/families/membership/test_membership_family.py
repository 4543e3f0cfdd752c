"""Wiring: registration, prompts in the paper's wording, solvers, lazy imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from membership_listings import LISTING_6, listing6_instance

from core.errors import UserError
from core.families.membership.render import code_matches, render_code
from core.family import all_families, get_family
from core.store import REPO_ROOT

FAMILY = get_family("membership")
REPO = Path(__file__).resolve().parents[3]


def test_registered_with_its_contract() -> None:
    assert "membership" in all_families()
    assert FAMILY.citation.url.startswith("https://openreview.net/")
    assert FAMILY.features == ("depth", "I", "N_max", "b", "N_T", "label")
    assert FAMILY.prompt_styles == ("chat", "completion")
    assert set(FAMILY.local_solvers()) == {"baseline", "oracle", "random"}
    assert set(FAMILY.presets()) == {"pag-demo", "pag-default", "pag-sweep-I", "pag-sweep-Nmax", "pag-sweep-depth",
                                     "pag-sweep-b", "pag-sweep-NT", "pag-grid-I-Nmax-depth"}
    for name, preset in FAMILY.presets().items():
        assert preset.name == name and preset.family == "membership"
        assert FAMILY.resolve_params(name) == preset.params


def test_chat_prompt_is_listing_4() -> None:
    inst = listing6_instance([3, -44])
    prompt = FAMILY.prompt(inst, "chat")
    assert prompt.style == "chat" and prompt.completion is None
    assert prompt.messages == [{"role": "user", "content": (
        "What is the result of the following Python code?\n```python\n" + inst.code.rstrip("\n")
        + "\nx = [3, -44]\nprint(is_member_0(x))\n```\nAnswer only 'True' or 'False'")}]


def test_completion_prompt_is_listing_5() -> None:
    inst = listing6_instance([[1, 2], 20, 30])
    prompt = FAMILY.prompt(inst, "completion")
    assert prompt.completion == inst.code.rstrip("\n") + "\nx = [[1, 2], 20, 30]\nassert is_member_0(x) =="
    assert prompt.messages[0]["content"].startswith("What is the result of the following Python code?")


def test_prompt_of_a_matching_instance_is_not_flagged() -> None:
    inst = listing6_instance([3, -44])
    for style in ("chat", "completion"):
        prompt = FAMILY.prompt(inst, style)
        assert prompt.code_mismatch is False
        assert prompt.model_dump()["code_mismatch"] is False  # what `sembench prompt` writes


def test_reformatted_code_is_shown_as_given() -> None:
    # blank lines and spacing differ, the program does not: the file's own text is what the model sees
    inst = listing6_instance([3, -44])
    inst.code = "\n\n" + inst.code.replace("\n\n", "\n\n\n").replace(" == ", "==").replace("\n", "  \n")
    prompt = FAMILY.prompt(inst, "completion")
    assert prompt.code_mismatch is False
    assert "(x[0]==65)" in prompt.completion


def test_code_that_disagrees_with_the_condition_is_not_shown() -> None:
    # another tool wrote a different constant in `code`; the condition is what verify grades
    inst = listing6_instance([3, -44])
    inst.code = inst.code.replace("(x[0] != -20)", "(x[0] != 3)")
    rendered = render_code(inst.condition).rstrip("\n")
    for style in ("chat", "completion"):
        prompt = FAMILY.prompt(inst, style)
        assert prompt.code_mismatch is True and prompt.model_dump()["code_mismatch"] is True
        assert rendered in prompt.messages[0]["content"] and "(x[0] != 3)" not in prompt.messages[0]["content"]
    assert FAMILY.prompt(inst, "completion").completion.startswith(rendered + "\nx = [3, -44]")
    _, verdict = FAMILY.check(inst, "True")
    assert verdict.correct  # graded on the condition: x[0] = 3 != -20 holds
    assert verdict.details["code_mismatch"] is True and "does not match its `condition`" in verdict.explanation
    trace = FAMILY.trace(inst)
    assert trace.meta["code_mismatch"] is True and trace.meta["rendered_code"] == render_code(inst.condition)
    assert "code mismatch" in trace.to_text().splitlines()[0]
    # and a matching instance carries no such flag
    clean = listing6_instance([3, -44])
    assert "code_mismatch" not in FAMILY.check(clean, "True")[1].details
    assert "code_mismatch" not in FAMILY.trace(clean).meta and "mismatch" not in FAMILY.trace(clean).title


def test_code_matches_ignores_spacing_but_not_indentation_or_tokens() -> None:
    code = render_code(LISTING_6)
    assert code_matches(code, LISTING_6)
    assert code_matches(code.replace("\n\n", "\n") + "\n\n", LISTING_6)
    assert code_matches(code.replace("(x[1] != 1)", "( x[1]!=1 )"), LISTING_6)
    assert code_matches(code.replace("        res", "\tres", 1), LISTING_6)  # a tab indents to column 8, as in Python
    assert not code_matches(code.replace("        return False", "    return False", 1), LISTING_6)
    assert not code_matches(code.replace("!= 1)", "!= 11)"), LISTING_6)
    assert not code_matches(code.replace("is_member_1(x[0])", "is_member_0(x[0])"), LISTING_6)
    assert not code_matches("", LISTING_6)


def test_unknown_style_is_a_user_error() -> None:
    with pytest.raises(UserError, match="unknown prompt style"):
        FAMILY.prompt(listing6_instance([1]), "haiku")


def test_templates_live_in_assets() -> None:
    for style in ("chat", "completion"):
        assert (REPO_ROOT / "assets" / "prompts" / f"membership_{style}.txt").is_file()


def test_oracle_response_is_a_well_formed_reply() -> None:
    assert FAMILY.oracle_response(listing6_instance([3, -44], answer=True)) == "True"
    assert FAMILY.oracle_response(listing6_instance([3, 1], answer=False)) == "False"


def test_listing_family_does_not_import_the_heavy_modules() -> None:
    code = ("import sys, json; from core.family import get_family; f = get_family('membership'); f.presets();"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('core.families.membership'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                         check=True)
    loaded = set(json.loads(out.stdout))
    assert {"core.families.membership", "core.families.membership.presets"} <= loaded
    assert not loaded & {f"core.families.membership.{m}" for m in ("generator", "trace", "verify", "extract", "prompt")}
