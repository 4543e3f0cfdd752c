"""A command run in a real pseudo-terminal, as a person starts it: wait for a text on its screen, type keys."""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import termios
import threading
import time
from pathlib import Path


def _default_hangup() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


class Terminal:
    """`argv` in a terminal of `size` (columns, lines); everything it writes is kept in `screen` (a terminal
    nobody reads fills up and stops the program writing to it)."""

    def __init__(self, argv: list[str], *, size: tuple[int, int] = (140, 44), cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.controller, terminal = pty.openpty()
        fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        # SIGHUP as a terminal's program has it: a suite started under `nohup` would pass on "ignore", and a
        # closed terminal would then not end the program
        self.proc = subprocess.Popen(argv, stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True,
                                     cwd=cwd, env=env, preexec_fn=_default_hangup)
        os.close(terminal)
        self.screen = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.controller, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.screen.extend(chunk)

    def wait_for(self, text: bytes, wait_s: float) -> None:
        deadline = time.monotonic() + wait_s
        while text not in self.screen and self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert text in self.screen, bytes(self.screen[-3000:]).decode(errors="replace")

    def write(self, keys: bytes) -> None:
        os.write(self.controller, keys)

    def close(self, sig: int = signal.SIGKILL) -> int:
        """Send `sig` to the program's process group unless it has ended; its exit code."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
        code = self.proc.wait(timeout=60)
        self._reader.join(timeout=5)
        os.close(self.controller)
        return code


def in_a_terminal(argv: list[str], until: bytes, keys: bytes, *, wait_s: float = 300.0, cwd: Path | None = None,
                  env: dict[str, str] | None = None) -> tuple[int, bytes]:
    """Run `argv` in a terminal of 140x44, wait for `until` on it, type `keys`, and wait for its end."""
    term = Terminal(argv, cwd=cwd, env=env)
    try:
        term.wait_for(until, wait_s)
        time.sleep(1.0)
        term.write(keys)
        term.proc.wait(timeout=120)
    finally:
        code = term.close()
    return code, bytes(term.screen)
