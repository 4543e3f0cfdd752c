"""GHC as validator: tasks compiled against stubs of their dependencies, many modules per GHC run.

For a task, two modules are written: `Inf_i` holds the code without a signature (GHC's inferred type is
read back from `-ddump-types`), `Sig_i` holds it under the ground-truth signature (it must compile).
Dependencies become stubs: a signature `f :: t` is `f :: t; f = undefined` with `f` hidden from the
Prelude; data types, synonyms, classes and instances the Prelude does not have are declared as given;
the Prelude's own types and classes are used as they are (their instances matter). All modules of a
batch go to ONE `ghc --make -fno-code -fkeep-going` invocation, so a failing module fails alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.families.typeinf import syntax as S
from core.families.typeinf.corpus import binder, is_operator
from core.families.typeinf.env import Env, dep_decls, task_env
from core.families.typeinf.hsparse import HsParseError, bare_classes, parse_code
from core.families.typeinf.names import free_names
from core.families.typeinf.tools import GHC

# What GHC 9.0's Prelude exports that dependency declarations may redeclare (then the real one is used).
PRELUDE_TYPES = frozenset({"Bool", "Ordering", "Maybe", "Either", "Char", "Int", "Integer", "Word", "Float",
                           "Double", "IO", "String", "ShowS", "ReadS", "FilePath", "Rational", "IOError"})
PRELUDE_CLASSES = frozenset({"Eq", "Ord", "Show", "Read", "Enum", "Bounded", "Num", "Real", "Integral",
                             "Fractional", "Floating", "RealFrac", "RealFloat", "Semigroup", "Monoid",
                             "Functor", "Applicative", "Monad", "MonadFail", "Foldable", "Traversable"})
PRAGMAS = ("{-# LANGUAGE NoMonomorphismRestriction, ScopedTypeVariables, PatternSynonyms #-}\n"
           "{-# OPTIONS_GHC -w #-}\n")
GHC_TIMEOUT_S = 600.0


@dataclass
class TaskSource:
    key: str
    name: str
    code: str
    dependencies: list[str]
    signature: str | None = None  # "name :: type"; None = only infer
    preamble: str = ""  # extra declarations (the pure variant's synonyms and pattern synonyms)
    extensions: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)  # a pure task's new names of Prelude things
    declare_new_names: bool = False  # a released pure task: its T1, T2, … that nothing declares


@dataclass
class GhcOutcome:
    key: str
    inferred: str | None = None  # GHC's type for the function without a signature
    infer_error: str = ""
    signature_ok: bool | None = None  # the code compiles under the given signature
    signature_error: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def _stub_lines(decls: list[S.Decl], dep_texts: list[str], env: Env,
                aliases: dict[str, str] | None = None, own: frozenset[str] = frozenset()) -> tuple[list[str], set[str]]:
    """The module text for the dependencies and the names to hide from the Prelude. `own`: the names
    the task's code defines (a dependency giving one of them a signature repeats the task's signature)."""
    aliases = aliases or {}
    lines: list[str] = []
    hidden: set[str] = set()
    fields = {n for d in decls if isinstance(d, S.DataDecl) for c in d.constructors for n in c.field_names if n}
    local_types = {d.name for d in decls if isinstance(d, S.DataDecl) and d.name not in PRELUDE_TYPES}
    for text, group in _by_dependency(dep_texts, env):
        for d in group:
            if isinstance(d, S.SigDecl):
                names = [n for n in d.names if n not in fields and n not in own]
                if not names:
                    continue  # a record field's own signature, or the task's: declared elsewhere
                hidden.update(names)
                if names != d.names or bare_classes(text.split("::", 1)[-1]):
                    # `Integral => a -> …` as released: written as the parser reads it, `Integral a`
                    text = f"{', '.join(binder(n) for n in names)} :: {_sig_type_text(text, d)}"
                lines.append(text)
                lines.extend(f"{binder(n)} = undefined" for n in names)
            elif isinstance(d, S.DataDecl):
                if d.name in aliases or d.name in _base_newtypes(decls):
                    continue  # base's own newtype (imported, _base_imports) has the instances the code needs
                if d.name in PRELUDE_TYPES:
                    lines.extend(_standin_constructors(d))
                    continue
                for new, old in aliases.items():  # `deriving (T5)` must name the real class
                    text = re.sub(rf"\b{re.escape(new)}\b(?=[^=]*$)", old, text) if "deriving" in text else text
                lines.append(text)
                for c in d.constructors:
                    hidden.update(n for n in c.field_names if n)
            elif isinstance(d, S.SynDecl):
                if d.name in aliases:
                    continue
                if d.name in PRELUDE_TYPES and not (_type_names(d.body) & local_types):
                    continue  # the Prelude's own (its instances matter); `Ratio Integer` of a local Ratio is not
                lines.append(text)
                if d.name in PRELUDE_TYPES:
                    hidden.add(d.name)
            elif isinstance(d, S.ClassDecl):
                if d.name in PRELUDE_CLASSES or d.name in aliases:
                    continue
                lines.append(text)
                for m in d.methods:
                    hidden.update(m.names)
            elif isinstance(d, S.InstanceDecl):
                for new, old in aliases.items():  # an instance must name the real class
                    if old in PRELUDE_CLASSES:
                        text = re.sub(rf"\b{re.escape(new)}\b", old, text)
                lines.append(text)
            elif isinstance(d, S.ConSigDecl):
                continue  # constructors are declared by their data types
    return list(dict.fromkeys(lines)), hidden  # a dependency listed twice is declared once


def _type_names(t: object) -> set[str]:
    from core.families.typeinf.types import TAp, TCon

    if isinstance(t, TCon):
        return {t.name}
    if isinstance(t, TAp):
        return _type_names(t.fun) | _type_names(t.arg)
    return set()


def _standin_constructors(d: S.DataDecl) -> list[str]:
    """A Prelude type redeclared over GHC's unboxed stand-in (`data Int = I_ Int_`, `Int_` standing for
    `Int#`): the Prelude's type is kept, and each such constructor is the identity on it (a pattern
    synonym), so that code matching `I_ x` types as GHC's own does. Other constructors stay undeclared."""
    from core.families.typeinf.types import TCon

    out = []
    for c in d.constructors:
        if len(c.fields) == 1 and c.fields[0] == TCon(d.name + "_") and not d.params:
            out += [f"pattern {c.name} :: {d.name}_ -> {d.name}", f"pattern {c.name} x = x"]
    return out


