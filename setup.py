"""Installs the bundled data beside the code: `pip install .` (not editable) puts snapshots.db and every file
under assets/ into <prefix>/share/sembench/, where core.paths finds them. Everything else is in pyproject.toml.

The asset list is walked here rather than listed in pyproject so that a family's new assets are installed
without anyone remembering to list them."""

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
PREFIX = Path("share") / "sembench"


def data_files() -> list[tuple[str, list[str]]]:
    by_folder: dict[str, list[str]] = {}
    for path in sorted((ROOT / "assets").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            rel = path.relative_to(ROOT)
            by_folder.setdefault(str(PREFIX / rel.parent), []).append(str(rel))
    bundled = [str(PREFIX), ["snapshots.db"]] if (ROOT / "snapshots.db").exists() else None
    return ([tuple(bundled)] if bundled else []) + sorted(by_folder.items())  # type: ignore[list-item]


setup(data_files=data_files())
