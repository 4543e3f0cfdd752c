"""Which async HTTP client can keep up with a fast local model server? Prints JSON.

    .venv/bin/python tests/bench/bench_http_clients.py [--requests 3200] [--concurrency 256 64] [--latency 0.2]

The evidence behind the providers' client choice (core/models/pool.py). The fake server
(tests/models/fakeserver.py) runs in its own process and answers /v1/chat/completions after a fixed
latency with a cascade-sized reply (~2 KB request, ~160-character answer), whole or streamed as SSE.
Each client posts the same requests at the same concurrency, and parses what it gets (the JSON body,
or every SSE line's JSON), so the numbers are comparable:

  - plain_asyncio: a hand-written HTTP/1.1 keep-alive client on asyncio streams, the anchor (the
    issue's "plain asyncio HTTP/1.1 client"; it handles only what this server sends);
  - httpx: one httpx.AsyncClient (the default way to use httpx);
  - httpx_shards: httpx clients of 8 connections each (what the providers used before);
  - aiohttp: one aiohttp.ClientSession (C HTTP parser);
  - httpx_over_aiohttp: httpx's API on the httpx-aiohttp transport, when that package is installed;
  - sembench_plain: the providers' own transport for plain http:// (core.models.plainhttp) alone.

ideal_rps = concurrency / latency; `vs_ideal` = rps / ideal_rps; `cpu_ms` = this process's CPU per
request. Rounds alternate between clients so a noisy neighbour hits all alike; medians are reported.
Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

ANSWER = ("The cascade applies 4 programs in order.\n\n```python\ns = s.replace(\"ag\", \"a\")\n"
          "s = s.replace(\"f\", \"fhb\")\ns = s.replace(\"c\", \"d\")\ns = s.replace(\"f\", \"fd\")\n```\n")
PROMPT = "Find the cascade of str.replace programs. " * 48  # ~2 KB, like a cascade prompt

SERVER = """
import sys
sys.path.insert(0, {repo!r})
from tests.models.fakeserver import FakeServer, Reply
srv = FakeServer(lambda req: Reply({answer!r}), latency_s={latency}, chunk_size={chunk}).start()
print(srv.port, flush=True)
sys.stdin.read()
srv.stop()
"""

Client = Callable[[str, list[bytes], int, bool], Awaitable[None]]


def sse_json(lines: list[str]) -> int:
    """Parse the SSE data lines as a provider would; returns the number of events."""
    n = 0
    for line in lines:
        if line.startswith("data: ") and line != "data: [DONE]":
            json.loads(line[6:])
            n += 1
    return n


# -- clients ------------------------------------------------------------------------------------------
async def plain_asyncio(url: str, bodies: list[bytes], concurrency: int, stream: bool) -> None:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    queue = iter(bodies)

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        try:
            for body in queue:
                head = (f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n").encode()
                writer.write(head + body)
                raw = await reader.readuntil(b"\r\n\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in
                           (h.partition(":") for h in raw.decode("latin-1").split("\r\n")[1:] if h)}
                if headers.get("transfer-encoding") == "chunked":
                    pending = b""
                    while True:
                        size = int((await reader.readline()).strip(), 16)
                        if size == 0:
                            await reader.readline()
                            break
                        pending += await reader.readexactly(size + 2)
                        pending = pending[:-2] if pending.endswith(b"\r\n") else pending
                        *done, pending = pending.split(b"\n")
                        sse_json([d.decode() for d in done])
                else:
                    json.loads(await reader.readexactly(int(headers["content-length"])))
        finally:
            writer.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def workers(concurrency: int, bodies: list[bytes], one: Callable[[bytes], Awaitable[None]]) -> None:
    """`concurrency` workers sharing one iterator of bodies (no semaphore with thousands of waiters)."""
    queue = iter(bodies)

    async def worker() -> None:
        for body in queue:
            await one(body)

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def _httpx_with(clients: list[Any], url: str, bodies: list[bytes], concurrency: int, stream: bool) -> None:
    busy = [0] * len(clients)
    headers = {"content-type": "application/json"}

    async def one(body: bytes) -> None:
        i = min(range(len(busy)), key=busy.__getitem__)
        busy[i] += 1
        try:
            async with clients[i].stream("POST", url, content=body, headers=headers) as resp:
                if stream:
                    sse_json([line async for line in resp.aiter_lines()])
                else:
                    json.loads(await resp.aread())
        finally:
            busy[i] -= 1

    try:
        await workers(concurrency, bodies, one)
    finally:
        for client in clients:
            await client.aclose()


async def httpx_one(url: str, bodies: list[bytes], concurrency: int, stream: bool) -> None:
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    await _httpx_with([httpx.AsyncClient(limits=limits, timeout=60)], url, bodies, concurrency, stream)


async def httpx_shards(url: str, bodies: list[bytes], concurrency: int, stream: bool) -> None:
    import httpx

    shards = max(1, -(-concurrency // 8))
    per = -(-concurrency // shards)
    limits = httpx.Limits(max_connections=per, max_keepalive_connections=per)
    clients = [httpx.AsyncClient(limits=limits, timeout=60) for _ in range(shards)]
    await _httpx_with(clients, url, bodies, concurrency, stream)


async def httpx_over_aiohttp(url: str, bodies: list[bytes], concurrency: int, stream: bool) -> None:
    import aiohttp
    import httpx
    from httpx_aiohttp import AiohttpTransport

    transport = AiohttpTransport(client=lambda: aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=concurrency)))
    await _httpx_with([httpx.AsyncClient(transport=transport, timeout=60)], url, bodies, concurrency, stream)



async def aiohttp_one(url: str, bodies: list[bytes], concurrency: int, stream: bool) -> None:
    import aiohttp

    headers = {"content-type": "application/json"}
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar()) as session:

        async def one(body: bytes) -> None:
            async with session.post(url, data=body, headers=headers) as resp:
                if stream:
                    lines = []
                    async for raw in resp.content:
                        lines.append(raw.decode().rstrip("\r\n"))
                    sse_json(lines)
                else:
                    json.loads(await resp.read())

        await workers(concurrency, bodies, one)


async def sembench_plain(url: str, bodies: list[bytes], concurrency: int, stream: bool) -> None:
    """The providers' own plain-HTTP transport (core.models.plainhttp) alone, read as aiohttp_one reads."""
    from core.models.config import Endpoint
    from core.models.plainhttp import PlainPool

    headers = {"Content-Type": "application/json"}
    pool = PlainPool(Endpoint(kind="openai", base_url=url), "bench")

    async def one(body: bytes) -> None:
        async with pool.post(url, body, headers) as resp:
            if stream:
                pending = b""
                async for chunk in resp.content.iter_any():
                    *done, pending = (pending + chunk).split(b"\n")
                    sse_json([d.decode() for d in done])
            else:
                json.loads(await resp.read())

    try:
        await workers(concurrency, bodies, one)
    finally:
        await pool.aclose()


