"""What counts as a secret, and how secrets are kept out of everything Sembench writes.

A secret is an API key that looks real: at least MIN_SECRET_CHARS characters, at least MIN_DISTINCT
different characters, and not a documented placeholder. The dummy keys local servers are used with (`x`,
`EMPTY`, `ollama`, `lm-studio`, `token-abc123`, llama.cpp's `sk-no-key-required`) are not secrets: they
protect nothing, and treating them as secrets would rewrite every `x` a model writes.

Where redaction applies (`redact`, `scrub`): error texts, headers, reply metadata (finish reason, model
name, usage) and every field Sembench stores, caches, exports or prints. The reply text and reasoning are
never redacted on their way to extraction and verification: the verdict is computed from exactly what the
server sent. When the stored copy of a reply would contain a secret (a server echoing the key), the
stored copy has it replaced by MARK, the attempt records which fields were redacted, and the reply is not
put into the response cache (a cache replay must be exactly what the server sent).

The secrets known to a process are the keys in the standard variables (OPENAI_API_KEY, ANTHROPIC_API_KEY),
every key an `Endpoint` was built with (`register`), and every value of the user's environment that looks
like a secret: a variable whose name holds KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, with a value of at
least MIN_ENV_SECRET_CHARS characters that passes `is_secret` and is not a path of this machine (what a
program run for an answer prints is data, and would otherwise carry such a value into a verdict);
`core.models.config.known_secrets()` adds the keys the config file names (its `api_key`, or the variable
its `api_key_env` names).
A whole secret and any WINDOW-character piece of one (servers echo partial keys: "sk-abc...xyz") is
replaced, in any letter case: a server that echoes the key lower-cased or upper-cased gives the key away
as surely as an exact copy (case is matched by folding the text and the key alike, see `_fold`); so are
its reversed copy and its base64 encodings (standard and URL-safe, at each of the three alignments a
key can have in an encoded stream: `forms`). Other re-encodings (spaced out, hex) are not looked for:
docs/keys.md.
"""

from __future__ import annotations

import base64
import functools
import os
import re
import threading
from collections.abc import Iterable
from typing import Any

MIN_SECRET_CHARS = 16
MIN_DISTINCT = 6
WINDOW = 12  # any piece of a secret this long is redacted too
ANCHOR = WINDOW // 2  # every WINDOW-long piece contains one of the key's ANCHOR-aligned slices
# A reversed or encoded form of a secret is redacted whole and in pieces this long (twice the window:
# half the slices to look for, so that the forms cost less than three times the key alone)
FORM_WINDOW = 2 * WINDOW
MARK = "[redacted key]"
# Placeholders from local servers' documentation that are long enough to pass the length rule.
PLACEHOLDERS = frozenset({"sk-no-key-required"})

# The variables providers read keys from by default (core.models.config.API_KEY_ENV's values).
STANDARD_KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
# Other variables of the user's environment whose values are taken for secrets (see the module docstring).
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
MIN_ENV_SECRET_CHARS = 20

_lock = threading.Lock()
_registered: set[str] = set()
_registrations = [0]  # register() calls that added a key (or found it there)
# known()'s last answer, keyed by what it depends on: it runs for every stored row and every reply.
_known_memo: dict[str, Any] = {"key": None, "value": ()}


def is_secret(key: str | None) -> bool:
    """Whether a key looks real enough that it must never be written anywhere."""
    if not isinstance(key, str):
        return False
    key = key.strip()
    return (len(key) >= MIN_SECRET_CHARS and len(set(key)) >= MIN_DISTINCT
            and key.lower() not in PLACEHOLDERS)


def register(key: str | None) -> None:
    """Remember a key this process may send, so that everything it writes is scrubbed of it."""
    if is_secret(key):
        with _lock:
            _registered.add(key.strip())  # type: ignore[union-attr]
            _registrations[0] += 1


