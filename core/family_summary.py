"""What `sembench families` lists of a family's presets and solvers, cached on disk between runs.

Presets are computed, not declared (typeinf counts its corpus, specs applies its transformations to count
the diverse variants), with pydantic and the family's models: a few hundred ms, on every `sembench
families`. What is listed only changes with the code and data, so it is kept in
$XDG_CACHE_HOME/sembench/families-<installation>.json under a fingerprint of them: every file under
core/ and assets/ (path, size, modification time) and the installed packages (the modification times of
the site-packages folders). Any change recomputes it; families from outside core/ ($SEMBENCH_FAMILIES,
the tests' toy) are computed every time. A cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.family import Family

CACHE_ENV = "XDG_CACHE_HOME"
_fingerprint: str | None = None


def compute_summary(fam: Family) -> dict[str, Any]:
    """The family's solvers and presets as `sembench families` lists them (no cache)."""
    return {
        "solvers": sorted(fam.local_solvers()),
        "presets": [{"name": p.name, "count": p.count, "bundled": p.bundled, "description": p.description}
                    for p in fam.presets().values()],
    }


def cache_path() -> Path:
    """One file per installation (checkouts side by side do not overwrite each other's)."""
    base = os.environ.get(CACHE_ENV) or str(Path.home() / ".cache")
    where = zlib.crc32(str(Path(__file__).resolve().parent).encode("utf-8", "surrogateescape"))
    return Path(base) / "sembench" / f"families-{where:08x}.json"


def fingerprint() -> str:
    """The sources, the data and the installed packages, as text (see the module's docstring): kept
    whole rather than hashed (a few tens of kB), since hashlib alone costs more than comparing it."""
    global _fingerprint
    if _fingerprint is None:
        from core.paths import ASSETS

        lines = [f"{sys.version}\0{sys.prefix}\n"]
        for root in (Path(__file__).resolve().parent, ASSETS):
            lines.extend(_tree(str(root)))
        for entry in sys.path:
            if os.path.basename(entry) not in ("site-packages", "dist-packages"):
                continue  # the script's folder or the current one: not what the code is
            try:
                lines.append(f"{entry}\0{os.stat(entry).st_mtime_ns}\n")
            except OSError:
                continue
        _fingerprint = "".join(lines)
    return _fingerprint


def _tree(root: str) -> list[str]:
    lines = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        if entry.name == "__pycache__":
            continue
        if entry.is_dir(follow_symlinks=False):
            lines.extend(_tree(entry.path))
        else:
            st = entry.stat()
            lines.append(f"{entry.path}\0{st.st_size}\0{st.st_mtime_ns}\n")
    return lines


def _cacheable(fam: Family) -> bool:
    return type(fam).__module__.startswith("core.families.")


def summaries(families: list[Family]) -> list[dict[str, Any]]:
    """`compute_summary` of each family, from the cache when it is up to date."""
    cached: dict[str, Any] = {}
    path = cache_path()
    key = fingerprint() if any(_cacheable(f) for f in families) else ""
    if key:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict) and data.get("fingerprint") == key and isinstance(data.get("families"), dict):
                cached = data["families"]
        except (OSError, ValueError):
            cached = {}
    out = []
    missed = False
    for fam in families:
        entry = cached.get(fam.id) if _cacheable(fam) else None
        if not isinstance(entry, dict):
            entry = compute_summary(fam)
            if _cacheable(fam):
                cached[fam.id] = entry
                missed = True
        out.append(entry)
    if missed:
        _write(path, {"fingerprint": key, "families": cached})
    return out


def _write(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)  # readers see the old file or the new one, never half of one
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
