"""The cascade family's data: instances, parameters and the rewrite semantics they rest on."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from core.instance import Instance

Rule = tuple[str, str]

# The released scorer's limit on either side of a program (see released.py).
DEFAULT_MAX_SIDE = 3


def apply_rule(text: str, rule: Rule) -> str:
    """Python `str.replace` semantics: all non-overlapping occurrences, left to right."""
    return text.replace(rule[0], rule[1])


def apply_cascade(text: str, cascade: list[Rule]) -> str:
    for rule in cascade:
        text = text.replace(rule[0], rule[1])
    return text


class CascadeInstance(Instance):
    """PBEBench instance. Fixed JSON names: inputs, outputs, ground_truth.cascade, meta.*."""

    family: Literal["cascade"] = "cascade"
    inputs: list[str]
    outputs: list[str]

    @field_validator("outputs")
    @classmethod
    def _same_length(cls, value: list[str], info: ValidationInfo) -> list[str]:
        # a field validator (not a model one) so that the error names `outputs`, the field to fix;
        # `inputs` is validated first (field order), and is absent from info.data when it was invalid
        inputs = info.data.get("inputs")
        if inputs is not None and len(inputs) != len(value):
            raise ValueError(f"{len(inputs)} inputs but {len(value)} outputs")
        return value

    @field_validator("ground_truth")
    @classmethod
    def _cascade_shape(cls, value: dict[str, Any]) -> dict[str, Any]:
        cascade = value.get("cascade")
        if cascade is None:
            return value
        if not isinstance(cascade, list) or not all(
            isinstance(r, list | tuple) and len(r) == 2 and all(isinstance(x, str) for x in r) for r in cascade
        ):
            raise ValueError("ground_truth.cascade must be a list of [lhs, rhs] string pairs")
        return value

    def cascade(self) -> list[Rule] | None:
        cascade = self.ground_truth.get("cascade")
        return [(r[0], r[1]) for r in cascade] if cascade is not None else None

    # values derived from the fields, computed once per instance object (never serialised; an instance is
    # not changed after it is read): see `derived`
    _derived: dict[str, Any] | None = PrivateAttr(default=None)

    def derived(self) -> dict[str, Any]:
        """A per-object cache of values verification needs on every answer (K, the limits, the metrics'
        denominators). Read through `__pydantic_private__`: pydantic's attribute hook is slow on the
        verification hot path."""
        private = self.__pydantic_private__
        cache = private.get("_derived") if private is not None else None
        # `model_copy` shares the private dict's values with the copy (which may have other fields):
        # the cache belongs to the object that made it
        if cache is None or cache.get("owner") is not self:
            cache = {"owner": self}
            if private is not None:
                private["_derived"] = cache
        return cache

    def allowed_chars(self) -> frozenset[str]:
        """The characters a valid program may use: `meta.alphabet` (generated and imported instances
        carry it), else, for instance files from elsewhere, every character of the examples and of the
        ground truth (the released scorer's vocabulary check, with the instance's own vocabulary)."""
        cache = self.derived()
        chars = cache.get("allowed")
        if chars is None:
            alphabet = self.meta.get("alphabet") if isinstance(self.meta, dict) else None
            if isinstance(alphabet, str) and alphabet:
                chars = frozenset(alphabet)
            else:
                parts = [*self.inputs, *self.outputs, *(lhs + rhs for lhs, rhs in self.cascade() or [])]
                chars = frozenset("".join(parts))
            cache["allowed"] = chars
        return chars

    def max_side(self) -> int:
        """The longest lhs or rhs a valid program may have: `meta.max_side`, else 3 (the released
        scorer's limit) or the ground truth's longest side when that is longer."""
        cache = self.derived()
        value = cache.get("max_side")
        if value is None:
            value = self.meta.get("max_side") if isinstance(self.meta, dict) else None
            if not (isinstance(value, int) and not isinstance(value, bool) and value > 0):
                sides = [len(x) for rule in self.cascade() or [] for x in rule]
                value = max([DEFAULT_MAX_SIDE, *sides])
            cache["max_side"] = value
        return value

    def max_programs(self) -> int:
        """K: at most this many programs are evaluated (the longest ground-truth cascade of the snapshot)."""
        cache = self.derived()
        k = cache.get("max_programs")
        if k is None:
            k = cache["max_programs"] = self._max_programs()
        return k

    def _max_programs(self) -> int:
        k = self.meta.get("max_programs")
        # meta from other tools may hold anything: only a positive whole number counts (bool is an int
        # in Python, and True would silently mean K = 1); 5.0 from a JSON writer that has no ints is 5
        if isinstance(k, float) and k.is_integer():
            k = int(k)
        if isinstance(k, int) and not isinstance(k, bool) and k > 0:
            return k
        cascade = self.cascade()
        return max(len(cascade), 1) if cascade else 30


class CascadeParams(BaseModel):
    """Generator parameters (paper §3.1). Names match the meta keys where there is one.

    `balance_on` names the relation classifier whose categories are balanced: "released" (the released
    PBEBench detector: what the benchmark's categories mean, the default) or "exact" (the count-based
    classifier of relations.py). Every instance carries both labels either way.

    `lhs_sampling` is how a rule's lhs is drawn from the current strings: "alphabet" draws a random
    string of uniform length 1-3 over the alphabet until it occurs (the released PBEBench-Lite data:
    lhs of one character 80% of the time), "substring" draws the length uniformly among the lengths
    that occur and then a distinct substring of that length uniformly (the released generator's code
    as published; uniform lhs lengths).

    `k_per_length`: K (the number of programs evaluated) is each instance's own cascade length instead
    of the longest one the params allow: the released (25, 30) data are two files with K = 25 and 30.
    """

    n_examples: int = Field(5, ge=1, le=500)
    alphabet: str = Field("abcdefghijkuvwxyz", min_length=1, max_length=512)
    input_len_min: int = Field(2, ge=1, le=1000)
    input_len_max: int = Field(6, ge=1, le=1000)
    cascade_length_min: int = Field(2, ge=1, le=200)
    cascade_length_max: int = Field(5, ge=1, le=200)
    # an explicit set of cascade lengths (e.g. [25, 30]) instead of the whole min..max range
    cascade_lengths: list[int] | None = None
    # relative weights of the allowed lengths (in order) for the per-attempt length draw; None = uniform
    length_weights: list[float] | None = None
    lhs_len_min: int = Field(1, ge=1, le=50)
    lhs_len_max: int = Field(3, ge=1, le=50)
    rhs_len_min: int = Field(1, ge=0, le=50)
    rhs_len_max: int = Field(3, ge=0, le=50)
    balance: Literal["category", "length", "none"] = "category"
    balance_on: Literal["released", "exact"] = "released"
    lhs_sampling: Literal["alphabet", "substring"] = "alphabet"
    patience: int = Field(100_000, ge=1, le=10_000_000)  # the paper's example value (G.2)
    # K for the prompt: the longest ground-truth cascade in the snapshot (defaults to cascade_length_max)
    max_programs: int | None = Field(None, ge=1, le=1000)
    k_per_length: bool = False

    @field_validator("cascade_lengths", mode="before")
    @classmethod
    def _parse_lengths(cls, value: Any) -> Any:
        # `--param cascade_lengths=25,30` arrives as a string; sorted and de-duplicated so that
        # equal sets give equal params (and so equal seeds)
        if isinstance(value, str):
            value = [part for part in value.replace(" ", "").split(",") if part]
        if isinstance(value, list | tuple):
            return sorted({int(v) for v in value})
        return value

    @field_validator("length_weights", mode="before")
    @classmethod
    def _parse_weights(cls, value: Any) -> Any:
        if isinstance(value, str):  # `--param length_weights=4,3,2,1`; an empty value means uniform
            value = [part for part in value.replace(" ", "").split(",") if part] or None
        if isinstance(value, list | tuple):
            return [float(v) for v in value]
        return value

    @model_validator(mode="after")
    def _ranges(self) -> CascadeParams:
        for lo, hi in (("input_len_min", "input_len_max"), ("cascade_length_min", "cascade_length_max"),
                       ("lhs_len_min", "lhs_len_max"), ("rhs_len_min", "rhs_len_max")):
            if getattr(self, lo) > getattr(self, hi):
                raise ValueError(f"{lo} > {hi}")
        if self.cascade_lengths is not None:
            lo, hi = self.cascade_length_min, self.cascade_length_max
            if not self.cascade_lengths or not all(lo <= n <= hi for n in self.cascade_lengths):
                raise ValueError(f"cascade_lengths must be a non-empty subset of {lo}..{hi}")
        if self.length_weights is not None:
            n = len(self.cascade_lengths) if self.cascade_lengths else self.cascade_length_max - self.cascade_length_min + 1
            if len(self.length_weights) != n or not all(0 < w < 1e9 for w in self.length_weights):
                raise ValueError(f"length_weights must be {n} positive numbers, one per allowed cascade length "
                                 "(or empty for uniform lengths)")
        if len(set(self.alphabet)) != len(self.alphabet):
            raise ValueError("alphabet has repeated characters")
        if any(not ch.isprintable() or ch.isspace() for ch in self.alphabet):
            raise ValueError("alphabet characters must be printable and not spaces")
        return self


RELATION_KEYS = ("feeding", "bleeding", "counter_feeding", "counter_bleeding")


def feature_values(instance: Instance) -> dict[str, Any]:
    """The difficulty features from meta; a value of a foreign type is unknown (None).

    Instance files from elsewhere may carry any meta, so nothing here trusts its types: `relations`
    that is not a dict, a `category` that is not a string, a `cascade_length` that is not a
    non-negative integer all read as None rather than breaking a table or a breakdown.
    """
    meta = instance.meta if isinstance(instance.meta, dict) else {}
    relations = meta.get("relations")
    if not isinstance(relations, dict):
        relations = {}
    length = meta.get("cascade_length")
    values: dict[str, Any] = {
        "cascade_length": length if isinstance(length, int) and not isinstance(length, bool) and length >= 0
        else None,
        "category": _category(meta.get("category")),
        "category_exact": _category(meta.get("category_exact")),
    }
    values.update({key: _flag(relations.get(key)) for key in RELATION_KEYS})
    return values


def _category(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _flag(value: Any) -> bool | None:
    """A relation flag: generated meta holds bools; 0/1 from other tools mean the same; anything else is unknown."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    return None
