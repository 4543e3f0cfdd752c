"""The Family contract: what every benchmark family provides, and the registry that finds them.

A family is one package `core/families/<id>/` whose `__init__.py` defines a `Family` subclass decorated
with `@register`. Its behaviour lives in small modules of the package and is wired in declaratively with
`hook(".module:function")`: the module is imported the first time the hook is called (so listing families
and starting the TUI stay fast), and every `Instance` argument is cast to the family's `instance_model`
on the way in. Families are discovered from the `core.families` package; `SEMBENCH_FAMILIES` (module
names, comma-separated) adds families that live elsewhere.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from core.errors import UserError

if TYPE_CHECKING:
    # Only in annotations: pydantic and the models are not on the start-up path (`sembench --help` and
    # `sembench families` never import them; tests/engine/test_startup_imports.py checks it).
    from pydantic import BaseModel

    from core.instance import Instance, Preset
    from core.tools import Tool
    from core.trace import Prompt, Trace
    from core.verdict import Answer, Verdict

MetricRow = tuple["Instance", "Verdict"]
LocalSolver = Callable[["Instance", float], str]  # (instance, budget in s) -> raw response text
EXTRA_FAMILIES_ENV = "SEMBENCH_FAMILIES"


# Where the cursor starts in an answer template: a character no source text holds.
TEMPLATE_CURSOR = "\x00"


@dataclass(frozen=True)
class Citation:
    """The paper a family reproduces, cited so that a reader can find it without this repository.

    A plain dataclass, not a pydantic model: every family builds one at import, and a model would be
    built (its validator compiled) on the start-up path of every command."""

    title: str
    authors: str
    venue: str  # a venue and year, or an arXiv id
    url: str

    def line(self) -> str:
        return f"{self.authors}. {self.title}. {self.venue}. {self.url}"

    def model_dump(self) -> dict[str, str]:
        return asdict(self)


def _import_target(target: str, package: str) -> Any:
    """The object named by "module:attr" (a leading dot in module is relative to `package`)."""
    module_name, attr = target.split(":", 1)
    if module_name.startswith("."):
        module_name = package + module_name
    return getattr(importlib.import_module(module_name), attr)


def _instance_class() -> type[Instance]:
    from core.instance import Instance

    return Instance


class Hook:
    """A family method implemented by a function elsewhere in the family's package, resolved lazily.

    `hook(".verify:verify")` names `verify` in the module `verify` next to the class's module (a
    leading dot is relative to the family's package; a full dotted path works too). The resolved
    function is called with the method's arguments (without `self`); `Instance` arguments are cast to
    the family's `instance_model` first. A non-callable target (a dict of presets) is returned as is.
    """

    def __init__(self, target: str, *, cast: bool = True) -> None:
        if ":" not in target:
            raise ValueError(f"hook target must look like 'module:name', got {target!r}")
        self.target = target
        self.cast = cast
        self.name = ""
        self._package = ""
        self._resolved: Any = None

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self._package = owner.__module__

    def resolve(self) -> Any:
        if self._resolved is None:
            self._resolved = _import_target(self.target, self._package)
        return self._resolved

    def __get__(self, family: Family | None, owner: type | None = None) -> Any:
        if family is None:
            return self
        target = self.resolve()
        if not callable(target):
            return lambda: target
        if not self.cast:
            return target
        cast = family.cast
        instance = _instance_class()

        def bound(*args: Any, **kwargs: Any) -> Any:
            args = tuple(cast(a) if isinstance(a, instance) else a for a in args)
            kwargs = {k: cast(v) if isinstance(v, instance) else v for k, v in kwargs.items()}
            return target(*args, **kwargs)

        bound.__name__ = self.name
        bound.__doc__ = getattr(target, "__doc__", None)
        return bound


def hook(target: str, *, cast: bool = True) -> Any:
    """Declare a family method as a lazily imported function (see `Hook`)."""
    return Hook(target, cast=cast)


class Lazy:
    """A class attribute (a model class: `instance_model`, `params_model`...) named as "module:attr" and
    imported on first access, from the class or an instance; readers see the class itself. Families name
    their pydantic models this way so that importing a family (to list it, or for `--help`) imports no
    pydantic. A leading dot is relative to the declaring class's package, as for `hook`."""

    def __init__(self, target: str) -> None:
        if ":" not in target:
            raise ValueError(f"lazy target must look like 'module:name', got {target!r}")
        self.target = target
        self._package = ""
        self._resolved: Any = None

    def __set_name__(self, owner: type, name: str) -> None:
        self._package = owner.__module__

    def __get__(self, family: Family | None, owner: type | None = None) -> Any:
        if self._resolved is None:
            self._resolved = _import_target(self.target, self._package)
        return self._resolved