def text_of_sig(d: S.SigDecl, text: str) -> str:
    return text if text.strip().startswith(tuple(binder(n) for n in d.names)) else text


def _by_dependency(dep_texts: list[str], env: Env) -> list[tuple[str, list[S.Decl]]]:
    out: list[tuple[str, list[S.Decl]]] = []
    for text in dep_texts:
        decls = dep_decls([text])
        if len(decls) > 1 and all(isinstance(d, S.SigDecl) for d in decls):
            for d in decls:
                out.append((f"{', '.join(binder(n) for n in d.names)} :: {_sig_type_text(text, d)}", [d]))
        else:
            out.append((text, decls))
    return out


def _sig_type_text(text: str, d: S.SigDecl) -> str:
    from core.families.typeinf.types import show_scheme

    return show_scheme(d.scheme)


def module_text(module: str, task: TaskSource, with_signature: bool) -> str:
    env = task_env(task.dependencies)
    decls = dep_decls(task.dependencies)
    own: set[str] = {task.name}
    try:
        code_decls = parse_code(task.code, env.fixities)
        own.update(d.name for d in code_decls if isinstance(d, S.FunBind))
        _, cons = free_names(code_decls)
    except HsParseError:
        cons = []
    stubs, hidden = _stub_lines(decls, task.dependencies, env, task.aliases, frozenset(own))
    hidden |= own
    defined_ops = sorted(n for n in hidden | set(cons) if is_operator(n) and n not in (":",))
    fixities = [f"{env.fixities[op][0]} {env.fixities[op][1]} {_infix_name(op)}" for op in defined_ops
                if op in env.fixities]
    hide = ", ".join(binder(n) if is_operator(n) else n for n in sorted(hidden) if _hideable(n))
    pragmas = PRAGMAS
    if task.extensions:
        pragmas = "{-# LANGUAGE " + ", ".join(task.extensions) + " #-}\n" + pragmas
    parts = [pragmas + f"module {module} where", f"import Prelude hiding ({hide})" if hide else "import Prelude",
             *_base_imports(task, decls), task.preamble,
             *(_new_name_declarations(task, decls) if task.declare_new_names else []), *fixities, *stubs]
    if with_signature and task.signature:
        parts.append(task.signature)
    parts.append(task.code)
    return "\n".join(p for p in parts if p) + "\n"