CLIENTS: dict[str, Client] = {
    "plain_asyncio": plain_asyncio, "httpx": httpx_one, "httpx_shards": httpx_shards, "aiohttp": aiohttp_one,
    "httpx_over_aiohttp": httpx_over_aiohttp, "sembench_plain": sembench_plain,
}


def available(name: str) -> bool:
    module = {"aiohttp": "aiohttp", "httpx_over_aiohttp": "httpx_aiohttp"}.get(name)
    if module is None:
        return True
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3200)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[256, 64])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--chunk", type=int, default=32, help="characters per streamed event")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clients", nargs="+", default=list(CLIENTS))
    parser.add_argument("--modes", nargs="+", default=["whole", "stream"])
    args = parser.parse_args()
    clients = [c for c in args.clients if available(c)]
    code = SERVER.format(repo=str(REPO), answer=ANSWER, latency=args.latency, chunk=args.chunk)
    server = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    results: dict[str, Any] = {"requests": args.requests, "latency_s": args.latency, "chunk_chars": args.chunk,
                               "repeat": args.repeat, "cpus": os.cpu_count()}
    try:
        port = int(server.stdout.readline())  # type: ignore[union-attr]
        url = f"http://127.0.0.1:{port}/v1/chat/completions"
        for concurrency in args.concurrency:
            ideal = concurrency / args.latency
            for mode in args.modes:
                stream = mode == "stream"
                body = {"model": "bench", "messages": [{"role": "user", "content": PROMPT}]}
                if stream:
                    body["stream"] = True
                bodies = [json.dumps(body).encode()] * args.requests
                times: dict[str, list[tuple[float, float]]] = {c: [] for c in clients}
                # One httpx client at hundreds in flight runs at ~30 rps: an eighth of the requests
                # is plenty to measure it (rates are per request either way).
                count = {c: max(concurrency * 2, args.requests // 8) if c == "httpx" else args.requests
                         for c in clients}
                for _ in range(args.repeat):
                    for name in clients:
                        wall, cpu = time.perf_counter(), time.process_time()
                        asyncio.run(CLIENTS[name](url, bodies[: count[name]], concurrency, stream))
                        times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
                row: dict[str, Any] = {"ideal_rps": ideal}
                for name in clients:
                    wall = statistics.median(t for t, _ in times[name])
                    cpu = statistics.median(c for _, c in times[name])
                    n = count[name]
                    row[name] = {"requests": n, "rps": round(n / wall, 1), "vs_ideal": round(n / wall / ideal, 3),
                                 "cpu_ms": round(cpu / n * 1000, 3)}
                anchor = row.get("plain_asyncio", {}).get("rps")
                if anchor:
                    for name in clients:
                        row[name]["vs_plain"] = round(row[name]["rps"] / anchor, 3)
                results[f"c{concurrency}_{mode}"] = row
                print(json.dumps({f"c{concurrency}_{mode}": row}), file=sys.stderr)
        results["load_avg_1m"] = round(os.getloadavg()[0], 2)
        print(json.dumps(results, indent=2))
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(10)


if __name__ == "__main__":
    main()
