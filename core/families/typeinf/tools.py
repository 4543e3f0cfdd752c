"""The external tool this family uses: GHC (Debian's `ghc`), as validator and equivalence oracle."""

from __future__ import annotations

from core.tools import Tool

GHC = Tool(
    name="ghc",
    executable="ghc",
    package="ghc",
    version_args=("--numeric-version",),
    confine="tool",  # reads answers (and imported files): confined where bubblewrap runs (docs/sandbox.md)
    reads=("/var/lib/ghc",),  # Debian's global package database (/usr/lib/ghc/package.conf.d links there)
    note="validates the corpus and generated tasks; proves answers equal to the ground truth (Refl / subsumption)",
    optional=True,  # answers are checked in-process (core.families.typeinf.check); GHC is the second oracle
)
