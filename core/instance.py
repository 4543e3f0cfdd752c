"""Instances and snapshots: the data that crosses files, the database and the UI."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.canonical import content_hash


class Instance(BaseModel):
    """One problem. Families subclass it with their fixed payload fields (e.g. `inputs`, `outputs`).

    Unknown top-level fields are kept (extra="allow") so instances written by other tools round-trip.
    `params`/`seed`/`index` are absent for instances that were not generated here.
    """

    # defer_build: the validator is built on first use, not at import (start-up imports every family's
    # instance model, a subclass of this one, which inherits it).
    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str = ""
    family: str
    params: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = None
    index: int | None = None
    ground_truth: dict[str, Any] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        # datasets written elsewhere often number their items; ids are text here
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    def payload(self) -> dict[str, Any]:
        """The fields that define the problem (everything but id/params/seed/index)."""
        return self.model_dump(mode="json", exclude={"id", "params", "seed", "index"})

    def with_content_id(self) -> Instance:
        """Fill `id` from content when missing; ids given by other tools are kept as given."""
        if not self.id:
            self.id = f"{self.family}-{content_hash(self.payload(), 12)}"
        return self

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class Preset(BaseModel):
    """A named parameter set; `count` and `seed` reproduce a paper's snapshot."""

    model_config = ConfigDict(defer_build=True)

    name: str
    family: str
    description: str
    params: dict[str, Any]
    count: int
    seed: int = 0
    # Shipped in snapshots.db under the preset's name (`sembench snapshot build` rebuilds these).
    bundled: bool = False


class Snapshot(BaseModel):
    """A named, frozen set of instances together with what made it."""

    model_config = ConfigDict(defer_build=True)

    name: str
    family: str
    preset: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = None
    count: int = 0
    description: str = ""
    meta: dict[str, Any] = Field(default_factory=dict)
