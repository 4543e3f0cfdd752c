"""Compile the family's Java helpers (KbDump, CompileService) once into the cache, keyed by source + JDK.

Only `.java` sources live in the repository; the classes go to `<cache>/imports/java-<key>/`, where key
hashes the helper sources and the javac version. A lock file makes concurrent first uses (pytest-xdist
workers) build once.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
from pathlib import Path

from core.errors import UserError
from core.families.imports.paths import family_cache
from core.families.imports.tools import JAVA, JAVAC
from core.tools import run

SOURCES = ("KbDump.java", "CompileService.java")
SOURCE_DIR = Path(__file__).parent / "java"


def helper_key(sources: tuple[str, ...] = SOURCES) -> str:
    digest = hashlib.sha256(JAVAC.version().encode())
    for name in sources:
        digest.update(b"\0" + name.encode() + b"\0" + (SOURCE_DIR / name).read_bytes())
    return digest.hexdigest()[:16]


def helper_classes() -> Path:
    """The folder holding the compiled helpers (built on first use)."""
    JAVAC.require()
    JAVA.require()
    target = family_cache() / f"java-{helper_key()}"
    stamp = target / ".complete"
    if stamp.is_file():
        return target
    lock_path = family_cache() / "java.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file():
            return target
        building = target.with_name(target.name + ".building")
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(parents=True)
        for name in SOURCES:
            shutil.copy(SOURCE_DIR / name, building / name)
        result = run(JAVAC, ["-nowarn", "-d", ".", *SOURCES], workdir=building, timeout_s=180, memory_mb=None)
        if not result.ok:
            raise UserError(f"cannot compile the Java helpers: {(result.stderr or result.stdout).strip()[:300]}")
        (building / ".complete").write_text("ok")
        shutil.rmtree(target, ignore_errors=True)
        building.rename(target)
    return target
