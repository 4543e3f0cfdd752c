"""A model run's fixed costs: the whole `python -m core run` command against a 200 ms local server; JSON.

    .venv/bin/python tests/bench/bench_run_command.py [--requests 3840] [--concurrency 256]
        [--latency 0.2] [--repeat 3] [--old /tmp/old-tree] [--server lean|fake]

bench_runner.py measures a run in its own process, after the imports and from the first request; a user
waits for the whole command. Here each contestant is a subprocess started by the benchmark and timed
from its spawn to its exit, against one local server (its own process) that stamps every request it
answers (arrival = answer time - latency). The server shares the machine's cores with the client, so its
CPU per request (`server_cpu_ms`) is part of what is measured; `--server` picks it:

  - lean (the default since 2026-11-26's fifth session): an asyncio.Protocol on uvloop, as uvicorn
    (vLLM's OpenAI server) is built: it parses the request head and the JSON body, answers the same
    OpenAI body after the latency (call_later) and costs ~0.13-0.15 ms of CPU per request. The plain
    client then reaches ~0.96 of ideal in its request phase and ~0.87 for its whole command, nearer
    the issue's own figure for it (0.957), and what bounds a client's request phase is its own CPU;
  - fake: tests/models/fakeserver.py (asyncio streams, on uvloop), the server of the earlier figures:
    ~0.3-0.4 ms per request, which holds every client's request phase to ~0.87 of ideal on a 2-core VM
    (the plain client's included; on asyncio's own loop it was ~0.85).

The contestants:

  - plain: a plain asyncio HTTP/1.1 client (bench_http_clients.plain_asyncio) in `python -c`, the same
    request bodies at the same concurrency — the anchor;
  - new: `python -m core run --snapshot bench --solver openai:bench --samples K --concurrency C` with
    this tree on PYTHONPATH (a fresh copy of the same snapshot-only database each round);
  - old (with --old DIR): the same command with DIR (e.g. a git worktree of an older commit) on PYTHONPATH.
    Each command runs in its own tree's directory: `python -m` puts the current directory first on
    sys.path, so a contestant started from another checkout would run that checkout's code instead
    (before 2026-11-26's third session the benchmark did that: an `--old` run from the repository's
    root measured the same code twice).

Rounds alternate between contestants, so a noisy neighbour hits all alike; medians are reported.
Per contestant: `whole` = requests / command wall time / ideal (ideal = concurrency / latency);
`startup_s` = spawn to the first request's arrival; `first10_rps` = the first 10% of requests answered
divided by the time from the first arrival to the last of them answered (ideal: 10% x ideal / (latency
x ceil(10% of requests / concurrency)) since a wave takes one latency); `phase` = requests / (first
arrival .. last answer) / ideal, the request phase alone; `tail_s` = last answer to exit; `cpu_s` = the
command's own CPU (user + system), which on a busy machine decides its wall time; `startup_cpu_s` = the
CPU it had used when its first request arrived: the start-up's cost, which other work on the machine does
not inflate as it does `startup_s`; `phase_cpu_ms` = its CPU during the request phase per request, what
the requests themselves cost (both sampled from /proc every 20 ms, 10 ms ticks: Linux only);
`phase_vs_plain` = phase / the plain client's phase; `server_cpu_ms` = the server's CPU per request
while the contestant ran (it shares the machine's cores); `turnaround_ms` (lean server only) = the mean
time from an answer written on a connection to the next request read on it, what a client's handling
of a reply delays its next request (the server's own wait to read it included), and
`turnaround_wave2_ms` the same over the requests read within two latencies of the first: the answers
to the first wave, which come back together. Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "runs"))
sys.path.insert(0, str(REPO / "tests" / "bench"))

# The server answers with the instance's oracle response and stamps each answer; "mark" on its stdin
# forgets the stamps, "dump" prints them as one JSON line.
SERVER = """
import json, sys, time
sys.path.insert(0, {repo!r})
from tests.models.fakeserver import FakeServer, Reply
answers = json.load(open({answers!r}))
stamps = []
def reply(req):
    stamps.append(time.time())
    last = req.messages[-1]["content"] if req.messages else ""
    return Reply(text=answers.get(last, "no idea"))
import asyncio, uvloop
asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())  # FakeServer's loop: uvloop, as uvicorn (vLLM) runs
srv = FakeServer(reply, latency_s={latency}).start()
print(srv.port, flush=True)
for line in sys.stdin:
    if line.strip() == "mark":
        stamps.clear()
        srv.reset()
    elif line.strip() == "dump":
        print(json.dumps(stamps), flush=True)
