"""Runner throughput against a local model server that answers after a fixed latency; prints JSON.

    .venv/bin/python tests/bench/bench_runner.py [--concurrency 256 64] [--modes whole stream]
                                                 [--seconds 6] [--latency 0.2] [--repeat 3]

The fake server runs in its own process (a model server is never in the client's process), answering
every prompt with the instance's oracle response so verification does real work (streamed replies
come as SSE events of --chunk characters). For each concurrency and mode, measured side by side in one
run, alternating so that a noisy neighbour hits both alike:
  - anchor: a plain asyncio HTTP/1.1 client (tests/bench/bench_http_clients.py), the same requests at
    the same concurrency, parsing the JSON body or every SSE event and nothing else;
  - runner: `sembench run` end to end in this process (whole replies: through the CLI command itself,
    argument parsing and the progress observer included; streamed replies: run_sync(stream=True) with
    the same observer): prompt, request, extract, verify, the attempt committed by the writer thread,
    the heartbeat.
ideal_rps = concurrency / latency; `ratio` = runner rps / ideal_rps (targets: >= 0.8 at 256, >= 0.9 at
64); `cpu_ms` = this process's CPU (every thread: loop, writer, verification) per request (target
<= 0.6). `calibration_ms`: a fixed pure-Python workload's CPU time on this machine, to compare runs
made on different virtual machines of the same kind. Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "runs"))
sys.path.insert(0, str(REPO / "tests" / "bench"))

SERVER = """
import json, sys
sys.path.insert(0, {repo!r})
from tests.models.fakeserver import FakeServer, Reply
answers = json.load(open({answers!r}))
def reply(req):
    last = req.messages[-1]["content"] if req.messages else ""
    return Reply(text=answers.get(last, "no idea"))
