"""Who judges an answer: the in-process checker reads constraints on any type it can parse (the
generated `fun32`'s `Eq (b (c (d -> e d)))`); an answer it cannot read goes to GHC (the paper's proof)
before it is called wrong, and the verdict says which judged. `C => t` stays a SyntaxError."""

from __future__ import annotations

import json

import pytest

from core.families.typeinf import verify as verify_mod
from core.families.typeinf.model import TypeinfInstance
from core.family import get_family
from core.store import BUNDLED_SNAPSHOTS, SnapshotStore

FAM = get_family("typeinf")


def _instance(signature: str, dependencies: list[str] | None = None) -> TypeinfInstance:
    name = signature.split("::")[0].strip()
    return TypeinfInstance(id=f"t-{name}", code=f"{name} = undefined", dependencies=dependencies or [], name=name,
                           variant="base", ground_truth={"signature": signature}, meta={})


def test_the_generated_fun32_oracle_verifies() -> None:
    store = SnapshotStore(BUNDLED_SNAPSHOTS)
    rows = [json.loads(data) if isinstance(data, str) else data
            for _, _, _, data in store.instance_rows("tf-generated")]
    fun32 = FAM.parse_instance(next(r for r in rows if r["name"] == "fun32"))
    assert "Eq (b (c (d -> e d)))" in fun32.ground_truth["signature"]
    answer, verdict = FAM.check(fun32, FAM.oracle_response(fun32))
    assert verdict.correct, verdict.explanation
    assert verdict.details["judged_by"] == "checker"


def test_constraints_on_any_readable_type_are_accepted_renamed_and_reordered() -> None:
    inst = _instance("f :: (Eq (b (c (d -> e d))), Applicative b, Num (b (c (d -> e d)))) => "
                     "Maybe a -> [(b (c (d -> e d)), f)] -> Maybe f")
    reply = ("f :: (Num (p (q (r -> s r))), Applicative p, Eq (p (q (r -> s r)))) => "
             "Maybe x -> [(p (q (r -> s r)), y)] -> Maybe y")
    _, verdict = FAM.check(inst, reply)
    assert verdict.correct and verdict.details["judged_by"] == "checker", verdict.explanation
    # the same shape with one constraint dropped is wrong, for a reason the checker names
    _, wrong = FAM.check(inst, "f :: (Applicative p, Eq (p (q (r -> s r)))) => Maybe x -> [(p (q (r -> s r)), y)] "
                               "-> Maybe y")
    assert not wrong.correct and wrong.details["category"] != "SyntaxError"


@pytest.mark.parametrize("reply", ["f :: Show => a -> String", "f :: (Eq a, Show) => a -> String"])
def test_a_class_without_its_variable_is_still_a_syntax_error(reply: str) -> None:
    _, verdict = FAM.check(_instance("f :: Show a => a -> String"), reply)
    assert not verdict.correct and verdict.details["category"] == "SyntaxError"
    assert "Show =>" in verdict.explanation


@pytest.mark.ghc
def test_an_answer_the_checker_cannot_read_is_judged_by_ghc() -> None:
    inst = _instance("f :: Int -> Int")
    _, right = FAM.check(inst, "f :: forall a. (a ~ Int) => a -> a")  # an equality constraint
    assert right.correct, right.explanation
    assert right.details["judged_by"] == "ghc" and "GHC proves" in right.explanation
    _, different = FAM.check(inst, "f :: forall a. (a ~ Bool) => a -> a")
    assert not different.correct and different.details["judged_by"] == "ghc"
    assert different.details["category"] == "TypeMismatch"
    _, rejected = FAM.check(inst, "f :: Int %1 -> Int")  # linear types: GHC wants the extension
    assert not rejected.correct and rejected.details["judged_by"] == "ghc"
    assert rejected.details["category"] == "SyntaxError" and "GHC rejects it too" in rejected.explanation


@pytest.mark.ghc
def test_many_unreadable_answers_go_to_ghc_in_one_run(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[int] = []
    judge = verify_mod.judge_many
    monkeypatch.setattr(verify_mod, "judge_many", lambda items: runs.append(len(items)) or judge(items))
    monkeypatch.setattr(verify_mod, "_GHC_MEMO", {})
    inst = _instance("f :: Int -> Int")
    replies = ["f :: forall a. (a ~ Int) => a -> a", "f :: forall b. (Int ~ b) => b -> Int",
               "f :: forall a. (a ~ Char) => a -> a", "f :: Int -> Int"]
    checked = FAM.check_many([(inst, r) for r in replies])
    assert [v.correct for _, v in checked] == [True, True, False, True]
    assert [v.details["judged_by"] for _, v in checked] == ["ghc", "ghc", "ghc", "checker"]
    assert runs == [3]


def test_without_ghc_the_parsers_word_stands_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    class Missing:
        package = "ghc"

        def available(self) -> bool:
            return False

    monkeypatch.setattr(verify_mod, "GHC", Missing())
    _, verdict = FAM.check(_instance("f :: Int -> Int"), "f :: forall a. (a ~ Int) => a -> a")
    assert not verdict.correct and verdict.details["judged_by"] == "checker"
    assert verdict.details["category"] == "SyntaxError" and "not installed" in verdict.explanation
