"""A command run in a real pseudo-terminal, as a person starts it: wait for a text on its screen, type keys."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
import threading
import time
from pathlib import Path


def in_a_terminal(argv: list[str], until: bytes, keys: bytes, *, wait_s: float = 300.0, cwd: Path | None = None,
                  env: dict[str, str] | None = None) -> tuple[int, bytes]:
    """Run `argv` in a terminal of 140x44, wait for `until` on it, type `keys`, and wait for its end."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 44, 140, 0, 0))
    proc = subprocess.Popen(argv, stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True, cwd=cwd,
                            env=env)
    os.close(terminal)
    screen = bytearray()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                return
            if not chunk:
                return
            screen.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + wait_s
        while until not in screen and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.3)
        assert until in screen, bytes(screen[-3000:]).decode(errors="replace")
        time.sleep(1.0)
        os.write(controller, keys)
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
        reader.join(timeout=5)
        os.close(controller)
    return code, bytes(screen)
