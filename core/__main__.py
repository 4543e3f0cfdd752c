"""`python -m core ...` runs the CLI without the TUI default (handy in scripts and tests)."""

from core.cli import main

main()
