"""How long the README's main command, `bash .ci/app`, takes on a second launch to put
the workbench on screen (first paint), split into its two parts. Not a pass/fail test; prints JSON.

    .venv/bin/python tests/bench/bench_app_first_paint.py [--rounds 5]

Each launch runs in a pseudo-terminal (120x40) as a person's terminal would; the clock starts before the
process is spawned and stops when the first frame's text reaches the terminal (the browser's pane title,
drawn in the same frame as the instance table); then `q` quits. Measured interleaved, in one run:
  - setup_s: `bash .ci/setup` alone (the set-up checks `.ci/app` runs first);
  - sembench_s: `.venv/bin/sembench` alone, to first paint (what `.ci/app` execs);
  - app_s: `bash .ci/app`, to first paint (both);
  - python_s: `python -c pass` (the interpreter's own start, the floor);
  - with `--before DIR` (another checkout of the code, e.g. `git worktree add /tmp/before HEAD~1`),
    sembench_before_s: `.venv/bin/sembench` running that code, to first paint, and the ratio.
A private XDG_CACHE_HOME / XDG_DATA_HOME / XDG_CONFIG_HOME / XDG_STATE_HOME: one launch first (the first launch: it builds
the imports knowledge base into that cache and writes the stamps), then the measured second launches.
Each case also reports its CPU seconds (user + system of the process and what it started and waited for,
up to the first paint: `cpu_s`), which a machine loaded by other jobs inflates far less than the wall
clock. The target is app_s < 1 s.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import resource
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = b"Snapshots"  # the browser's pane title: in the first frame with the instance table
COLUMNS, LINES = 120, 40


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid: int) -> float:
    """CPU seconds of a live process and of its children it has waited for (/proc/PID/stat: utime, stime,
    cutime, cstime): `bash .ci/app` execs sembench in its own process after waiting for the set-up."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def to_first_paint(command: list[str], env: dict[str, str], timeout: float = 120.0,
                   cwd: Path = ROOT) -> tuple[float, float]:
    """Seconds from spawning `command` on a new pseudo-terminal to MARKER on it (then the app quits), and
    the CPU seconds the launch had used by then."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True, close_fds=True)
    os.close(slave)
    seen, elapsed, used, tail = b"", None, 0.0, b""
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:
                    break
                seen = (seen + chunk)[-4096:]
                if elapsed is None and MARKER in seen:
                    elapsed = time.perf_counter() - start
                    used = process_cpu(proc.pid)
                    os.write(master, b"q")
            if proc.poll() is not None:
                break
        else:
            raise TimeoutError(f"{command}: no first paint within {timeout} s")
        if elapsed is None:
            tail = seen[-600:]
            raise RuntimeError(f"{command} ended (exit {proc.returncode}) before its first paint: {tail!r}")
    finally:
        if proc.poll() is None:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the group this benchmark started
                proc.wait()
        os.close(master)
    return elapsed, used


def seconds(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    cpu, start = children_cpu(), time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start, children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout: its sembench measured alongside")
    args = parser.parse_args()
    venv = ROOT / ".venv" / "bin"
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TERM": os.environ.get("TERM", "xterm-256color"), "PYTHONPATH": str(ROOT)}
        for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
            env[name] = str(Path(tmp) / name.lower())
        env.pop("SEMBENCH_CACHE_DIR", None)
        env.pop("TEXTUAL", None)
        first, _ = to_first_paint(["bash", ".ci/app"], env)  # the first launch: builds and stamps
        cases = {
            "python_s": lambda: seconds([str(venv / "python"), "-c", "pass"], env),
            "setup_s": lambda: seconds(["bash", ".ci/setup"], env),
            "sembench_s": lambda: to_first_paint([str(venv / "sembench")], env),
            "app_s": lambda: to_first_paint(["bash", ".ci/app"], env),
        }
        if args.before is not None:
            before = args.before.resolve()
            env_before = {**env, "PYTHONPATH": str(before)}
            cases["sembench_before_s"] = lambda: to_first_paint([str(venv / "sembench")], env_before, cwd=before)
        times: dict[str, list[float]] = {name: [] for name in cases}
        cpu: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.rounds):
            for name, run in cases.items():
                wall, used = run()
                times[name].append(wall)
                cpu[name].append(used)
    median = {name: round(statistics.median(values), 3) for name, values in times.items()}
    cpu_median = {name: round(statistics.median(values), 3) for name, values in cpu.items()}
    try:
        load = round(os.getloadavg()[0], 2)
    except OSError:
        load = None
    print(json.dumps({
        "benchmark": "app_first_paint_second_launch", "rounds": args.rounds, "terminal": f"{COLUMNS}x{LINES}",
        "first_launch_s": round(first, 3), "median_s": median,
        "min_s": {name: round(min(values), 3) for name, values in times.items()},
        "cpu_s": cpu_median,
        "setup_share_of_app": round(median["setup_s"] / median["app_s"], 3),
        "app_vs_sembench": round(median["app_s"] / median["sembench_s"], 3),
        "sembench_vs_python": round(median["sembench_s"] / median["python_s"], 2),
        **({"sembench_vs_before": round(median["sembench_s"] / median["sembench_before_s"], 3),
            "sembench_vs_before_cpu": round(cpu_median["sembench_s"] / cpu_median["sembench_before_s"], 3)}
           if "sembench_before_s" in median else {}),
        "target_s": 1.0, "under_target": median["app_s"] < 1.0, "load_average_1min": load,
        "python": sys.version.split()[0],
    }, indent=2))


if __name__ == "__main__":
    main()
