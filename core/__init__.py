"""Sembench engine: families, instances, verification, storage, runs. Never imports the UI."""

from core import pydantic_plugins

__version__ = "0.1.0"

pydantic_plugins.install()  # before any model is built (the module says why)
