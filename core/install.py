"""The command a person types to install Debian packages (named in errors and in readiness reports)."""

from __future__ import annotations

import os


def install_command(packages: list[str]) -> str:
    """`apt-get install` of `packages` (each once, in order): with sudo unless the user is root."""
    prefix = "" if hasattr(os, "geteuid") and os.geteuid() == 0 else "sudo "
    return f"{prefix}apt-get install {' '.join(dict.fromkeys(packages))}"
