"""`python -m core ...` runs the CLI without the TUI default (handy in scripts and tests)."""

import os

# Before the imports: a model built while they run would otherwise search for pydantic plugins (core.cli.main).
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from core.cli import main  # noqa: E402

main()
