"""JSONL input with errors that name the file, the line and the field."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import UserError
from core.limits import MAX_INSTANCES

if TYPE_CHECKING:
    from pydantic import ValidationError

    from core.family import Family
    from core.instance import Instance

# pydantic (through core.instance) is imported where an instance is parsed, not here: a command whose file
# is unreadable or not JSON stops before any instance is built, and its error line then costs the process
# ~0.1 s of start-up less (most cases of the bad-input battery, and a user's every mistyped path).

# Deeper nesting would exhaust the stack of the code that walks a value (validation, canonical JSON).
# Integers are limited by Python itself (4300 digits); fields stored as integers (sample) check their own.
MAX_DEPTH = 200


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; UserError on the first bad line."""
    path = Path(path)
    name = str(path)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise UserError(f"cannot open ({exc.strerror or exc})", file=name) from None
    with handle:
        mode = os.fstat(handle.fileno()).st_mode
        # a device or a socket never ends a line (/dev/zero read line by line fills the memory); a FIFO is the
        # user's own pipe (`<(zcat data.jsonl.gz)`), read as it comes
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            from core.folders import kind

            raise UserError(f"not a regular file ({kind(mode)})", file=name)
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise UserError(f"not valid UTF-8 (byte {exc.start})", file=name, line=number) from None
            if not text.strip():
                continue
            value = parse_line(text, name, number)
            if not isinstance(value, dict):
                raise UserError("expected a JSON object", file=name, line=number)
            yield number, value


def parse_line(text: str, name: str, number: int) -> Any:
    """One JSON value within the limits every later step can handle (nesting, number sizes)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"malformed JSON ({exc.msg} at column {exc.colno})", file=name, line=number) from None
    except RecursionError:
        raise UserError(f"JSON nested too deeply (more than {MAX_DEPTH} levels)", file=name, line=number) from None
    except ValueError:  # Python refuses to read integers of more than sys.get_int_max_str_digits() digits
        raise UserError(f"an integer with more than {sys.get_int_max_str_digits()} digits", file=name,
                        line=number) from None
    field, problem = _within_limits(value)
    if problem:
        raise UserError(problem, file=name, line=number, field=field)
    return value


def _within_limits(value: Any) -> tuple[str | None, str | None]:
    """(field path, problem) of the first value nested too deeply, else (None, None). Iterative, so it
    cannot itself run out of stack."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_DEPTH:
            return ".".join(path[:5]) + "...", f"JSON nested too deeply (more than {MAX_DEPTH} levels)"
        if isinstance(item, dict):
            stack.extend((v, (*path, str(k))) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, (*path, str(i))) for i, v in enumerate(item))
    return None, None


def validation_message(exc: ValidationError) -> tuple[str, str]:
    """(field path, message) of the first pydantic error, e.g. ("meta.category", "Field required")."""
    err = exc.errors()[0]
    return ".".join(str(p) for p in err["loc"]) or "(object)", err["msg"]


def load_instances(family: Family, path: str | Path) -> list[Instance]:
    """The instances of a file that must hold some (an empty one is a truncated or wrong file, not a task)."""
    instances = [inst for _, inst in load_numbered_instances(family, path)]
    if not instances:
        raise UserError("no instances in it (an empty file)", file=str(path))
    return instances


def load_numbered_instances(family: Family, path: str | Path,
                            max_items: int = MAX_INSTANCES) -> list[tuple[int, Instance]]:
    """(line number, instance) for each line; at most `max_items` (a UserError beyond)."""
    instances: list[tuple[int, Instance]] = []
    for number, obj in read_jsonl(path):
        if len(instances) >= max_items:
            raise UserError(f"more than {max_items} instances; split the file", file=str(path), line=number)
        if obj.get("family", family.id) != family.id:
            raise UserError(
                f"instance of family '{obj.get('family')}', expected '{family.id}'", file=str(path), line=number,
                field="family",
            )
        obj.setdefault("family", family.id)
        from pydantic import ValidationError  # after the file's first line is read (see the imports above)

        try:
            instances.append((number, family.parse_instance(obj)))
        except ValidationError as exc:
            field, message = validation_message(exc)
            raise UserError(message, file=str(path), line=number, field=field) from None
    return instances


def load_answers(path: str | Path) -> list[tuple[int, str, str]]:
    """(line, id, response) from `{"id": ..., "response": ...}` lines."""
    answers = []
    for number, obj in read_jsonl(path):
        for field in ("id", "response"):
            if field not in obj:
                raise UserError("missing", file=str(path), line=number, field=field)
        if not isinstance(obj["response"], str):
            raise UserError("must be a string", file=str(path), line=number, field="response")
        answers.append((number, str(obj["id"]), obj["response"]))
    if not answers:
        raise UserError("no answers in it (an empty file)", file=str(path))
    return answers


def write_jsonl(rows: Iterator[dict[str, Any]] | list[dict[str, Any]], out: Any) -> int:
    """Write rows to a text stream, one compact JSON object per line (key order kept)."""
    from core.canonical import json_line

    count = 0
    for row in rows:
        out.write(json_line(row) + "\n")
        count += 1
    return count