# Names from base beyond the Prelude that released tasks use without declaring them, and the import that
# brings each (the type, and a constructor the code may apply; never a field, which a dependency stubs).
BASE_IMPORTS = {
    "Natural": "import Numeric.Natural (Natural)",
    "Handle": "import System.IO (Handle)",
    "ReadPrec": "import Text.ParserCombinators.ReadPrec (ReadPrec)",
    "Coercible": "import Data.Coerce (Coercible)",
    **{name: f"import Data.Monoid ({name}({name}))" for name in ("Endo", "Dual", "Sum", "Product", "All", "Any")},
}
# Data.Monoid's newtypes: a dependency that declares one (without its instances) is read as base's own
BASE_NEWTYPES = frozenset({"Endo", "Dual", "Sum", "Product", "All", "Any"})
# GHC's unboxed types as the released tasks write them (`Int_` for `Int#`), as TF-Bench's own prover
# declares them: synonyms of the boxed types.
STANDINS = {"Int_": "Int", "Word_": "Word", "Char_": "Char", "Float_": "Float", "Double_": "Double", "Bool_": "Bool"}


NEW_NAME = re.compile(r"T\d+")


def _new_name_declarations(task: TaskSource, decls: list[S.Decl]) -> list[str]:
    """A released pure task renames the Prelude's types and classes T1, T2, … and writes `T1 a =>` in
    signatures without declaring the class T1 (nor, at times, a type): each such name gets an empty
    class or a data type of the arity it is used at, as TF-Bench's static analyzer declares them."""
    from core.families.typeinf.hsparse import parse_type, split_signature
    from core.families.typeinf.types import tcons

    schemes = [d.scheme for d in decls if isinstance(d, S.SigDecl)]
    schemes += [m.scheme for d in decls if isinstance(d, S.ClassDecl) for m in d.methods]
    if task.signature:
        try:
            schemes.append(parse_type(split_signature(task.signature)[1]).scheme)
        except HsParseError:
            pass
    types: dict[str, int] = {}
    classes: dict[str, int] = {}
    fields = [f for d in decls if isinstance(d, S.DataDecl) for c in d.constructors for f in c.fields]
    for t in [*fields, *(sc.body for sc in schemes), *(a for sc in schemes for p in sc.context for a in p.args)]:
        for name, arity in tcons(t):
            types[name] = max(types.get(name, 0), arity)
    for p in [p for sc in schemes for p in sc.context] + [p for d in decls if isinstance(d, S.ClassDecl)
                                                            for p in d.supers]:
        classes[p.cls] = max(classes.get(p.cls, 0), len(p.args))
    declared = {d.name for d in decls if isinstance(d, S.DataDecl | S.SynDecl | S.ClassDecl)}
    gadts = _constructor_signatures(decls, declared)
    out = [" ".join(["class", name, *(f"p{i}" for i in range(max(arity, 1)))])
           for name, arity in sorted(classes.items()) if NEW_NAME.fullmatch(name) and name not in declared]
    out += [" ".join(["data", name, *(f"p{i}" for i in range(types.get(name, 0))), "where {", "; ".join(sigs), "}"])
            for name, sigs in sorted(gadts.items())]
    out += [" ".join(["data", name, *(f"p{i}" for i in range(arity))])
            for name, arity in sorted(types.items())
            if NEW_NAME.fullmatch(name) and name not in declared and name not in classes and name not in gadts]
    return out


def _constructor_signatures(decls: list[S.Decl], declared: set[str]) -> dict[str, list[str]]:
    """Constructors a pure task gives only by signature (`(:%) :: T2 -> T2 -> T3`, no data type has them):
    type name -> the GADT-style declarations of its constructors."""
    from core.families.typeinf.types import TCon, show_scheme, split_app, split_fn

    constructors = {c.name for d in decls if isinstance(d, S.DataDecl) for c in d.constructors}
    out: dict[str, list[str]] = {}
    for d in decls:
        if not isinstance(d, S.ConSigDecl):
            continue
        head, _ = split_app(split_fn(d.scheme.body)[1])
        if not isinstance(head, TCon) or head.name in declared or not NEW_NAME.fullmatch(head.name):
            continue
        for name in d.names:
            if name not in constructors:
                out.setdefault(head.name, []).append(f"{binder(name)} :: {show_scheme(d.scheme)}")
    return out


