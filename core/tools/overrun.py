"""Whose fault a wall-clock overrun is: the run's (it spent the CPU time) or the machine's.

A run is given a wall-clock limit, but only CPU time it spent counts against its input: a run that
passed its limit while the machine was stalled or busy with other work (a SIGSTOP from outside, a
suspended VM, a load of other jobs) says nothing about the answer it checked. At the deadline, before
the run is killed, its process tree is read from /proc (every process descended from the one the
runner started: a confined run's sandbox, whatever sessions its processes made):

- it spent at least CPU_SHARE of the limit in CPU time: the run's own overrun (a verdict on the input);
- else, a process of it is stopped (a confined process cannot stop itself or a sibling: core.tools.seccomp),
  or it is runnable while other work took at least BUSY_SHARE of the machine's CPUs over the run, or
  sembench itself did not run for STALL_SHARE of the limit: the machine's (retried, then an environment
  fault);
- else it waited on itself (sleeping, blocked on a pipe): the run's own overrun.

Without cgroups this reads what /proc shows: CPU time of live processes and of the children they
reaped (a child's time reaches its parent when the parent waits for it; a sandbox's pid 1 reaps
orphans).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

CPU_SHARE = 0.5
BUSY_SHARE = 0.5
STALL_SHARE = 0.25
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass
class Machine:
    """CPU ticks of the whole machine (/proc/stat), to tell how busy other work kept it."""

    busy: int = 0
    idle: int = 0
    cpus: int = 1

    @staticmethod
    def now() -> Machine:
        try:
            with open("/proc/stat", "rb") as handle:
                text = handle.read().decode("ascii", "replace")
        except OSError:
            return Machine()
        lines = text.splitlines()
        fields = [int(x) for x in lines[0].split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        cpus = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
        return Machine(sum(fields[:8]) - idle, idle, max(1, cpus))


@dataclass
class Tree:
    """A run's live processes at one moment: their CPU time (with their reaped children's) and states."""

    cpu_s: float = 0.0
    states: list[str] = field(default_factory=list)

    @staticmethod
    def of(root: int) -> Tree:
        parents: dict[int, int] = {}
        stats: dict[int, list[str]] = {}
        try:
            names = os.listdir("/proc")
        except OSError:
            return Tree()
        for name in names:
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    raw = handle.read().decode("ascii", "replace")
            except OSError:
                continue
            rest = raw.rsplit(")", 1)[-1].split()
            if len(rest) < 15:
                continue
            pid = int(name)
            parents[pid] = int(rest[1])
            stats[pid] = rest
        members = {root}
        grew = True
        while grew:
            grew = False
            for pid, parent in parents.items():
                if parent in members and pid not in members:
                    members.add(pid)
                    grew = True
        tree = Tree()
        for pid in members:
            rest = stats.get(pid)
            if rest is None:
                continue
            tree.cpu_s += sum(int(x) for x in rest[11:15]) / _TICK  # utime stime cutime cstime
            tree.states.append(rest[0])
        return tree


def cause(root: int, limit_s: float, started: Machine, stalled_s: float) -> str:
    """'' when the overrun is the run's own, else why it is the machine's (module docstring). Called at
    the deadline, while the run's processes are still alive."""
    tree = Tree.of(root)
    if tree.cpu_s >= CPU_SHARE * limit_s:
        return ""
    used = f"it used {tree.cpu_s:.1f} s of CPU time"
    if stalled_s >= STALL_SHARE * limit_s:
        return f"{used}; sembench itself was stalled for {stalled_s:.0f} s"
    if any(state in "Tt" for state in tree.states):
        return f"{used}; it was stopped from outside (SIGSTOP)"
    now = Machine.now()
    capacity = now.cpus * limit_s
    others = (now.busy - started.busy) / _TICK - tree.cpu_s
    if "R" in tree.states and capacity > 0 and others >= BUSY_SHARE * capacity:
        return f"{used}; other work kept the machine's {now.cpus} CPUs {min(1.0, others / capacity):.0%} busy"
    return ""