def registered_state() -> tuple[int, int, int]:
    """Tells a change of the registered keys: every register() call counts, and the set's identity and
    size tell a caller that put another set in its place."""
    return _registrations[0], id(_registered), len(_registered)


def env_values(names: tuple[str, ...]) -> tuple[Any, ...]:
    """The environment's current values of `names`, to compare with earlier ones (for telling a change,
    not for use: on CPython they are os.environ's own encoded bytes, read without decoding, ~20x faster
    than os.environ.get; None for an unset variable)."""
    data = getattr(os.environ, "_data", None)
    if isinstance(data, dict):
        return tuple(map(data.get, _encoded(names)))
    return tuple(map(os.environ.get, names))


@functools.lru_cache(maxsize=32)
def _encoded(names: tuple[str, ...]) -> tuple[Any, ...]:
    encode = getattr(os.environ, "encodekey", None)
    return tuple(encode(name) for name in names) if encode else names


_names_memo: dict[str, Any] = {"keys": None, "names": ()}


def env_secret_names() -> tuple[str, ...]:
    """The names of the environment's variables that may hold a secret (SECRET_NAME), the standard key
    variables aside. Cheap to call often: worked out again only when the set of variables changes."""
    data = getattr(os.environ, "_data", None)
    keys = tuple(data) if isinstance(data, dict) else tuple(os.environ)
    if keys == _names_memo["keys"]:
        return _names_memo["names"]  # type: ignore[no-any-return]
    decoded = (os.fsdecode(k) if isinstance(k, bytes) else k for k in keys)
    names = tuple(sorted(n for n in decoded if SECRET_NAME.search(n) and n not in STANDARD_KEY_VARS))
    _names_memo.update(keys=keys, names=names)
    return names


def is_env_secret(value: str | None) -> bool:
    """Whether a value of a secret-named variable is a secret: long enough, varied enough, and not a
    path of this machine (a variable naming a key file names where a secret is, it is not one)."""
    if not isinstance(value, str) or len(value.strip()) < MIN_ENV_SECRET_CHARS or not is_secret(value):
        return False
    try:
        return not os.path.lexists(value.strip())
    except (OSError, ValueError):
        return True


def known() -> tuple[str, ...]:
    """Every secret this process knows: registered keys, those in the standard variables now, and the
    secret-looking values of the environment (module docstring)."""
    names = env_secret_names()
    env = env_values(STANDARD_KEY_VARS + names)
    with _lock:
        memo_key = (len(_registered), names, env)  # keys are only ever added, so the count tells a change
        if _known_memo["key"] == memo_key:
            return _known_memo["value"]  # type: ignore[no-any-return]
        found = set(_registered)
    found.update(k.strip() for k in map(os.environ.get, STANDARD_KEY_VARS) if is_secret(k))
    found.update(v.strip() for v in map(os.environ.get, names) if is_env_secret(v))
    value = tuple(sorted(found, key=len, reverse=True))
    with _lock:
        _known_memo.update(key=memo_key, value=value)
    return value


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _fold(text: str) -> str:
    """`text` lower-cased character for character, so positions in the result are positions in `text`:
    str.lower (in C) when no character lower-cases to two (the usual case, and always for ASCII),
    else ASCII letters only (a rare text with, e.g., a dotted capital I)."""
    folded = text.lower()
    return folded if len(folded) == len(text) else text.translate(_ASCII_LOWER)


@functools.lru_cache(maxsize=64)
def _folded_key(key: str) -> str:
    return _fold(key)