def _base_newtypes(decls: list[S.Decl]) -> set[str]:
    """Data.Monoid's newtypes the dependencies declare without any instance: read as base's own (with
    its instances). One the dependencies give instances of is declared as they write it."""
    from core.families.typeinf.types import tcons

    with_instances = {name for d in decls if isinstance(d, S.InstanceDecl) for a in d.head.args
                      for name, _ in tcons(a)}
    return {d.name for d in decls if isinstance(d, S.DataDecl) and d.name in BASE_NEWTYPES
            and d.name not in with_instances}


def _base_imports(task: TaskSource, decls: list[S.Decl]) -> list[str]:
    declared = {d.name for d in decls if isinstance(d, S.DataDecl | S.SynDecl | S.ClassDecl)}
    declared |= {c.name for d in decls if isinstance(d, S.DataDecl) for c in d.constructors}
    used = set(re.findall(r"\b[A-Z][\w']*", " ".join([task.code, task.signature or "", *task.dependencies])))
    newtypes = _base_newtypes(decls)
    out = [f"import Data.Monoid ({n}(..))" for n in sorted(newtypes)]
    out += [BASE_IMPORTS[n] for n in sorted(used - declared) if n in BASE_IMPORTS]
    out += [f"type {n} = {boxed}" for n, boxed in STANDINS.items() if n in used and n not in declared]
    return out


def _infix_name(op: str) -> str:
    return op if is_operator(op) else f"`{op}`"


def _hideable(name: str) -> bool:
    return bool(re.fullmatch(r"[a-z_][\w']*", name)) or is_operator(name) or name in PRELUDE_TYPES


def run_modules(modules: dict[str, str], dumps: list[str] | None = None, timeout_s: float = GHC_TIMEOUT_S,
                cache: bool = True):
    """Compile `modules` (name -> text) in one GHC run; returns (per-module error text, dump files)."""
    from core.tools import run

    files = {f"{name}.hs": text for name, text in modules.items()}
    collect = [f"dump/{name}.dump-types" for name in (dumps or [])]
    args = ["--make", "-fno-code", "-fkeep-going", "-j1", "-v1", "-dumpdir", "dump/"]
    if dumps:
        args += ["-ddump-types", "-ddump-to-file"]
    args += sorted(files)
    # GHC reserves a huge virtual address space up front: an address-space limit would kill it.
    result = run(GHC, args, files=files, timeout_s=timeout_s, memory_mb=None, collect=collect, cache=cache)
    if result.timed_out:
        raise RuntimeError(f"ghc timed out after {timeout_s:.0f} s on {len(modules)} modules")
    errors = split_errors(result.stderr + "\n" + result.stdout, list(modules))
    return errors, result.files


CHUNK_MODULES = 400  # GHC's --make slows down per module in very large batches
WORKERS = 2


def run_modules_chunked(modules: dict[str, str], dumps: list[str] | None = None,
                        timeout_s: float = GHC_TIMEOUT_S, cache: bool = True) -> tuple[dict[str, str], dict[str, str]]:
    """`run_modules` over chunks of at most CHUNK_MODULES modules, two GHC processes at a time."""
    from concurrent.futures import ThreadPoolExecutor

    names = list(modules)
    if len(names) <= CHUNK_MODULES:
        return run_modules(modules, dumps, timeout_s, cache)
    wanted = set(dumps or [])
    chunks = [names[i:i + CHUNK_MODULES] for i in range(0, len(names), CHUNK_MODULES)]
    errors: dict[str, str] = {}
    files: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = [pool.submit(run_modules, {n: modules[n] for n in chunk}, [n for n in chunk if n in wanted],
                               timeout_s, cache) for chunk in chunks]
        for future in futures:
            e, f = future.result()
            errors.update(e)
            files.update(f)
    return errors, files


_ERROR_HEAD = re.compile(r"^([A-Za-z_][\w]*)\.hs:(\d+):(\d+)(?:-\d+)?: error:", re.M)


def split_errors(text: str, modules: list[str]) -> dict[str, str]:
    """Error messages per module (modules absent from the dict compiled)."""
    out: dict[str, str] = {}
    heads = list(_ERROR_HEAD.finditer(text))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        chunk = text[m.start():end]
        chunk = re.split(r"\n\[\d+ of \d+\] Compiling", chunk)[0]
        out[m.group(1)] = (out.get(m.group(1), "") + chunk).strip()
    for name in modules:
        if name not in out and re.search(rf"^{name}\.hs:.*error", text, re.M):
            out[name] = "error"
    return out


