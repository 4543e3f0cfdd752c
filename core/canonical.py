"""Canonical JSON and content hashes (the basis of stable ids and seeds on every machine), and values made
safe to store (lone surrogates, integers beyond 64 bits)."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

# Built once: json.dumps with options builds an encoder per call, a third of the cost on small values.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, so equal content always gives equal bytes."""
    return _CANONICAL.encode(value)


def content_hash(value: Any, length: int = 16) -> str:
    # surrogatepass: a lone surrogate read from a file hashes (to itself) instead of crashing
    return hashlib.sha256(canonical_json(value).encode("utf-8", "surrogatepass")).hexdigest()[:length]


def derive_seed(*parts: Any) -> int:
    """A 64-bit seed from any JSON-able parts. Independent of PYTHONHASHSEED (no hash())."""
    digest = hashlib.sha256(canonical_json(list(parts)).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big")


# ---- text that can be stored ------------------------------------------------------------------------
_SURROGATES = re.compile("[\ud800-\udfff]")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # what SQLite stores as an integer


def safe_text(text: str) -> str:
    """`text` with lone surrogates (which a JSON `\\ud800` escape from a server or a file can put in a
    Python string, and which UTF-8 cannot encode) replaced by U+FFFD, so it can be written anywhere."""
    if text.isascii():  # O(1) in CPython, and true of nearly every string stored
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", text)
    return text


def storable(value: Any) -> Any:
    """A copy of a JSON-like value that SQLite and UTF-8 files accept: strings made `safe_text` (dict
    keys too), and integers outside SQLite's 64-bit range as their decimal text."""
    kind = type(value)
    if kind is str:
        return value if value.isascii() else safe_text(value)
    if kind is dict:
        return {(k if type(k) is str and k.isascii() else safe_text(str(k))): storable(v) for k, v in value.items()}
    if value is None or kind is float or kind is bool:
        return value
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, bool | float):
        return value
    if isinstance(value, int):
        return value if INT64_MIN <= value <= INT64_MAX else str(value)
    if isinstance(value, dict):
        return {safe_text(str(k)): storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable(v) for v in value]
    return value


def json_line(value: Any) -> str:
    """One compact JSON line that any UTF-8 file accepts: characters kept as they are, except that a
    value holding lone surrogates is written with \\u escapes (which read back as the same string)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text