def lazy(target: str) -> Any:
    """Declare a class attribute imported on first use (see `Lazy`)."""
    return Lazy(target)


class Family:
    """One benchmark family. Subclasses set the class attributes and provide the methods (usually as
    hooks). Methods left out raise NotImplementedError naming the family, so a half-written family
    fails loudly in the family kit rather than silently."""

    id: ClassVar[str]
    title: ClassVar[str]
    citation: ClassVar[Citation]
    # Models are named lazily (`lazy(".model:MyInstance")`); a class assigned directly works too.
    instance_model: ClassVar[type[Instance]] = lazy("core.instance:Instance")
    params_model: ClassVar[type[BaseModel]]
    # The pydantic model of `Answer.value` and of `TraceStep.data` (documentation and parsing for views).
    answer_model: ClassVar[type[BaseModel] | None] = None
    step_model: ClassVar[type[BaseModel] | None] = None
    # meta keys that are difficulty features, in display order; the first is the main one (plots)
    features: ClassVar[tuple[str, ...]] = ()
    # features that give the answer away (e.g. a probe's label): kept for metrics, hidden from people
    # who are about to answer (the TUI's table and instance header) and never put in a prompt
    spoiler_features: ClassVar[tuple[str, ...]] = ()
    # features that reveal the answer's shape (how many rules a cascade has, whether a type is
    # polymorphic, how many imports are needed): a model's prompt never holds them, so a person answering
    # in human mode does not see them either until they reveal them (recorded on the attempt); they are
    # kept for metrics and shown to a researcher who is not answering
    hint_features: ClassVar[tuple[str, ...]] = ()
    prompt_styles: ClassVar[tuple[str, ...]] = ("chat",)
    # External tools (core.tools.Tool) the verifier needs; `sembench families` says if they are there.
    requires: ClassVar[tuple[Tool, ...]] = ()
    # Checks are in-process and cheap (tens of µs): a model run checks each answer on the event loop,
    # as it arrives, even when the family overrides check_many (then only a faster loop, for chunks of
    # local attempts). Batches sent to a thread would cost more than the checks (core.runner.verifying).
    inline_checks: ClassVar[bool] = False
    # Seconds one check costs, when the family knows (core.cluster.routing: checks cheaper than a cluster
    # task's round trip stay in-process). None: a family with `requires` or its own `verify_many` costs
    # seconds, one with `inline_checks` nothing, any other is measured on its first checks.
    check_cost_s: ClassVar[float | None] = None
    # How a person writes an answer in the human editor: its syntax and what the editor starts with
    # (the format; `answer_template_for` may fill in what the problem itself shows, never the answer).
    answer_language: ClassVar[str] = "text"
    answer_template: ClassVar[str] = ""
    answer_placeholder: ClassVar[str] = "your answer, written as a model would (the family's extractor reads it)"
    # The baseline solves every instance (the family kit checks it does); a family whose baseline is a
    # floor rather than a solver says how often it must at least be right.
    baseline_complete: ClassVar[bool] = True
    baseline_floor: ClassVar[float] = 1.0
    # Top-level CLI verbs the family adds: verb -> "module:attr" of a click command (relative to the
    # family's package), imported only when the verb is used or listed by --help.
    commands: ClassVar[dict[str, str]] = {}
    # A top-level payload field that says what an instance is, for families whose ids are hashes (specs'
    # function name): the workbench's browser shows and searches it as a column. Display only: not a
    # feature, so no metric or plot groups by it.
    label_field: ClassVar[str | None] = None
    # How answers can be scored, the default first: `verify` and `report` take `--scoring NAME`. A family
    # whose released scorer reads answers differently from the workbench's verifier names it too and
    # implements it in `check_scored` (cascade: "released").
    scorings: ClassVar[tuple[str, ...]] = ("workbench",)

    # ---- plumbing -----------------------------------------------------------------------------
    def cast(self, instance: Instance) -> Instance:
        """The instance as this family's `instance_model` (instances read generically arrive as Instance)."""
        model = self.instance_model
        if isinstance(instance, model):
            return instance
        return model.model_validate(instance.model_dump())

    def command(self, verb: str) -> Any:
        """The click command behind one of `commands`."""
        return _import_target(self.commands[verb], type(self).__module__)

    def _missing(self, what: str) -> NotImplementedError:
        return NotImplementedError(f"family '{self.id}' does not provide {what}")

    # ---- generation ---------------------------------------------------------------------------
    def presets(self) -> dict[str, Preset]:
        raise self._missing("presets")

    def generate_one(self, params: dict[str, Any], seed: int, index: int) -> Instance:
        """Item `index` of (params, seed), generable alone and identical on every machine."""
        raise self._missing("generate_one")

    def generate(self, params: dict[str, Any], seed: int, count: int, start: int = 0) -> Iterator[Instance]:
        for index in range(start, start + count):
            yield self.generate_one(params, seed, index)

    def resolve_params(self, preset: str | None = None, overrides: dict[str, str] | None = None) -> dict[str, Any]:
        """Preset params (or defaults) with `--param k=v` overrides applied and validated."""
        base: dict[str, Any] = {}
        if preset is not None:
            presets = self.presets()
            if preset not in presets:
                raise UserError(f"unknown preset '{preset}' for family '{self.id}' (known: {', '.join(presets)})")
            base = dict(presets[preset].params)
        fields = self.params_model.model_fields
        for key, value in (overrides or {}).items():
            if key not in fields:
                raise UserError(f"unknown parameter '{key}' for family '{self.id}' (known: {', '.join(fields)})")
            base[key] = value
        from pydantic import ValidationError

        try:
            return self.params_model.model_validate(base).model_dump(mode="json")
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"]) or "params"
            raise UserError(err["msg"], field=loc) from None

    def parse_instance(self, data: dict[str, Any]) -> Instance:
        """Validate an instance read from a file; raises pydantic ValidationError on missing fields."""
        return self.instance_model.model_validate(data).with_content_id()

    def import_files(self, path: Any) -> list[Instance] | None:
        """Instances from files in a released benchmark's own format (a folder or a file), or None when
        `path` is not in such a format (then `snapshot import` reads it as instance JSONL)."""
        return None

    # ---- solving and checking -----------------------------------------------------------------
    def prompt(self, instance: Instance, style: str = "chat") -> Prompt:
        raise self._missing("prompt")

    def answer_template_for(self, instance: Instance | None) -> str:
        """What the human editor starts with for this instance: `answer_template`, filled in with what the
        problem itself shows (a function's name, the program to annotate), never anything of the answer.
        It may hold one TEMPLATE_CURSOR where typing starts (the editor takes it out)."""
        return self.answer_template

    def extract(self, text: str, instance: Instance | None = None) -> Answer:
        """Pull the answer out of raw model text. Never raises, on any input."""
        raise self._missing("extract")

    def verify(self, instance: Instance, answer: Answer) -> Verdict:
        raise self._missing("verify")

    def complete_verdict(self, instance: Instance, answer: Answer, verdict: Verdict) -> Verdict | None:
        """The verdict with what batch checks add to it beyond right or wrong, for a verdict given without
        it (specs: a verified contract's completeness rate, which the workbench computes after showing the
        verdict, and `report` for a run made with `--completeness off`); None when there is nothing to add."""
        return None

    def check(self, instance: Instance, response: str) -> tuple[Answer, Verdict]:
        from core.extraction import extract

        answer = extract(self, response, instance)  # bounded: a huge reply is a "too_long" failure
        return answer, self.verify(instance, answer)

    def check_many(self, items: Sequence[tuple[Instance, str]]) -> list[tuple[Answer, Verdict]]:
        """Check several (instance, response) pairs. Families whose verifier starts a tool override it
        (as `verify_many`) to amortise one tool start over many answers; the runner calls this."""
        from core.extraction import extract

        answers = [extract(self, response, instance) for instance, response in items]
        verdicts = self.verify_many([(instance, answer) for (instance, _), answer in zip(items, answers, strict=True)])
        return list(zip(answers, verdicts, strict=True))

    def scoring(self, name: str | None) -> str:
        """`name` checked against `scorings` (None: the default); bad input is a UserError."""
        if name is None:
            return self.scorings[0]
        if name not in self.scorings:
            raise UserError(f"family '{self.id}' has no scoring '{name}' (known: {', '.join(self.scorings)})",
                            field="--scoring")
        return name

    def check_scored(self, items: Sequence[tuple[Instance, str]], scoring: str) -> list[tuple[Answer, Verdict]]:
        """`check_many` under one of `scorings` (the default is `check_many` itself)."""
        if self.scoring(scoring) == self.scorings[0]:
            return self.check_many(items)
        raise self._missing(f"the scoring '{scoring}'")

    def select_scored(self, verdicts: list[Verdict], scoring: str) -> int:
        """`select` under one of `scorings` (a released scorer may pick among samples its own way)."""
        return self.select(verdicts)

    def verify_many(self, items: Sequence[tuple[Instance, Answer]]) -> list[Verdict]:
        return [self.verify(instance, answer) for instance, answer in items]

    def trace(self, instance: Instance, answer: Answer | None = None) -> Trace:
        raise self._missing("trace")

    def oracle_response(self, instance: Instance) -> str:
        """The ground truth rendered as a well-formed model response (for checking pipelines)."""
        raise self._missing("oracle_response")

    def baseline_response(self, instance: Instance, budget_s: float) -> str:
        """The family's own exact/symbolic solver, answering as a model would."""
        raise self._missing("baseline_response")

    def wrong_responses(self, instance: Instance) -> list[str]:
        """Near misses of the ground truth, each of which must be rejected with an explanation (the family
        kit checks it). Families override this with perturbations that mean something for them (swapped
        arguments, a dropped rule); the default cuts and reverses the oracle's response."""
        right = self.oracle_response(instance)
        return [right[: len(right) // 2], right[::-1]]

    def missing_requirements(self) -> list[tuple[str, str, bool, str]]:
        """What this machine lacks of what the family needs (core.readiness): (executable or file, the
        Debian package that provides it, optional, what it is for). Looked up on PATH, nothing run. A
        tool that runs programs built from answers needs the sandbox (bubblewrap) too."""
        import shutil

        out: list[tuple[str, str, bool, str]] = []
        for tool in self.requires:
            for exe in (tool.executable, *tool.extra):
                if shutil.which(exe) is None and all(exe != o[0] for o in out):
                    out.append((exe, tool.package, tool.optional, tool.note))
        if any(t.confine == "program" and not t.optional for t in self.requires) and shutil.which("bwrap") is None:
            out.append(("bwrap", "bubblewrap", False, "the sandbox for programs built from answers"))
        return out

    def extra_solvers(self) -> dict[str, LocalSolver]:
        """Further in-process solvers a family offers (e.g. a random baseline)."""
        return {}

    def local_solvers(self) -> dict[str, LocalSolver]:
        """Solvers that run in-process (no network): baseline, oracle and the family's extras."""
        return {
            "baseline": self.baseline_response,
            "oracle": lambda instance, _budget: self.oracle_response(instance),
            **self.extra_solvers(),
        }

    # ---- metrics ------------------------------------------------------------------------------
    def summarize(self, rows: list[MetricRow]) -> dict[str, Any]:
        """The family's own metrics over a set of (instance, verdict) rows."""
        raise self._missing("summarize")

    def visible_features(self) -> tuple[str, ...]:
        return tuple(f for f in self.features if f not in self.spoiler_features)

    def answering_features(self) -> tuple[str, ...]:
        """The features a person who is answering may see: neither spoilers nor hints."""
        return tuple(f for f in self.visible_features() if f not in self.hint_features)

    def feature_values(self, instance: Instance) -> dict[str, Any]:
        """Difficulty features of one instance (from meta), for table columns and breakdowns."""
        meta = instance.meta if isinstance(instance.meta, dict) else {}
        return {key: meta.get(key) for key in self.features}

    def metrics(self, rows: list[MetricRow]) -> dict[str, Any]:
        """Overall metrics plus a breakdown by each difficulty feature."""
        by: dict[str, dict[str, Any]] = {}
        for feature in self.features:
            groups: dict[str, list[MetricRow]] = {}
            for row in rows:
                value = self.feature_values(row[0]).get(feature)
                groups.setdefault(_group_key(value), []).append(row)
            by[feature] = {key: {"n": len(g), **self.summarize(g)} for key, g in sorted(groups.items(), key=_sort_key)}
        return {"n": len(rows), "overall": self.summarize(rows), "by": by}

    def describe_snapshot(self, instances: list[Instance]) -> dict[str, Any]:
        """Family-specific facts stored with a snapshot (e.g. which categories could not be reached)."""
        return {}

    def select(self, verdicts: list[Verdict]) -> int:
        """Which of k samples counts (pass@k selection): any correct one, else the highest score."""
        for i, verdict in enumerate(verdicts):
            if verdict.correct:
                return i
        return max(range(len(verdicts)), key=lambda i: verdicts[i].score)


def _group_key(value: Any) -> str:
    return "—" if value is None else str(value)


def _sort_key(item: tuple[str, Any]) -> tuple[int, float | str]:
    key = item[0]
    try:
        return (0, float(key))
    except ValueError:
        return (1, key)


# ---- registry ---------------------------------------------------------------------------------
_REGISTRY: dict[str, Family] = {}
_LOADED = False


def register(cls: type[Family]) -> type[Family]:
    """Class decorator: one instance per family id."""
    _REGISTRY[cls.id] = cls()
    return cls


def unregister(family_id: str) -> None:
    """Forget a family (tests that register a toy family clean up with this)."""
    _REGISTRY.pop(family_id, None)


def family_modules() -> list[str]:
    """Every package under core/families, then the modules named in $SEMBENCH_FAMILIES."""
    import core.families

    found = [f"core.families.{m.name}" for m in pkgutil.iter_modules(core.families.__path__) if m.ispkg]
    extra = [m.strip() for m in os.environ.get(EXTRA_FAMILIES_ENV, "").split(",") if m.strip()]
    return sorted(found) + extra


def _load_all() -> None:
    global _LOADED
    if _LOADED:
        return
    for module in family_modules():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name == module and not module.startswith("core."):
                raise UserError(f"{EXTRA_FAMILIES_ENV} names '{module}', which cannot be imported") from None
            raise
    _LOADED = True


def all_families() -> dict[str, Family]:
    _load_all()
    return dict(sorted(_REGISTRY.items()))


def get_family(family_id: str) -> Family:
    families = all_families()
    if family_id not in families:
        raise UserError(f"unknown family '{family_id}' (known: {', '.join(families) or 'none'})")
    return families[family_id]
