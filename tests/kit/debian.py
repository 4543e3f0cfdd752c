"""A simulated Debian machine for the set-up tests: dpkg's status file without some packages (bound over
the real one by bubblewrap), and the packages `.ci/setup` checks, as the script itself lists them."""

from __future__ import annotations

import re
from pathlib import Path

from core.paths import DATA_ROOT

DPKG_STATUS = Path("/var/lib/dpkg/status")


def setup_packages() -> list[str]:
    """The Debian packages `.ci/setup` checks (its APT_PACKAGES)."""
    text = (DATA_ROOT / ".ci" / "setup").read_text(encoding="utf-8")
    listed = re.search(r"^APT_PACKAGES=\(([^)]*)\)", text, re.MULTILINE)
    assert listed, "APT_PACKAGES=( ... ) is no longer in .ci/setup"
    return listed.group(1).split()


def status_without(removed: set[str] | None, dest: Path) -> Path:
    """The machine's dpkg status file without the stanzas of `removed` (None: without any stanza)."""
    if removed is None:
        dest.write_text("")
        return dest
    stanzas = DPKG_STATUS.read_text(encoding="utf-8", errors="surrogateescape").split("\n\n")
    kept = [s for s in stanzas if not any(line == f"Package: {p}" for p in removed for line in s.splitlines())]
    assert len(stanzas) - len(kept) >= len(removed), f"not every one of {removed} is installed here"
    dest.write_text("\n\n".join(kept), encoding="utf-8", errors="surrogateescape")
    return dest
