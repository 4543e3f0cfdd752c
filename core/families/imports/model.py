"""The imports family's data: instances (a snippet without imports, its library, the imports it needs),
generator parameters, answers and trace steps."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.families.imports.paths import LIBRARY_NAMES
from core.instance import Instance

TRANSFORMS = ("rename", "lower", "comments")


class ImportsInstance(Instance):
    """Fixed JSON names: `code` (the snippet without import lines; a package line may stay), `library`
    (jdk, jodatime, xstream, hibernate; other names are kept for files from elsewhere),
    `ground_truth.imports` (FQNs; wildcards `a.b.*`, static imports `static a.b.C.m`),
    `meta` (n_types, n_ambiguous, statements, ...)."""

    family: Literal["imports"] = "imports"
    code: str
    library: str = "jdk"

    @field_validator("ground_truth")
    @classmethod
    def _imports_shape(cls, value: dict[str, Any]) -> dict[str, Any]:
        imports = value.get("imports")
        if imports is None:
            return value
        if not isinstance(imports, list) or not all(isinstance(i, str) for i in imports):
            raise ValueError("ground_truth.imports must be a list of strings")
        return value

    def expected(self) -> list[str]:
        raw = self.ground_truth.get("imports") or []
        out: list[str] = []
        for entry in raw:
            text = " ".join(str(entry).replace("import ", "", 1).rstrip(";").split()) if str(entry).startswith(
                "import ") else " ".join(str(entry).split())
            if text and text not in out:
                out.append(text)
        return out


def _parse_list(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip().strip("[]")
        parts = [p.strip().strip("'\"") for p in text.split(",") if p.strip()]
        return parts
    return value


class ImportsParams(BaseModel):
    """Generator parameters.

    - library: one library, or a list (item i uses library i mod len(list)): jdk, jodatime, xstream,
      hibernate.
    - n_types: how many distinct types to import (the generator stops adding new ones at this count).
    - statements: statements in `main`.
    - chain_depth: longest call chain `a.m().n()...` (1 = no chaining).
    - ambiguity: probability that a new type is drawn among simple names several FQNs share.
    - package: a package line to put first (empty: none).
    - transform: semantic-preserving transformations applied after generation, in order (rename,
      lower, comments); the untransformed snippet is the same for every choice, so these are variants.
    """

    model_config = ConfigDict(extra="forbid")

    library: list[str] = Field(default_factory=lambda: ["jdk"])
    n_types: int = Field(default=5, ge=1, le=15)
    statements: int = Field(default=8, ge=1, le=40)
    chain_depth: int = Field(default=2, ge=1, le=4)
    ambiguity: float = Field(default=0.5, ge=0.0, le=1.0)
    package: str = ""
    transform: list[str] = Field(default_factory=list)

    @field_validator("library", "transform", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        value = _parse_list(value)
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _known(self) -> ImportsParams:
        if not self.library:
            raise ValueError("library must name at least one of " + ", ".join(LIBRARY_NAMES))
        for lib in self.library:
            if lib not in LIBRARY_NAMES:
                raise ValueError(f"unknown library '{lib}' (known: {', '.join(LIBRARY_NAMES)})")
        for t in self.transform:
            if t not in TRANSFORMS:
                raise ValueError(f"unknown transform '{t}' (known: {', '.join(TRANSFORMS)})")
        if self.package and not all(part.isidentifier() for part in self.package.split(".")):
            raise ValueError(f"package '{self.package}' is not a Java package name")
        return self


class ImportsAnswer(BaseModel):
    """`Answer.value`: the import entries extracted from a reply."""

    imports: list[str]
    wildcards: list[str] = Field(default_factory=list)
    static: list[str] = Field(default_factory=list)


class ImportsStep(BaseModel):
    """`TraceStep.data`: a baseline step (candidates per simple name after a constraint, or the choice),
    an answer step (one simple name: expected and answered FQN) or a ddmin round (tokens kept)."""

    kind: str  # candidates, constraint:<new|call|field|assign|annotation|generic>, choose, name, ddmin
    simple_name: str | None = None
    constraint: str | None = None
    changed: list[str] = Field(default_factory=list)
    candidates: dict[str, list[str]] = Field(default_factory=dict)
    expected: str | None = None
    answer: str | None = None
    kept_tokens: int | None = None
