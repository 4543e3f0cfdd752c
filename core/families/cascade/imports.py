"""`sembench snapshot import` for the released PBEBench files (GitHub cmu-llab/PBEBench).

Two layouts are read:

- a released data file: JSON lines (or a JSON array) of records with `inputs`, `outputs` and `programs`
  (`replace("a", "b")` strings; the `*_promptsfile*` files escape the quotes, `replace(\\"a\\", \\"b\\")`),
  usually with `bfcc_dag`, `bfcc_category`, `cascade_length` (and `prompt`, `original_programs`, ...).
  Every file in the released `data/` folder has that shape. Each record becomes one instance whose ground
  truth is its programs; meta keeps the released category as `released_category` beside this
  workbench's two labels (`category` from the released detector as reimplemented here, `category_exact`
  from the exact classifier), and K (`max_programs`) is the file's longest cascade: 5 for Lite and
  MoreEg, 20 for PBEBench (2-20), 25 and 30 for the two harder files. The alphabet is the Lite one when
  the file uses no other character, else upper and lower case letters (or the file's own characters).
- real sound-law data: a folder `<language>/` holding `words.in` and `words.out` (one word per line), or a
  folder of such language folders (the released `data/real_sli/`). Each language is one instance with
  no ground-truth cascade: verification checks the outputs, the baseline tries them. The alphabet is
  the released `vocab.json` (next to the language folders) plus ASCII letters and K is 50 with sides of
  up to 5 characters, the released sound-law scorer's settings.

Anything else is not a released file (None), so the CLI reads it as instance JSONL. A record that is
malformed, or whose programs do not turn its inputs into its outputs, is a one-line UserError naming the
file and line: the released data are consistent, so such a file is not what it claims to be.
"""

from __future__ import annotations

import json
import os
import string
from pathlib import Path, PurePosixPath
from typing import Any

from core.errors import UserError
from core.families.cascade.generator import bits_category, bits_relations, cascade_bits
from core.families.cascade.model import CascadeInstance, apply_cascade
from core.families.cascade.released import FULL_ALPHABET, LITE_ALPHABET, MAX_SIDE, parse_program_string
from core.folders import FolderFile, read_file, read_folder

SLI_MAX_PROGRAMS = 50  # the released sound-law scorer's default
SLI_MAX_SIDE = 5  # its max_window_size
MAX_RECORDS = 1_000_000


def import_files(path: Any) -> list[CascadeInstance] | None:
    path = Path(path)
    if path.is_dir():
        return _import_sli(path)
    if path.is_file() and path.suffix.lower() in (".jsonl", ".json"):
        records = _read_records(path)
        if records is None:
            return None
        return _import_records(path, records)
    return None


# ---- released data files -------------------------------------------------------------------------

