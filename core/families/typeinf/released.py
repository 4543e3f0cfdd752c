"""TF-Bench's released task files as instances: a folder of `task_<n>.hs.md` (or `.pure.md`) Markdown
files — sections `# task_id`, `# poly_type`, `# signature`, `# code`, `# dependencies` with numbered
`## i` fenced blocks, other sections (`# note`) kept in meta — or a JSONL of the same fields (their
Hugging Face export: task_id, poly_type, signature, code, dependencies)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from core.errors import UserError
from core.families.typeinf.corpus import binder
from core.families.typeinf.hsparse import split_signature
from core.families.typeinf.model import TypeinfInstance
from core.folders import read_file, read_folder

POLY = {"monomorphic": "monomorphic", "parametric": "parametric", "ad-hoc": "ad-hoc", "adhoc": "ad-hoc"}
MAX_JSONL_BYTES = 256 * 2**20  # TF-Bench's JSONL export is < 1 MB
_FENCE = re.compile(r"```[a-zA-Z]*\n?(.*?)\n?```", re.S)


def parse_markdown(text: str, source: str = "") -> dict[str, Any]:
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        if line.startswith("# "):
            current = line[2:].strip().lower()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    fields = {k: "\n".join(v).strip() for k, v in sections.items()}
    missing = [k for k in ("task_id", "signature", "code") if not fields.get(k)]
    if missing:
        raise UserError(f"a TF-Bench task file lacks section(s) {', '.join('# ' + m for m in missing)}", file=source)
    return {
        "task_id": fields["task_id"],
        "poly_type": fields.get("poly_type", ""),
        "signature": _unfence(fields["signature"]),
        "code": _unfence(fields["code"]),
        "dependencies": _dependencies(fields.get("dependencies", "")),
        "extra": {k: v for k, v in fields.items() if k not in ("task_id", "poly_type", "signature", "code",
                                                               "dependencies")},
    }


def _dependencies(text: str) -> list[str]:
    """Every fenced block of the section is one dependency: the released files number them `## i`, but
    some have a bare `##` (task_42-2) or skip numbers (task_110); unfenced text falls back to the
    `##` headers."""
    blocks = [m.group(1).strip("\n").rstrip() for m in _FENCE.finditer(text)]
    if blocks:
        return [b for b in blocks if b.strip()]
    parts = re.split(r"^##(?: .*)?$", text, flags=re.M)
    return [p.strip() for p in parts if p.strip()]


def _unfence(text: str) -> str:
    m = _FENCE.search(text)
    return (m.group(1) if m else text).strip("\n").rstrip()


def to_instance(record: dict[str, Any], variant: str, source: str = "") -> TypeinfInstance:
    signature = str(record.get("signature", "")).strip()
    name, type_text = split_signature(signature)
    if name is None:
        raise UserError(f"task {record.get('task_id')!r}: the signature has no 'name ::'", file=source)
    meta: dict[str, Any] = {"poly_type": POLY.get(str(record.get("poly_type", "")).strip().lower(),
                                                  str(record.get("poly_type", "")).strip().lower() or None),
                            "source": "tfbench", "task_id": record.get("task_id")}
    meta.update({f"tfbench_{k}": v for k, v in (record.get("extra") or {}).items()})
    try:
        return TypeinfInstance(id=f"tfbench-{variant}-{record.get('task_id')}", code=str(record["code"]),
                               dependencies=[str(d) for d in record.get("dependencies") or []], name=name,
                               variant=variant, ground_truth={"signature": f"{binder(name)} :: {type_text.strip()}"},
                               meta=meta)
    except (KeyError, ValueError) as exc:
        raise UserError(f"task {record.get('task_id')!r}: {exc}", file=source) from None


def _variant_of(path: Path) -> str:
    return "pure" if ".pure." in path.name or "pure" in path.parent.name.lower() else "base"


def import_files(path: Any) -> list[TypeinfInstance] | None:
    """The task files' instances, each type-checked by GHC at its stated signature (defects.py)."""
    from core.families.typeinf.defects import flag_defects

    found = _read(Path(path))
    return None if found is None else flag_defects(found)


def _read(p: Path) -> list[TypeinfInstance] | None:
    if p.is_dir():
        # the folder's own task files, read safely and bounded (core/folders.py): no symlink out, no FIFO
        read = read_folder(p, lambda rel: rel.name.endswith(".md"), depth=0)
        if not read:
            return None
        read.sort(key=lambda f: _natural(f.rel.name))
        return [to_instance(parse_markdown(f.text(), str(f.path)), _variant_of(f.path), str(f.path)) for f in read]
    if p.is_file() and p.suffix == ".md":
        return [to_instance(parse_markdown(read_file(p).decode("utf-8", errors="replace"), str(p)), _variant_of(p),
                            str(p))]
    if p.is_file() and p.suffix in (".jsonl", ".json"):
        out = []
        with io.StringIO(read_file(p, MAX_JSONL_BYTES).decode("utf-8", errors="replace")) as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    raise UserError(f"line {lineno} is not JSON", file=str(p)) from None
                if not isinstance(record, dict) or "signature" not in record or "task_id" not in record:
                    if lineno == 1:
                        return None  # not TF-Bench's format: read as instance JSONL
                    raise UserError(f"line {lineno} lacks task_id/signature", file=str(p))
                variant = "pure" if "pure" in p.name.lower() else "base"
                out.append(to_instance(record, variant, f"{p}:{lineno}"))
        return out
    return None


def _natural(name: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]
