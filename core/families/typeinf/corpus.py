"""The project's corpus (assets/typeinf/corpus.hs): tasks parsed, dependencies solved.

A task is the function's equations, its ground-truth signature and the dependencies TF-Bench would
give: the signature of every free function (from the task's own `+` declarations, else the Prelude's),
the declaration of every data type whose constructors it uses, the headers of the classes those
signatures mention (with their superclasses) and the synonyms they mention. The category comes from the
ground truth: no type variables = monomorphic, no constraints = parametric, constraints = ad-hoc.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from core.families.typeinf import syntax as S
from core.families.typeinf.env import ASSETS, base_decls, base_env
from core.families.typeinf.hsparse import parse_code, parse_decls, parse_type, split_signature
from core.families.typeinf.names import free_names
from core.families.typeinf.types import Pred, Scheme, TCon, scheme_vars, show, show_scheme, tcons

OPERATOR_CHARS = set("!#$%&*+./<=>?@\\^|-~:")


@dataclass
class CorpusTask:
    key: str  # unique: the name, or name-Instance
    name: str
    signature: str  # "name :: type"
    code: str
    extra: list[str] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)
    line: int = 0


def is_operator(name: str) -> bool:
    return bool(name) and all(c in OPERATOR_CHARS for c in name)


def binder(name: str) -> str:
    """How a name is written before `::` (operators in parentheses)."""
    return f"({name})" if is_operator(name) else name


def poly_type(scheme: Scheme) -> str:
    if scheme.context:
        return "ad-hoc"
    return "parametric" if scheme_vars(scheme) else "monomorphic"


def parse_corpus(text: str) -> list[CorpusTask]:
    tasks: list[CorpusTask] = []
    current: CorpusTask | None = None
    code: list[str] = []
    extra_open = False

    def finish() -> None:
        if current is not None:
            current.code = "\n".join(code).strip("\n")
            tasks.append(current)

    for lineno, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            finish()
            head = line[3:].strip()
            name_part, sep, type_part = head.partition(" :: ")
            if not sep:
                raise ValueError(f"corpus line {lineno}: expected '## name :: type'")
            key = name_part.strip()
            name = key.split("@", 1)[0]
            suffix = key.split("@", 1)[1] if "@" in key else ""
            bare = name[1:-1] if name.startswith("(") and name.endswith(")") else name
            key = bare + (f"-{suffix}" if suffix else "")
            current = CorpusTask(key, bare, f"{binder(bare)} :: {type_part.strip()}", "", line=lineno)
            code = []
            extra_open = False
        elif current is None:
            continue
        elif line.startswith("+ "):
            current.extra.append(line[2:])
            extra_open = True
        elif line.startswith("! "):
            k, _, v = line[2:].partition(":")
            current.notes[k.strip()] = v.strip()
            extra_open = False
        elif extra_open and line.startswith("    ") and line.strip():
            current.extra[-1] += "\n" + line[2:]
        elif line.startswith("-- ====") or (line.startswith("-- ") and not code):
            continue
        else:
            extra_open = False
            code.append(line)
    finish()
    keys = [t.key for t in tasks]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ValueError(f"corpus keys repeat: {', '.join(dupes)}")
    return tasks


@functools.cache
def prelude_sources() -> dict[str, str]:
    """Dependency text per name as base declares it: signatures (methods with their class) and data,
    synonym and class-header declarations."""
    out: dict[str, str] = {}
    for d in base_decls():
        if isinstance(d, S.SigDecl):
            for n in d.names:
                out[n] = f"{binder(n)} :: {show_scheme(d.scheme)}"
        elif isinstance(d, S.ClassDecl):
            self_pred = Pred(d.name, tuple(_tv(p) for p in d.params))
            for m in d.methods:
                for n in m.names:
                    out.setdefault(n, f"{binder(n)} :: {show_scheme(Scheme((self_pred, *m.scheme.context), m.scheme.body))}")
            supers = show_context_text(d.supers)
            out["class " + d.name] = f"class {supers}{d.name} {' '.join(d.params)}"
        elif isinstance(d, S.DataDecl):
            out["type " + d.name] = render_data(d)
        elif isinstance(d, S.SynDecl):
            out["type " + d.name] = f"type {' '.join([d.name, *d.params])} = {show(d.body)}"
    return out


def _tv(name: str):  # noqa: ANN202 - tiny helper
    from core.families.typeinf.types import TVar

    return TVar(name)


def show_context_text(preds: list[Pred]) -> str:
    from core.families.typeinf.types import show_context

    return show_context(preds)


def render_data(d: S.DataDecl) -> str:
    head = " ".join([d.name, *d.params])
    if not d.constructors:
        return f"data {head}"
    cons = []
    for c in d.constructors:
        if is_operator(c.name) and len(c.fields) == 2:
            cons.append(f"{show(c.fields[0], 2)} {c.name} {show(c.fields[1], 2)}")
        else:
            cons.append(" ".join([c.name, *(show(f, 2) for f in c.fields)]))
    keyword = "newtype" if d.newtype else "data"
    return f"{keyword} {head} = {' | '.join(cons)}"


BUILTIN_CONSTRUCTORS = {":", "[]", "()"}


def solve_dependencies(task: CorpusTask) -> list[str]:
    """TF-Bench's dependency solving over the Prelude, with the task's own declarations first."""
    env = base_env()
    extra_decls = parse_decls("\n".join(task.extra), env.fixities, what=f"the extra declarations of {task.key}") \
        if task.extra else []
    own_values: set[str] = set()
    own_types: dict[str, S.DataDecl] = {}
    own_classes: set[str] = set()
    for d in extra_decls:
        if isinstance(d, S.SigDecl):
            own_values.update(d.names)
        elif isinstance(d, S.DataDecl):
            own_types[d.name] = d
            for c in d.constructors:
                own_values.update(n for n in c.field_names if n)
        elif isinstance(d, S.ClassDecl):
            own_classes.add(d.name)
            for m in d.methods:
                own_values.update(m.names)
    fix = dict(env.fixities)
    for d in extra_decls:
        if isinstance(d, S.FixityDecl):
            for op in d.ops:
                fix[op] = (d.assoc, d.prec)
    decls = parse_code(task.code, fix)
    free_vars, cons = free_names(decls)
    source = prelude_sources()
    deps: list[str] = list(dict.fromkeys(task.extra))
    sigs: list[str] = []
    for v in free_vars:
        if v in own_values or v == task.name:
            continue
        if v not in source:
            raise ValueError(f"corpus task {task.key}: '{v}' is neither in the Prelude nor declared with '+'")
        sigs.append(source[v])
    data: list[str] = []
    base_cons = {c.name: d for d in base_decls() if isinstance(d, S.DataDecl) for c in d.constructors}
    own_cons = {c.name for d in own_types.values() for c in d.constructors}
    for c in cons:
        if c in BUILTIN_CONSTRUCTORS or c.startswith("(,") or c in own_cons:
            continue
        if c not in base_cons:
            raise ValueError(f"corpus task {task.key}: constructor '{c}' has no declaration")
        text = render_data(base_cons[c])
        if text not in data:
            data.append(text)
    # classes and synonyms the signatures mention (closure over superclasses and synonym bodies)
    mentioned_classes: list[str] = []
    mentioned_types: list[str] = []
    for text in [*sigs, *data, *[e for e in task.extra if "::" in e]]:
        _, type_text = split_signature(text) if "::" in text and not text.startswith(("data", "newtype",
                                                                                          "class")) else (None, "")
        if not type_text:
            continue
        try:
            scheme = parse_type(type_text).scheme
        except ValueError:
            continue
        for p in scheme.context:
            if p.cls not in mentioned_classes:
                mentioned_classes.append(p.cls)
        for name, _ in tcons(scheme.body):
            if name not in mentioned_types:
                mentioned_types.append(name)
    classes: list[str] = []
    i = 0
    while i < len(mentioned_classes):
        cls = mentioned_classes[i]
        i += 1
        if cls in own_classes or "class " + cls not in source:
            continue
        classes.append(source["class " + cls])
        info = env.classes[cls]
        for s in info.supers:
            if s.cls not in mentioned_classes:
                mentioned_classes.append(s.cls)
    synonyms: list[str] = []
    j = 0
    while j < len(mentioned_types):
        name = mentioned_types[j]
        j += 1
        if name in env.synonyms and "type " + name in source:
            synonyms.append(source["type " + name])
            for inner, _ in tcons(env.synonyms[name][1]):
                if inner not in mentioned_types:
                    mentioned_types.append(inner)
    for group in (synonyms, classes, data, sigs):
        for text in group:
            if text not in deps:
                deps.append(text)
    return deps


@functools.cache
def load_corpus() -> tuple[CorpusTask, ...]:
    return tuple(parse_corpus((ASSETS / "corpus.hs").read_text(encoding="utf-8")))


@functools.cache
def corpus_index() -> dict[str, int]:
    return {t.key: i for i, t in enumerate(load_corpus())}


def task_category(task: CorpusTask) -> str:
    _, type_text = split_signature(task.signature)
    return poly_type(parse_type(type_text).scheme)


__all__ = ["CorpusTask", "load_corpus", "solve_dependencies", "poly_type", "binder", "is_operator", "TCon"]
