"""The external tools `specs` needs, and the Why3 configuration Frama-C's WP reads.

Frama-C 25 links Why3 as a library, which finds provers only through a Why3 configuration file
(`why3 config detect` writes `~/.why3.conf`). A run in a private directory with another HOME would find
none, so every WP run carries its own configuration: `why3 config detect` is run once per process into
a private file (through the tool runner, uncached: provers may be installed later), its memory limit is
raised (Why3's default 1000 MB limit makes Z3 fail with "out of memory" on some goals here), and the
text is passed to Frama-C as `why3.conf` with `WHY3CONFIG` pointing at it.
"""

from __future__ import annotations

import re
import threading

from core.errors import EnvironmentFault
from core.tools import Tool, run

# Frama-C reads the answer (gcc's preprocessor included): confined where bubblewrap runs (docs/sandbox.md)
# (it loads its plugins through OCaml's findlib, which reads its configuration in /etc)
FRAMAC = Tool("frama-c", "frama-c", "frama-c-base", version_args=("-version",), confine="tool",
              reads=("/etc/ocamlfind.conf", "/etc/ocamlfind.conf.d"),
              note="Frama-C WP (deductive verification) and E-ACSL (runtime contract checks)")
WHY3 = Tool("why3", "why3", "why3", version_args=("--version",), note="prover platform used by WP")
CVC4 = Tool("cvc4", "cvc4", "cvc4", note="SMT prover (first choice)")
Z3 = Tool("z3", "z3", "z3", note="SMT prover (raced with CVC4)")
# gcc compiles and runs test harnesses (differential testing, runtime contract checks); one shell
# invocation compiles and runs, so the binary never has to leave the private directory. The programs
# come from answers and imported files: always in the sandbox, or refused (core.tools.sandbox).
GCC_RUN = Tool("gcc", "sh", "gcc", version_args=("-c", "gcc -dumpfullversion"), extra=("gcc",), confine="program",
               note="compiles and runs test harnesses (E-ACSL runtime checks, differential testing)")
REQUIRED = (FRAMAC, WHY3, CVC4, Z3, GCC_RUN)

WHY3_MEMLIMIT_MB = 4000
_CONF: str | None = None
_LOCK = threading.Lock()


def why3_config() -> str:
    """A Why3 configuration naming the installed provers (detected once per process)."""
    global _CONF
    with _LOCK:
        if _CONF is not None:
            return _CONF
        result = run(WHY3, ["config", "detect"], env={"WHY3CONFIG": "why3.conf"}, collect=["why3.conf"],
                     timeout_s=60, cache=False)
        text = result.files.get("why3.conf", "")
        if not re.search(r'name = "(CVC4|Z3)"', text):
            said = " ".join((result.stdout + " " + result.stderr).split())[-300:]
            raise EnvironmentFault("why3 config detect found neither CVC4 nor Z3 (Debian packages cvc4, z3)"
                                   + (f"; it said: {said}" if said else ""))
        text = re.sub(r"memlimit = \d+", f"memlimit = {WHY3_MEMLIMIT_MB}", text)
        _CONF = text
        return text