def parse_dump(text: str) -> dict[str, str]:
    """`-ddump-types` output -> name -> type text (quantifiers with inferred/kinded binders removed)."""
    entries: list[str] = []
    in_sigs = False
    for line in text.splitlines():
        if line.startswith("TYPE SIGNATURES"):
            in_sigs = True
            continue
        if not in_sigs:
            continue
        if not line.startswith(" "):
            if line.strip():
                in_sigs = False
            continue
        if re.match(r"^  \S", line):
            entries.append(line.strip())
        elif entries:
            entries[-1] += " " + line.strip()
    out: dict[str, str] = {}
    for entry in entries:
        name, sep, type_text = entry.partition(" ::")
        if not sep:
            continue
        name = name.strip()
        if name.startswith("(") and name.endswith(")"):
            name = name[1:-1]
        out[name] = strip_forall(type_text)
    return out


def strip_forall(text: str) -> str:
    text = text.strip()
    while text.startswith("forall"):
        depth = 0
        for i, ch in enumerate(text):
            if ch in "({":
                depth += 1
            elif ch in ")}":
                depth -= 1
            elif ch == "." and depth == 0:
                text = text[i + 1:].strip()
                break
        else:
            break
    return text


def validate(tasks: list[TaskSource], infer: bool = True) -> dict[str, GhcOutcome]:
    """Compile every task (with and without its signature) in one GHC run."""
    modules: dict[str, str] = {}
    names: dict[str, tuple[str, str | None]] = {}
    for i, task in enumerate(tasks):
        inf_name = f"Inf{i}"
        sig_name = f"Sig{i}"
        if infer:
            modules[inf_name] = module_text(inf_name, task, with_signature=False)
        if task.signature:
            modules[sig_name] = module_text(sig_name, task, with_signature=True)
        names[task.key] = (inf_name if infer else "", sig_name if task.signature else None)
    dumps = [n for n, _ in names.values() if n]
    errors, files = run_modules_chunked(modules, dumps)
    out: dict[str, GhcOutcome] = {}
    for task in tasks:
        inf_name, sig_name = names[task.key]
        outcome = GhcOutcome(task.key)
        if inf_name:
            if inf_name in errors:
                outcome.infer_error = errors[inf_name]
            else:
                dump = parse_dump(files.get(f"dump/{inf_name}.dump-types", ""))
                outcome.inferred = dump.get(task.name)
                if outcome.inferred is None:
                    outcome.infer_error = f"no type for {task.name} in GHC's dump"
        if sig_name:
            outcome.signature_ok = sig_name not in errors
            outcome.signature_error = errors.get(sig_name, "")
        out[task.key] = outcome
    return out


PRELUDE_CONSTRUCTORS = frozenset({"True", "False", "LT", "EQ", "GT", "Nothing", "Just", "Left", "Right"})


def pure_source(key: str, name: str, code: str, dependencies: list[str], signature: str | None,
                renaming: dict[str, dict[str, str]]) -> TaskSource:
    """A pure task for GHC: its new type names that stand for the Prelude's own types, classes and
    constructors become synonyms and pattern synonyms of them (instances and built-in syntax need the
    real ones); everything else is declared by the rewritten dependencies themselves."""
    from core.families.typeinf.env import base_env

    env = base_env()
    aliases: dict[str, str] = {}
    preamble: list[str] = []
    for old, new in (renaming.get("types") or {}).items():
        if old in PRELUDE_TYPES or old in PRELUDE_CLASSES:
            aliases[new] = old
            params = " ".join(f"p{i}" for i in range(len(env.synonyms.get(old, ([], None))[0])))
            preamble.append(f"type {new} {params} = {old} {params}".replace("  ", " "))
        elif old in PRELUDE_CONSTRUCTORS:
            from core.families.typeinf.types import split_fn

            arity = len(split_fn(env.constructors[old].body)[0])
            args = " ".join(f"x{i}" for i in range(arity))
            aliases[new] = old
            preamble.append(f"pattern {new} {args} = {old} {args}".replace("  ", " "))
    return TaskSource(key, name, code, dependencies, signature, "\n".join(preamble),
                      ("PatternSynonyms", "ConstraintKinds", "FlexibleInstances"), aliases)