def _read_records(path: Path) -> list[tuple[int, dict[str, Any]]] | None:
    """(line, record) pairs when the file holds released records, else None (not this format)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UserError("not UTF-8 text", file=str(path)) from None
    if not text.strip():
        raise UserError("no instances in it (the file is empty)", file=str(path))
    records: list[tuple[int, dict[str, Any]]] = []
    stripped = text.lstrip()
    if path.suffix.lower() == ".json" or stripped.startswith("["):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return None
        items = data if isinstance(data, list) else list(data.values()) if isinstance(data, dict) else []
        records = [(i + 1, item) for i, item in enumerate(items) if isinstance(item, dict)]
    else:
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                if not records:
                    return None
                raise UserError("not a JSON object", file=str(path), line=n) from None
            if not isinstance(record, dict):
                return None
            records.append((n, record))
            if len(records) > MAX_RECORDS:
                raise UserError(f"more than {MAX_RECORDS} records", file=str(path))
    if not records or not all(_is_released(r) for _, r in records[:1]):
        return None
    return records


def _is_released(record: dict[str, Any]) -> bool:
    # our own instance files carry `family`/`ground_truth`; the released records carry `programs`
    return "programs" in record and "inputs" in record and "outputs" in record and "family" not in record


def _import_records(path: Path, records: list[tuple[int, dict[str, Any]]]) -> list[CascadeInstance]:
    parsed = [(n, *_parse_record(path, n, record), record) for n, record in records]
    k = max((len(cascade) for _, _, _, cascade, _ in parsed), default=1) or 1
    chars = set().union(*(set("".join(i) + "".join(o) + "".join(a + b for a, b in c)) for _, i, o, c, _ in parsed))
    alphabet = (LITE_ALPHABET if chars <= set(LITE_ALPHABET) else FULL_ALPHABET if chars <= set(FULL_ALPHABET)
                else "".join(sorted(chars)))
    instances = []
    for n, inputs, outputs, cascade, record in parsed:
        released_bits = cascade_bits("released", cascade)
        exact_bits = cascade_bits("exact", cascade)
        meta: dict[str, Any] = {
            "cascade_length": len(cascade),
            "relations": bits_relations(released_bits),
            "category": bits_category(released_bits),
            "relations_exact": bits_relations(exact_bits),
            "category_exact": bits_category(exact_bits),
            "max_programs": k,
            "alphabet": alphabet,
            "max_side": max([MAX_SIDE, *(len(x) for rule in cascade for x in rule)]),
            "source": "released",
            "released_file": path.name,
            "released_line": n,
        }
        category = record.get("bfcc_category")
        if isinstance(category, str):
            meta["released_category"] = category
        instance = CascadeInstance(
            params={"released_file": path.name}, seed=0, index=len(instances), inputs=inputs, outputs=outputs,
            ground_truth={"cascade": [[a, b] for a, b in cascade]}, meta=meta,
        )
        instances.append(instance.with_content_id())
    return instances


def _parse_record(path: Path, n: int, record: dict[str, Any]) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    inputs, outputs, programs = record.get("inputs"), record.get("outputs"), record.get("programs")
    for field, value in (("inputs", inputs), ("outputs", outputs), ("programs", programs)):
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise UserError(f"`{field}` must be a list of strings", file=str(path), line=n)
    assert isinstance(inputs, list) and isinstance(outputs, list) and isinstance(programs, list)
    if len(inputs) != len(outputs) or not inputs:
        raise UserError(f"{len(inputs)} inputs but {len(outputs)} outputs", file=str(path), line=n)
    cascade: list[tuple[str, str]] = []
    for program in programs:
        rule = parse_program_string(program)
        if rule is None:
            raise UserError(f"program {program[:60]!r} is not replace(\"a\", \"b\")", file=str(path), line=n)
        if not rule[0]:
            raise UserError(f"program {program[:60]!r} has an empty lhs", file=str(path), line=n)
        cascade.append(rule)
    if [apply_cascade(s, cascade) for s in inputs] != outputs:
        raise UserError("the programs do not turn the inputs into the outputs", file=str(path), line=n)
    length = record.get("cascade_length")
    if isinstance(length, int) and length != len(cascade):
        raise UserError(f"cascade_length {length} but {len(cascade)} programs", file=str(path), line=n)
    return inputs, outputs, cascade


# ---- real sound-law data -------------------------------------------------------------------------------

def _import_sli(folder: Path) -> list[CascadeInstance] | None:
    # read safely and bounded (core/folders.py): the folder and its language folders, regular files only
    read = {f.rel: f for f in read_folder(folder, lambda rel: rel.name in ("words.in", "words.out", "vocab.json"),
                                          depth=1)}
    top = PurePosixPath()
    languages = [top] if _has_words(read, top) else sorted(
        {rel.parent for rel in read if rel.parent != top and _has_words(read, rel.parent)})
    if not languages:
        return None
    instances = []
    for rel in languages:
        language = folder / rel
        inputs = _words(read[rel / "words.in"])
        outputs = _words(read[rel / "words.out"])
        if len(inputs) != len(outputs):
            raise UserError(f"{len(inputs)} words in words.in but {len(outputs)} in words.out", file=str(language))
        if not inputs:
            raise UserError("no words", file=str(language / "words.in"))
        alphabet = _sli_alphabet(read, rel, inputs + outputs, folder)
        meta = {
            "language": language.name,
            "source": "real_sli",
            "max_programs": SLI_MAX_PROGRAMS,
            "max_side": SLI_MAX_SIDE,
            "alphabet": alphabet,
            "n_words": len(inputs),
        }
        instance = CascadeInstance(params={"real_sli": language.name}, seed=0, index=len(instances),
                                   inputs=inputs, outputs=outputs, ground_truth={}, meta=meta)
        instances.append(instance.with_content_id())
    return instances


def _has_words(read: dict[PurePosixPath, FolderFile], folder: PurePosixPath) -> bool:
    return folder / "words.in" in read and folder / "words.out" in read


def _words(file: FolderFile) -> list[str]:
    try:
        text = file.data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError("not UTF-8 text", file=str(file.path)) from None
    return [line.strip() for line in text.splitlines() if line.strip()]


def _sli_alphabet(read: dict[PurePosixPath, FolderFile], language: PurePosixPath, words: list[str],
                  folder: Path) -> str:
    """The released scorer's vocabulary: vocab.json (beside the language folders or inside one) plus
    ASCII letters; without a vocab.json, the words' own characters plus ASCII letters. (A word character
    outside it stays outside, as there: no valid program can write it.)"""
    chars: list[str] = []
    beside = folder.parent / "vocab.json"  # one language folder imported alone: the vocabulary beside it
    if language == PurePosixPath() and os.path.isfile(beside):
        read = {**read, PurePosixPath("..", "vocab.json"): FolderFile(folder, PurePosixPath("..", "vocab.json"),
                                                                       read_file(beside))}
    for candidate in (language / "vocab.json", language.parent / "vocab.json", PurePosixPath("..", "vocab.json")):
        if candidate in read:
            try:
                data = json.loads(read[candidate].data.decode("utf-8"))
            except (ValueError, UnicodeDecodeError, RecursionError):
                raise UserError("not a JSON list of characters", file=str(read[candidate].path)) from None
            if isinstance(data, list):
                chars = [c for c in data if isinstance(c, str)]
            break
    if not chars:
        chars = sorted(set("".join(words)))
    return "".join(dict.fromkeys([*chars, *string.ascii_lowercase, *string.ascii_uppercase]))
