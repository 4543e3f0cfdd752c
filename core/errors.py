"""User-facing errors: one line, exit code 2, never a traceback."""

from __future__ import annotations


class UserError(Exception):
    """Bad input from the user (a file, a flag, a spec). The CLI prints it on one line and exits 2.

    The location parts are optional; when present the message reads `file:line: field: message`.
    """

    def __init__(
        self, message: str, *, file: str | None = None, line: int | None = None, field: str | None = None
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file + (f":{self.line}" if self.line is not None else "") + ": "
        field = f"field '{self.field}': " if self.field else ""
        return f"{where}{field}{self.message}".replace("\n", " ")


class EnvironmentFault(UserError):
    """The machine, not the input, failed: a tool that cannot run (missing or broken, a full or read-only
    temporary directory, killed by the out-of-memory killer), or no sandbox for untrusted code. Never a
    verdict on an answer and never cached; a run stops at the first one (resumable, see core.runner)."""


class ToolMissing(EnvironmentFault):
    """An external oracle (ghc, javac, frama-c) is not installed; names the Debian package."""

    def __init__(self, tool: str, package: str) -> None:
        from core.install import install_command

        super().__init__(f"'{tool}' is not installed (Debian package '{package}'); install it with: "
                         f"{install_command([package])}")
        self.tool = tool
        self.package = package
