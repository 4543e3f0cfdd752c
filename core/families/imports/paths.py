"""Where the family keeps what it builds (compiled helpers, the knowledge base) and which jars it uses.

The cache root is `$SEMBENCH_CACHE_DIR` when set (tests point it at a temporary folder), else
`$XDG_CACHE_HOME/sembench` (default `~/.cache/sembench`). Everything in it is derived data keyed by
the content it came from, so deleting it only costs a rebuild.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from core.errors import UserError

CACHE_ENV = "SEMBENCH_CACHE_DIR"
JAR_DIR_ENV = "SEMBENCH_JAVA_JARS"  # another folder holding the same jar names (tests, other distros)
DEFAULT_JAR_DIR = Path("/usr/share/java")

# Library -> (Debian package, jars). The first jar is the library itself; the rest are what its API
# mentions and javac must find (Debian's Depends of libhibernate3-java and libxstream-java).
LIBRARIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "jodatime": ("libjoda-time-java", ("joda-time.jar",)),
    "xstream": ("libxstream-java", ("xstream.jar", "xpp3.jar")),
    "hibernate": ("libhibernate3-java", ("hibernate-core.jar", "antlr.jar", "commons-collections3.jar",
                                         "dom4j.jar", "geronimo-jpa_2.0_spec.jar", "geronimo-jta-1.2-spec.jar",
                                         "hibernate-commons-annotations.jar", "slf4j-api.jar")),
}
LIBRARY_NAMES = ("jdk", "jodatime", "xstream", "hibernate")
# Packages whose types belong to each library (the generator draws its main types from these).
LIBRARY_PREFIXES: dict[str, tuple[str, ...]] = {
    "jdk": ("java.", "javax."),
    "jodatime": ("org.joda.time",),
    "xstream": ("com.thoughtworks.xstream",),
    "hibernate": ("org.hibernate",),
}


def cache_root() -> Path:
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sembench"


def family_cache() -> Path:
    path = cache_root() / "imports"
    path.mkdir(parents=True, exist_ok=True)
    return path


def jar_dir() -> Path:
    return Path(os.environ.get(JAR_DIR_ENV) or DEFAULT_JAR_DIR)


def library_jars() -> list[Path]:
    """Every jar of every library, in a fixed order; a missing one is a UserError naming its package."""
    out: list[Path] = []
    for _lib, (package, names) in LIBRARIES.items():
        for name in names:
            path = jar_dir() / name
            if not path.is_file():
                raise UserError(f"{path} is missing; install the Debian package '{package}' (bash .ci/setup does)")
            out.append(path)
    return out


def classpath() -> str:
    return os.pathsep.join(str(p) for p in library_jars())


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def library_of(fqn: str) -> str | None:
    """Which library a FQN belongs to (by package prefix), or None (a dependency such as dom4j)."""
    for lib in ("jodatime", "xstream", "hibernate", "jdk"):
        if any(fqn == p or fqn.startswith(p if p.endswith(".") else p + ".") for p in LIBRARY_PREFIXES[lib]):
            return lib
    return None
