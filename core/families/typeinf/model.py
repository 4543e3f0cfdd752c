"""The typeinf family's data: instances, generator parameters, answers and derivation steps."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.instance import Instance

REWRITE_OPS = ("types", "tyvars", "bindings")  # NL types, type variables, binding names (§3.2, Appendix D)
CATEGORIES = ("monomorphic", "parametric", "ad-hoc")
MAX_CODE_CHARS = 50_000


class TypeinfInstance(Instance):
    """Fixed JSON names: code, dependencies, name, variant; ground_truth.signature; meta.poly_type/source."""

    family: Literal["typeinf"] = "typeinf"
    code: str
    dependencies: list[str] = Field(default_factory=list)
    name: str
    variant: Literal["base", "pure"] = "base"

    @field_validator("code")
    @classmethod
    def _code(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("code is empty")
        if len(value) > MAX_CODE_CHARS:
            raise ValueError(f"code is longer than {MAX_CODE_CHARS} characters")
        return value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        value = value.strip()
        if value.startswith("(") and value.endswith(")"):
            value = value[1:-1].strip()
        if not value:
            raise ValueError("name is empty")
        return value

    @model_validator(mode="after")
    def _truth(self) -> TypeinfInstance:
        sig = self.ground_truth.get("signature")
        if sig is not None and not isinstance(sig, str):
            raise ValueError("ground_truth.signature must be a string 'name :: type'")
        return self

    def truth_signature(self) -> str | None:
        sig = self.ground_truth.get("signature")
        return sig if isinstance(sig, str) and sig.strip() else None


def _ops(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text in ("", "none"):
            return []
        if text in ("all", "pure"):
            return list(REWRITE_OPS)
        return [p.strip() for p in text.split(",") if p.strip()]
    return value


class TypeinfParams(BaseModel):
    """Generator parameters.

    - source: "corpus" (the project's Prelude/base corpus, item i = task i) or "generated" (fresh tasks).
    - variant: "base" or "pure"; `rewrite` picks the operators of the pure variant (default all three:
      types, tyvars, bindings; one alone gives the Appendix D ablation).
    - For generated tasks: deps (how many distinct dependency functions the body uses, at most),
      depth (expression nesting), equations (1 = one equation; 2+ = pattern-matching equations),
      category (only this category; "any" balances the three by index).
    """

    model_config = ConfigDict(extra="forbid")

    source: Literal["corpus", "generated"] = "corpus"
    variant: Literal["base", "pure"] = "base"
    rewrite: list[Literal["types", "tyvars", "bindings"]] = Field(default_factory=lambda: list(REWRITE_OPS))
    deps: int = Field(default=3, ge=1, le=8)
    depth: int = Field(default=2, ge=1, le=5)
    equations: int = Field(default=1, ge=1, le=3)
    category: Literal["any", "monomorphic", "parametric", "ad-hoc"] = "any"

    @field_validator("rewrite", mode="before")
    @classmethod
    def _rewrite(cls, value: Any) -> Any:
        return _ops(value)

    @model_validator(mode="after")
    def _ordered(self) -> TypeinfParams:
        self.rewrite = [op for op in REWRITE_OPS if op in self.rewrite]
        if self.variant == "pure" and not self.rewrite:
            raise ValueError("the pure variant needs at least one rewrite operator (types, tyvars, bindings)")
        return self


class SignatureAnswer(BaseModel):
    """Answer.value: the name before `::` (if the reply gave one), the type text, the whole signature."""

    name: str | None = None
    type: str
    signature: str


class DerivationStep(BaseModel):
    """TraceStep.data: what one inference step did."""

    kind: str
    equation: str = ""
    bindings: list[tuple[str, str]] = Field(default_factory=list)
    constraints: list[str] = Field(default_factory=list)