srv.stop()
"""

# --server lean: the same answers and stamps from an asyncio.Protocol on uvloop, as uvicorn serves vLLM: the
# head and the JSON body parsed, the same OpenAI body as tests/models/fakeserver.py sends, written after
# the latency by call_later (keep-alive, Content-Length bodies only: what the contestants send).
LEAN_SERVER = """
import asyncio, json, sys, threading, time
import uvloop
answers = json.load(open({answers!r}))
stamps = []
turnarounds = []
LATENCY = {latency}

def words(text):
    return len(text.split()) if isinstance(text, str) else 0

def body_for(data):
    messages = data.get("messages") or []
    last = messages[-1].get("content", "") if messages else ""
    text = answers.get(last, "no idea")
    prompt, completion = sum(words(m.get("content")) for m in messages), words(text)
    return json.dumps({{
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": data.get("model", "fake-model"),
        "choices": [{{"index": 0, "message": {{"role": "assistant", "content": text}}, "finish_reason": "stop"}}],
        "usage": {{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                  "completion_tokens_details": {{"reasoning_tokens": 0}}}},
    }}).encode()

class Http(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.buffer = transport, b""
        self.answered = None  # when this connection's last answer was written

    def data_received(self, data):
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\\r\\n\\r\\n")
            if head_end < 0:
                return
            head = self.buffer[:head_end].decode("latin-1").lower()
            at = head.find("content-length:")
            size = int(head[at + 15:].split("\\r\\n", 1)[0]) if at >= 0 else 0
            end = head_end + 4 + size
            if len(self.buffer) < end:
                return
            body, self.buffer = self.buffer[head_end + 4:end], self.buffer[end:]
            if self.answered is not None:  # the client's turnaround: its answer written .. its next request read
                now = time.time()
                turnarounds.append((now, now - self.answered))
                self.answered = None
            out = body_for(json.loads(body))
            reply = b"HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: %d\\r\\n\\r\\n%s" % (len(out), out)
            loop.call_later(LATENCY, self.answer, reply)

    def answer(self, reply):
        stamps.append(time.time())
        if not self.transport.is_closing():
            self.transport.write(reply)
            self.answered = time.time()

loop = uvloop.new_event_loop()
server = loop.run_until_complete(loop.create_server(Http, "127.0.0.1", 0, backlog=4096))
print(server.sockets[0].getsockname()[1], flush=True)
threading.Thread(target=loop.run_forever, daemon=True).start()
for line in sys.stdin:
    if line.strip() == "mark":
        stamps.clear()
        turnarounds.clear()
    elif line.strip() == "dump":
        print(json.dumps(list(stamps)), flush=True)
        print(json.dumps(list(turnarounds)), flush=True)
"""

PLAIN = """
import asyncio, json, sys
sys.path.insert(0, {bench!r})
from bench_http_clients import plain_asyncio
bodies = [line.encode() for line in open({bodies!r}).read().splitlines()]
asyncio.run(plain_asyncio({url!r}, bodies, {concurrency}, False))
"""


class Server:
    def __init__(self, answers: Path, latency: float, kind: str = "fake") -> None:
        code = (SERVER if kind == "fake" else LEAN_SERVER).format(repo=str(REPO), answers=str(answers),
                                                                   latency=latency)
        self.kind = kind
        self.turnarounds: list[tuple[float, float]] = []  # (request read, s since that connection's answer)
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        self.port = int(self.proc.stdout.readline())  # type: ignore[union-attr]

    def mark(self) -> None:
        self.proc.stdin.write("mark\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def stamps(self) -> list[float]:
        self.proc.stdin.write("dump\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]
        stamps = sorted(json.loads(self.proc.stdout.readline()))  # type: ignore[union-attr]
        if self.kind == "lean":
            self.turnarounds = [tuple(t) for t in json.loads(self.proc.stdout.readline())]  # type: ignore[union-attr]
        return stamps

    def close(self) -> None:
        self.proc.stdin.close()  # type: ignore[union-attr]
        self.proc.wait(10)


def bench_endpoint(tmp: Path, instances: int, config: str, server: str) -> tuple[Server, dict[str, str], str]:
    """The valgrind benchmarks' set-up: a snapshot `bench` of `instances` in `tmp/base.db`, a local server
    answering each prompt with its oracle response after 200 ms, and the environment pointing the command
    at it (`config` as its config file; hash seed fixed, bytecode written); the family's id last."""
    from bench_runner import pick_family
    from runs_support import write_snapshot

    family = pick_family("auto")
    written = write_snapshot(tmp / "base.db", family, "bench", instances)
    answers = {family.prompt(i).messages[-1]["content"]: family.oracle_response(i) for i in written}
    (tmp / "answers.json").write_text(json.dumps(answers))
    (tmp / "config.toml").write_text(config)
    endpoint = Server(tmp / "answers.json", 0.2, server)
    env = {**os.environ, "OPENAI_BASE_URL": f"http://127.0.0.1:{endpoint.port}/v1", "OPENAI_API_KEY": "bench-key",
           "SEMBENCH_CONFIG": str(tmp / "config.toml"), "XDG_CACHE_HOME": str(tmp / "cache"), "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return endpoint, env, family.id


def proc_cpu(pid: int) -> float:
    """A running process's CPU seconds so far (user + system), from /proc (Linux; else NaN)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return math.nan
    return (int(fields[11]) + int(fields[12])) / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)


def cpu_samples(pid: int, out: list[tuple[float, float]], stop: threading.Event) -> None:
    """(time, CPU seconds so far) of a running process every 20 ms, from /proc (Linux; else nothing)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    path = Path(f"/proc/{pid}/stat")
    while not stop.is_set():
        try:
            fields = path.read_text().rpartition(")")[2].split()
        except OSError:
            return
        out.append((time.time(), (int(fields[11]) + int(fields[12])) / tick))  # utime, stime
        stop.wait(0.02)


def cpu_at(samples: list[tuple[float, float]], when: float) -> float | None:
    """The process's CPU seconds at `when`, interpolated between the samples around it."""
    for (t0, c0), (t1, c1) in zip(samples, samples[1:], strict=False):
        if t0 <= when <= t1:
            return c0 + (c1 - c0) * ((when - t0) / (t1 - t0) if t1 > t0 else 0.0)
    return None


def measure(server: Server, argv: list[str], env: dict[str, str], n: int, concurrency: int,
            latency: float, cwd: Path | None = None) -> dict[str, float]:
    server.mark()
    server_before = proc_cpu(server.proc.pid)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    spawn = time.time()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    samples: list[tuple[float, float]] = []
    stop = threading.Event()
    sampler = threading.Thread(target=cpu_samples, args=(proc.pid, samples, stop), daemon=True)
    sampler.start()
    _out, err = proc.communicate()
    end = time.time()
    stop.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:4]} exited {proc.returncode}: {err[-2000:]}")
    server_cpu = proc_cpu(server.proc.pid) - server_before
    answered = server.stamps()
    if len(answered) != n:
        raise RuntimeError(f"{argv[:4]}: the server answered {len(answered)} requests, not {n}")
    ideal = concurrency / latency
    first = answered[0] - latency  # the first request's arrival
    tenth = max(1, n // 10)
    # CPU of the request phase alone (first arrival .. last answer), per request: what the requests cost,
    # without the start-up and the way out
    at_first, at_last = cpu_at(samples, first), cpu_at(samples, answered[-1])
    phase_cpu = (at_last - at_first) if at_first is not None and at_last is not None else math.nan
    startup_cpu = at_first if at_first is not None else math.nan
    # the client's turnaround (lean server only): its answer written .. its next request on that connection
    # read, over the phase and over the second wave (the requests read within two latencies of the first)
    turns = [gap for _when, gap in server.turnarounds]
    wave2 = [gap for when, gap in server.turnarounds if when < first + 2 * latency]
    return {
        "wall_s": end - spawn, "whole": n / (end - spawn) / ideal, "startup_s": first - spawn,
        "startup_cpu_s": startup_cpu,
        "first10_rps": tenth / (answered[tenth - 1] - first), "phase": n / (answered[-1] - first) / ideal,
        "tail_s": end - answered[-1], "cpu_s": cpu, "phase_cpu_ms": 1000 * phase_cpu / n,
        "server_cpu_ms": 1000 * server_cpu / n,
        "turnaround_ms": 1000 * statistics.fmean(turns) if turns else math.nan,
        "turnaround_wave2_ms": 1000 * statistics.fmean(wave2) if wave2 else math.nan,
    }


def summary(rounds: list[dict[str, float]]) -> dict[str, Any]:
    keys = rounds[0].keys()
    medians = {k: statistics.median(r[k] for r in rounds) for k in keys}
    # a figure this server cannot give (turnarounds from the fake server): null, as JSON has no NaN
    out: dict[str, Any] = {k: None if math.isnan(v) else round(v, 3) for k, v in medians.items()}
    out["whole_each"] = [round(r["whole"], 3) for r in rounds]
    out["phase_cpu_each"] = [None if math.isnan(r["phase_cpu_ms"]) else round(r["phase_cpu_ms"], 3) for r in rounds]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3840)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--instances", type=int, default=320, help="snapshot size; samples make up the rest")
    parser.add_argument("--family", default="auto", help="auto (cascade/membership if ready, else toy) or an id")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--old", type=Path, default=None, help="another tree to run side by side (PYTHONPATH)")
    parser.add_argument("--server", choices=("lean", "fake"), default="lean",
                        help="lean: a uvicorn-like Protocol server (default); fake: tests/models/fakeserver.py")
    args = parser.parse_args()

    from bench_runner import pick_family
    from runs_support import write_snapshot

    family = pick_family(args.family)
    if family.id == "toy":
        raise SystemExit("the command runs in a subprocess, which knows no toy family: use a real one")
    tmp = Path(tempfile.mkdtemp(prefix="sembench-bench-cmd-"))
    samples = max(1, args.requests // args.instances)
    n = samples * args.instances
    instances = write_snapshot(tmp / "base.db", family, "bench", args.instances)
    answers = {family.prompt(i).messages[-1]["content"]: family.oracle_response(i) for i in instances}
    (tmp / "answers.json").write_text(json.dumps(answers))
    bodies = [json.dumps({"model": "bench", "messages": family.prompt(i).messages})
              for _ in range(samples) for i in instances]
    (tmp / "bodies.txt").write_text("\n".join(bodies))
    (tmp / "config.toml").write_text("[openai]\nmax_retries = 0\n")
    server = Server(tmp / "answers.json", args.latency, args.server)
    base = f"http://127.0.0.1:{server.port}/v1"
    env = {**os.environ, "OPENAI_BASE_URL": base, "OPENAI_API_KEY": "bench-key",
           "SEMBENCH_CONFIG": str(tmp / "config.toml"), "XDG_CACHE_HOME": str(tmp / "cache")}
    env.pop("PYTHONPATH", None)
    # An installed sembench has its bytecode cached; without this a shell that sets
    # PYTHONDONTWRITEBYTECODE would have every command compile the whole of core/ again.
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def command(tree: Path) -> tuple[list[str], dict[str, str]]:
        db = tmp / f"run-{tree.name}.db"
        argv = [sys.executable, "-m", "core", "--db", str(db), "run", "--snapshot", "bench", "--solver",
                "openai:bench", "--samples", str(samples), "--concurrency", str(args.concurrency), "--format", "json"]
        return argv, {**env, "PYTHONPATH": str(tree)}

    plain = [sys.executable, "-c", PLAIN.format(bench=str(REPO / "tests" / "bench"), bodies=str(tmp / "bodies.txt"),
                                                url=base + "/chat/completions", concurrency=args.concurrency)]
    trees = {"new": REPO, **({"old": args.old.resolve()} if args.old else {})}
    rounds: dict[str, list[dict[str, float]]] = {"plain": [], **{name: [] for name in trees}}
    try:
        for tree in trees.values():  # warm up: the families cache, the page cache
            argv, tree_env = command(tree)
            shutil.copy(tmp / "base.db", argv[4])
            subprocess.run(argv[:-6] + ["--samples", "1", "--concurrency", str(args.concurrency), "--format",
                                        "json"], env=tree_env, capture_output=True, check=True, cwd=tree)
        for _ in range(args.repeat):
            rounds["plain"].append(measure(server, plain, env, n, args.concurrency, args.latency, tmp))
            for name, tree in trees.items():
                argv, tree_env = command(tree)
                shutil.copy(tmp / "base.db", argv[4])  # every round starts from the same database
                for suffix in ("-wal", "-shm"):
                    Path(argv[4] + suffix).unlink(missing_ok=True)
                rounds[name].append(measure(server, argv, tree_env, n, args.concurrency, args.latency, tree))
            print(json.dumps({k: round(v[-1]["whole"], 3) for k, v in rounds.items()}), file=sys.stderr)
    finally:
        server.close()
    ideal = args.concurrency / args.latency
    tenth = max(1, n // 10)
    results: dict[str, Any] = {
        "family": family.id, "requests": n, "concurrency": args.concurrency, "latency_s": args.latency,
        "ideal_rps": ideal, "ideal_first10_rps": round(tenth / (args.latency * math.ceil(tenth / args.concurrency)), 1),
        "repeat": args.repeat, "server": args.server, "cpus": os.cpu_count(),
        **{name: summary(r) for name, r in rounds.items()},
    }
    for name in trees:
        results[name]["vs_plain"] = round(results[name]["whole"] / results["plain"]["whole"], 3)
        results[name]["phase_vs_plain"] = round(results[name]["phase"] / results["plain"]["phase"], 3)
    results["load_avg_1m"] = round(os.getloadavg()[0], 2)
    print(json.dumps(results, indent=2))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
