"""A seccomp filter for confined runs (bwrap `--seccomp FD`), written as classic BPF.

Why: the runner charges a run that overran its wall-clock limit to the answer only when the run spent
the CPU time (core.tools.process); a process found stopped is taken as stopped from outside (a stalled
machine, a user's SIGSTOP). That holds only if a confined process cannot stop itself or another one of
the sandbox: the filter refuses (EPERM) sending SIGSTOP, SIGTSTP, SIGTTIN and SIGTTOU through every
signal-sending call, and ptrace. For programs it also refuses SysV shared memory and memfd_create:
memory that outlives the mapping that made it, so an address-space limit does not bound it. Calls of
another architecture's ABI (x32, 32-bit) are refused whole. On an architecture not listed here no
filter is loaded (docs/sandbox.md).
"""

from __future__ import annotations

import errno
import functools
import os
import platform
import struct

# struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 i (low half first on little-endian)
_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_DENY = 0x00050000 | errno.EPERM  # SECCOMP_RET_ERRNO
STOP_SIGNALS = (19, 20, 21, 22)  # SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU (the same on x86-64 and arm64)

# architecture: (AUDIT_ARCH, {signal call: index of its signal argument}, ptrace, {calls refused to programs})
_ARCHES: dict[str, tuple[int, dict[int, int], int, tuple[int, ...]]] = {
    # kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal; ptrace; shmget, memfd_create
    "x86_64": (0xC000003E, {62: 1, 200: 1, 234: 2, 129: 1, 297: 2, 424: 1}, 101, (29, 319)),
    "aarch64": (0xC00000B7, {129: 1, 130: 1, 131: 2, 138: 1, 240: 2, 424: 1}, 117, (194, 279)),
}
_X32_BIT = 0x40000000


def _program(program: bool) -> bytes | None:
    arch = _ARCHES.get(platform.machine())
    if arch is None:
        return None
    audit, signalling, ptrace, program_only = arch
    code: list[tuple[int, int | str, int | str, int]] = []  # (op, jump if true, jump if false, k)
    code.append((_LD_ABS, 0, 0, 4))
    code.append((_JEQ, 0, "deny", audit))
    code.append((_LD_ABS, 0, 0, 0))
    code.append((_JGE, "deny", 0, _X32_BIT))
    for nr, index in signalling.items():
        # if nr matches: load the signal and refuse a stopping one; else skip the block (2 + signals + 1)
        code.append((_JEQ, 0, len(STOP_SIGNALS) + 2, nr))
        code.append((_LD_ABS, 0, 0, 16 + 8 * index))
        code.extend((_JEQ, "deny", 0, sig) for sig in STOP_SIGNALS)
        code.append((_RET, 0, 0, _ALLOW))
    for nr in (ptrace, *(program_only if program else ())):
        code.append((_JEQ, "deny", 0, nr))
    code.append((_RET, 0, 0, _ALLOW))
    deny = len(code)
    code.append((_RET, 0, 0, _DENY))
    out = bytearray()
    for i, (op, jt, jf, k) in enumerate(code):
        jt = deny - i - 1 if jt == "deny" else jt
        jf = deny - i - 1 if jf == "deny" else jf
        out += struct.pack("=HBBI", op, int(jt), int(jf), k)
    return bytes(out)


@functools.cache
def compiled(program: bool) -> bytes | None:
    return _program(program)


def filter_fd(program: bool) -> int | None:
    """A readable file descriptor holding the filter (a pipe, written and closed), for `bwrap --seccomp`;
    None where no filter is known for this architecture."""
    data = compiled(program)
    if data is None:
        return None
    read, write = os.pipe()
    try:
        os.write(write, data)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write)
    return read