srv = FakeServer(reply, latency_s={latency}, chunk_size={chunk}).start()
print(srv.port, flush=True)
sys.stdin.read()
srv.stop()
"""


def pick_family(name: str | None) -> Any:
    import runs_support  # the toy family and the real-family probe

    from core.family import _REGISTRY

    if name in (None, "auto"):
        family = runs_support.real_family()
        if family is not None:
            return family
        name = "toy"
    if name == "toy":
        _REGISTRY["toy"] = runs_support.ToyFamily()
    from core.family import get_family

    return get_family(name)


def cli_run(argv: list[str]) -> dict[str, Any]:
    """`sembench ARGV` in this process, exactly as the console script runs it; its JSON summary."""
    from core.cli import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            cli.main(argv, prog_name="sembench", standalone_mode=False)
        except SystemExit as exc:  # ctx.exit(130) on an interruption
            raise RuntimeError(f"sembench exited {exc.code}") from None
    return json.loads(out.getvalue().strip().splitlines()[-1])


def calibration_ms(repeat: int = 5) -> float:
    """CPU time of a fixed pure-Python workload (JSON round trips of a reply-sized object and dict
    work), the least of `repeat`. Per-request CPU figures scale with the machine: the anchor's own
    CPU per request, the same code, measured 0.10-0.12 ms on one VM of this kind and 0.03-0.04 ms on
    another, so figures from two machines compare only through a figure like this one."""
    reply = {"id": "c", "choices": [{"index": 0, "message": {"role": "assistant", "content": "x" * 400},
                                     "finish_reason": "stop"}], "usage": {"prompt_tokens": 9}}
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for i in range(20_000):
            data = json.loads(json.dumps(reply))
            data["choices"][0]["index"] = i
            {k: v for k, v in data.items() if k != "usage"}
        best = min(best, time.process_time() - start)
    return round(best * 1000, 1)


def _cpu_seconds(pid: int) -> float | None:
    """user+system CPU of a process so far (Linux /proc), to see whether the server saturates."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[256, 64])
    parser.add_argument("--modes", nargs="+", default=["whole", "stream"], choices=["whole", "stream"])
    # 6 s at the ideal rate per round: long enough that the fixed costs every run pays (start-up, the
    # first 200 ms with nothing back, the last partial wave) stay a few percent.
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--chunk", type=int, default=16, help="characters per streamed event")
    parser.add_argument("--family", default="auto", help="auto (cascade/membership if ready, else toy) or an id")
    parser.add_argument("--instances", type=int, default=320, help="snapshot size; samples make up the rest")
    parser.add_argument("--repeat", type=int, default=3, help="alternating rounds; medians are reported")
    args = parser.parse_args()

    from bench_http_clients import plain_asyncio
    from runs_support import write_snapshot

    from core.cli_runs import RunProgress
    from core.runner import RunConfig, run_sync
    from core.store import Workspace

    family = pick_family(args.family)
    tmp = Path(tempfile.mkdtemp(prefix="sembench-bench-"))
    instances = write_snapshot(tmp / "log.db", family, "bench", args.instances)
    answers = {family.prompt(i).messages[-1]["content"]: family.oracle_response(i) for i in instances}
    (tmp / "answers.json").write_text(json.dumps(answers))
    code = SERVER.format(repo=str(REPO), answers=str(tmp / "answers.json"), latency=args.latency, chunk=args.chunk)
    server = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    results: dict[str, Any] = {"family": family.id, "latency_s": args.latency, "chunk_chars": args.chunk,
                               "repeat": args.repeat, "cpus": os.cpu_count(), "calibration_ms": calibration_ms()}
    try:
        port = int(server.stdout.readline())  # type: ignore[union-attr]
        base = f"http://127.0.0.1:{port}/v1"
        os.environ.update({"OPENAI_BASE_URL": base, "OPENAI_API_KEY": "bench-key", "SEMBENCH_CONFIG": str(tmp / "none.toml")})
        (tmp / "none.toml").write_text("[openai]\nmax_retries = 0\n")
        ws = Workspace(tmp / "log.db", snapshots_path=tmp / "absent.db")
        for concurrency in args.concurrency:
            ideal = concurrency / args.latency
            samples = max(1, round(ideal * args.seconds / len(instances)))
            n = samples * len(instances)
            for mode in args.modes:
                stream = mode == "stream"
                extra = {"stream": True, "stream_options": {"include_usage": True}} if stream else {}
                bodies = [json.dumps({"model": "bench", "messages": family.prompt(i).messages, **extra}).encode()
                          for _ in range(samples) for i in instances]
                anchor: list[tuple[float, float]] = []
                runner: list[tuple[float, float, str]] = []
                for _ in range(args.repeat):
                    wall, cpu = time.perf_counter(), time.process_time()
                    asyncio.run(plain_asyncio(base + "/chat/completions", bodies, concurrency, stream))
                    anchor.append((time.perf_counter() - wall, time.process_time() - cpu))
                    wall, cpu = time.perf_counter(), time.process_time()
                    if stream:
                        config = RunConfig(snapshot="bench", solver="openai:bench", samples=samples,
                                           concurrency=concurrency)
                        run_id = run_sync(ws, config, observer=RunProgress(f"stream c={concurrency}"),
                                          stream=True).run_id
                    else:
                        run_id = cli_run(["--db", str(tmp / "log.db"), "run", "--snapshot", "bench", "--solver",
                                          "openai:bench", "--samples", str(samples), "--concurrency",
                                          str(concurrency), "--format", "json"])["run"]
                    runner.append((time.perf_counter() - wall, time.process_time() - cpu, run_id))
                seconds, cpu, run_id = sorted(runner)[len(runner) // 2]
                stored = ws.log.db.execute(
                    "select count(*), sum(correct), sum(error is not null), avg(elapsed_s) from attempts "
                    "where run_id = ?", [run_id]).fetchone()
                anchor_s = statistics.median(t for t, _ in anchor)
                rps, anchor_rps = n / seconds, n / anchor_s
                row = {
                    "requests": n, "ideal_rps": ideal, "rps": round(rps, 1), "ratio": round(rps / ideal, 3),
                    "ratio_each": [round(n / s / ideal, 3) for s, _c, _r in runner],
                    "anchor_rps": round(anchor_rps, 1), "anchor_ratio": round(anchor_rps / ideal, 3),
                    "vs_anchor": round(rps / anchor_rps, 3), "cpu_ms": round(cpu / n * 1000, 3),
                    "anchor_cpu_ms": round(statistics.median(c for _, c in anchor) / n * 1000, 3),
                    "stored": stored[0], "correct": stored[1], "errors": stored[2],
                    "mean_request_s": round(stored[3], 3),
                }
                results[f"c{concurrency}_{mode}"] = row
                print(f"c={concurrency} {mode}: ratio {row['ratio']} (anchor {row['anchor_ratio']}), "
                      f"cpu {row['cpu_ms']} ms/request", file=sys.stderr)
        results["server_cpu_s"] = _cpu_seconds(server.pid)
        results["load_avg_1m"] = round(os.getloadavg()[0], 2)
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(10)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