@functools.lru_cache(maxsize=64)
def forms(key: str) -> tuple[str, ...]:
    """The texts that give `key` away: itself, reversed, and its base64 encodings. Base64 encodes 3 bytes
    as 4 characters, so a key inside an encoded text shows as one of three strings (one per position of
    its first byte in a group of 3), less the characters its neighbours share; each is kept in standard
    and URL-safe alphabets. Forms shorter than WINDOW could not be told from chance and are left out."""
    data = key.encode("utf-8", "surrogatepass")
    found = [key, key[::-1]]
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii")
        start = -(-offset * 8 // 6)  # the characters the padding bytes reach into
        core = encoded[start:(offset + len(data)) * 8 // 6]
        found += [core, core.replace("+", "-").replace("/", "_")]
    return tuple(dict.fromkeys(f for f in found if len(f) >= WINDOW))


def _spans(text: str, key: str, window: int = WINDOW) -> list[tuple[int, int]]:
    """Where `text` holds the key or a piece of it at least `window` long, as [start, end) spans.

    Linear in the text for any key: every WINDOW-long piece of the key contains one of the key's slices
    key[ANCHOR*m : ANCHOR*(m+1)], so only occurrences of those few slices are looked at (str.find, in C),
    and each is grown to the longest run that matches the key at that alignment."""
    spans: list[tuple[int, int]] = []
    n = len(key)
    step = window // 2
    for anchor, offsets in _anchors(key, step):
        pos = text.find(anchor)
        while pos != -1:
            for m in offsets:
                start, end = pos, pos + step
                while start > 0 and start - pos + m > 0 and text[start - 1] == key[start - 1 - pos + m]:
                    start -= 1
                while end < len(text) and end - pos + m < n and text[end] == key[end - pos + m]:
                    end += 1
                if end - start >= min(window, n):
                    spans.append((start, end))
            pos = text.find(anchor, pos + 1)
    return spans


@functools.lru_cache(maxsize=64)
def _anchors(key: str, step: int = ANCHOR) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The key's `step`-long slices at multiples of `step`, each with the offsets where it occurs."""
    found: dict[str, list[int]] = {}
    for m in range(0, len(key) - step + 1, step):
        found.setdefault(key[m:m + step], []).append(m)
    return tuple((anchor, tuple(offsets)) for anchor, offsets in found.items())


def redact(text: str, keys: Iterable[str] | None = None) -> str:
    """`text` with every secret (all known ones, or `keys`) and every WINDOW-long piece of one as MARK.
    Keys that are not secrets (dummy keys) are left alone."""
    if not isinstance(text, str) or len(text) < WINDOW:
        return text  # too short to hold a secret or a WINDOW-long piece of one
    return _redact(text, known() if keys is None else tuple(k.strip() for k in keys if is_secret(k)))


def _redact(text: str, secrets: tuple[str, ...]) -> str:
    """`redact` with the secrets already checked and stripped, matched in any letter case: the text is
    folded once (one C pass; the search then stays linear) and searched for each folded key."""
    if not secrets:
        return text
    folded = _fold(text)
    spans: list[tuple[int, int]] = []
    for key in secrets:
        spans.extend(_spans(folded, _folded_key(key)))
        for form in forms(key)[1:]:
            spans.extend(_spans(folded, _folded_key(form), FORM_WINDOW))
    if not spans:
        return text
    spans.sort()
    out: list[str] = []
    last = 0
    for start, end in spans:
        if start < last:  # overlapping or adjacent pieces: one mark
            if end > last:
                last = end
            continue
        out.append(text[last:start])
        out.append(MARK)
        last = end
    out.append(text[last:])
    return "".join(out)


def scrub(value: Any, keys: Iterable[str] | None = None) -> Any:
    """A copy of a JSON-like value (dicts, lists, strings) with secrets redacted in every string, keys
    of dicts included. Other values are returned as they are."""
    secrets = known() if keys is None else tuple(k.strip() for k in keys if is_secret(k))
    if not secrets:
        return value
    return _scrub(value, secrets)


def _scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return value if len(value) < WINDOW else _redact(value, secrets)
    if isinstance(value, dict):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_scrub(v, secrets) for v in value)
    return value


def contains_secret(value: Any, keys: Iterable[str] | None = None) -> bool:
    """Whether any string in a JSON-like value holds a secret (or a WINDOW-long piece of one)."""
    secrets = known() if keys is None else tuple(k.strip() for k in keys if is_secret(k))
    return bool(secrets) and _scrub(value, secrets) != value
