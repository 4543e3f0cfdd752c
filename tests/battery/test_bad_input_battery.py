"""The bad-input battery ("the 124-case bad-input battery stays at 0 tracebacks"), kept in the
repository: every case runs the real CLI (`python -m core ...`) as a subprocess with a time-out and checks
the charter's rule for bad input (DESIGN.md, "CLI" and "Rules that hold everywhere"):

- the documented exit code (2 for user error; 0 where the input is only odd: garbage model output is a
  verdict, a dead endpoint under `solve` is a recorded error);
- never a traceback, on stdout or stderr;
- a user error is ONE line on stderr starting with `error:` (a few verbs list what they skipped, or
  their progress, above it: those cases say so);
- no hang (each case has a time-out and a 3 GiB address-space limit);
- nothing already recorded is lost: a case run against a log database with a snapshot, a run, its
  attempts and a note still finds every row afterwards.

The cases are one table (`CASES`, ids readable: `category/what`); each builds its files in its own
temporary directory, so they run in any order and in parallel (`-n 2`). Servers are real HTTP servers on
127.0.0.1 (tests.models.fakeserver, and a raw socket for a port with nothing listening). No case needs
GHC, javac or Frama-C: every one fails, or is answered, before a tool would run.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from core.family import get_family
from tests.models.fakeserver import FakeServer, Fault, Reply

REPO = Path(__file__).resolve().parents[2]
FAMILIES = ("cascade", "membership", "typeinf", "imports", "specs")
TIMEOUT_S = 120  # a hang is a failure; the slowest case takes a few seconds
TABLES = ("snapshots", "instances", "runs", "attempts", "notes")


# ---- shared material (built once per test process) ------------------------------------------------------
@pytest.fixture(scope="session")
def material(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two generated instances per family, and a log database holding a snapshot `s` (cascade), one finished
    oracle run over it (its attempts) and a note: the rows a bad command must never lose."""
    root = tmp_path_factory.mktemp("battery-material")
    for family_id in FAMILIES:
        fam = get_family(family_id)
        preset = sorted(fam.presets())[0]
        lines = [json.dumps(inst.to_json_dict()) for inst in fam.generate(fam.resolve_params(preset), 0, 2)]
        (root / f"{family_id}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = root / "seeded.db"
    for args in (["snapshot", "import", str(root / "cascade.jsonl"), "--name", "s", "--family", "cascade"],
                 ["run", "--snapshot", "s", "--solver", "oracle", "--samples", "2"],
                 ["notes", "add", "--snapshot", "s", "--id", _first_id(root / "cascade.jsonl"), "--tag", "kept",
                  "a note"]):
        proc = subprocess.run(_argv(args, db), env=_env(root), capture_output=True, timeout=TIMEOUT_S)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return root


def _first_id(path: Path) -> str:
    return json.loads(path.read_text(encoding="utf-8").splitlines()[0])["id"]


def _argv(args: list[str | bytes], db: Path | None = None) -> list[str | bytes]:
    return [sys.executable, "-m", "core", *(["--db", str(db)] if db is not None else []), *args]


def _env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SEMBENCH_", "OPENAI_", "ANTHROPIC_", "OLLAMA_"))}
    env.update({"PYTHONPATH": str(REPO), "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "cfg"),
                "XDG_STATE_HOME": str(home / "state"), "XDG_CACHE_HOME": str(home / "cache"),
                "NO_COLOR": "1", "COLUMNS": "200"})
    env.update(extra or {})
    return env


MEMORY_LIMIT = 3 << 30  # a case that reads /dev/zero must fail, not take the machine with it
# The limit is set by prlimit(1) (util-linux), which then execs the CLI in the same process. A preexec_fn
# would do the same, but makes subprocess fork the whole test process (its page tables: ~7 ms of CPU and
# ~50 ms of wall time a case on the 2-core VM) where it otherwise uses vfork (docs/testing.md).
PRLIMIT = shutil.which("prlimit")


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _limited(argv: list[str | bytes]) -> tuple[list[str | bytes], Callable[[], None] | None]:
    """argv run under the memory limit, and the preexec_fn that sets it where prlimit(1) is missing."""
    if PRLIMIT is None:
        return argv, _limit_memory
    return [PRLIMIT, f"--as={MEMORY_LIMIT}", "--", *argv], None


# ---- what a case sees -------------------------------------------------------------------------------------
@dataclass
class Bench:
    """One case's workspace: its directory, the seeded log database (a private copy), files, servers."""

    dir: Path
    material: Path
    env: dict[str, str] = field(default_factory=dict)
    stack: list[FakeServer] = field(default_factory=list)

    @property
    def db(self) -> Path:
        path = self.dir / "log.db"
        if not path.exists():
            shutil.copyfile(self.material / "seeded.db", path)
        return path

    def f(self, name: str | bytes, content: bytes | str = b"") -> str:
        """Write a file (bytes as given, str as UTF-8) and return its path."""
        path = os.path.join(os.fsencode(self.dir), os.fsencode(name))
        with open(path, "wb") as handle:
            handle.write(content.encode("utf-8") if isinstance(content, str) else content)
        return os.fsdecode(path)

    def d(self, name: str) -> Path:
        path = self.dir / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def inst(self, family: str) -> str:
        return str(self.material / f"{family}.jsonl")

    def lines(self, family: str) -> list[dict]:
        return [json.loads(line) for line in Path(self.inst(family)).read_text(encoding="utf-8").splitlines()]

    def ids(self, family: str) -> list[str]:
        return [obj["id"] for obj in self.lines(family)]

    def jsonl(self, name: str, rows: list[object]) -> str:
        return self.f(name, "".join(json.dumps(row) + "\n" for row in rows))

    def broken(self, family: str, name: str, change: Callable[[dict], object]) -> str:
        """The family's first instance, changed by `change` (which edits it in place or returns a new value)."""
        obj = self.lines(family)[0]
        out = change(obj)
        return self.jsonl(name, [obj if out is None else out])

    def answers(self, family: str, response: object) -> str:
        return self.jsonl(f"{family}-answers.jsonl", [{"id": iid, "response": response} for iid in self.ids(family)])

    def config(self, text: str | bytes) -> None:
        self.env["SEMBENCH_CONFIG"] = self.f("config.toml", text)

    def server(self, fault: Fault | None = None, reply: Reply | None = None, timeout_s: float = 20) -> None:
        """A real OpenAI-compatible server on 127.0.0.1 answering every request with `fault` (or `reply`)."""
        srv = FakeServer().start()
        self.stack.append(srv)
        if reply is not None:
            srv.reply = lambda request: reply
        if fault is not None:
            srv.fail_next(10**6, fault)
        self._openai(srv.base_url("openai"), timeout_s)

    def dead_port(self) -> None:
        """A port with nothing listening (bound, then closed: connections are refused)."""
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        self._openai(f"http://127.0.0.1:{port}/v1", 20)

    def _openai(self, base_url: str, timeout_s: float) -> None:
        self.env.update({"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-battery-test-key"})
        self.config(f"[openai]\nmax_retries = 1\nbackoff_base_s = 0.001\nbackoff_cap_s = 0.002\n"
                    f"retry_after_cap_s = 0.002\ntimeout_s = {timeout_s}\nconnect_timeout_s = 2\n"
                    f"request_deadline_s = 10\n")


@dataclass(frozen=True)
class Case:
    id: str
    argv: Callable[[Bench], list]  # the CLI's arguments (str, or bytes for non-UTF-8 ones)
    code: int = 2
    says: str = ""  # a fragment of the error line (or of stdout when code is 0)
    db: bool = False  # run with --db on the seeded log database and check that its rows are all kept
    preamble: bool = False  # lines may come before the error line (skipped entries, run progress)
    check: Callable[[Bench, subprocess.CompletedProcess], None] | None = None
    stdout: str | None = None  # a file to write standard output to (/dev/full), else a pipe


CASES: list[Case] = []


def case(id: str, argv: Callable[[Bench], list], **kw: object) -> None:
    CASES.append(Case(id, argv, **kw))  # type: ignore[arg-type]


# ---- running a case ---------------------------------------------------------------------------------------
def _counts(db: Path) -> dict[str, int] | None:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            names = {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}
            return {t: conn.execute(f"select count(*) from {t}").fetchone()[0] for t in TABLES if t in names}
    except sqlite3.Error:
        return None


@pytest.fixture
def bench(tmp_path: Path, material: Path) -> Iterator[Bench]:
    b = Bench(dir=tmp_path, material=material)
    try:
        yield b
    finally:
        for srv in b.stack:
            srv.stop()


# =========================================================================================================
# The table. Categories: jsonl, answers, garbage (model output), db, endpoint, numbers, unknown, folder,
# config, flags, args (non-UTF-8 arguments).
# =========================================================================================================
P, V, S, T = "prompt", "verify", "solve", "trace"


def _prompt(path_of: Callable[[Bench], str], family: str = "cascade", verb: str = P) -> Callable[[Bench], list]:
    if verb == V:
        return lambda b: [V, family, "--instances", path_of(b), "--answers", b.answers(family, "x")]
    if verb == S:
        return lambda b: [S, family, "--instances", path_of(b), "--solver", "baseline"]
    if verb == T:
        return lambda b: [T, family, "--instances", path_of(b), "--id", "any"]
    return lambda b: [P, family, "--instances", path_of(b)]


# ---- malformed instance JSONL ---------------------------------------------------------------------------
case("jsonl/truncated-line", _prompt(lambda b: b.f("t.jsonl", '{"id": "x", "inputs": ["a"')), says="malformed JSON")
case("jsonl/truncated-after-good-line", _prompt(
    lambda b: b.f("t.jsonl", Path(b.inst("membership")).read_text()[:-40]), "membership"), says=":2:")
case("jsonl/truncated-verify", _prompt(lambda b: b.f("t.jsonl", '{"id": "x",'), "typeinf", V), says="malformed JSON")
case("jsonl/truncated-solve", _prompt(lambda b: b.f("t.jsonl", '{"i'), "imports", S), says="malformed JSON")
case("jsonl/truncated-trace", _prompt(lambda b: b.f("t.jsonl", '{"id": "x", "code": "int f('), "specs", T),
     says="malformed JSON")
case("jsonl/wrong-type-inputs", _prompt(lambda b: b.broken("cascade", "w.jsonl", lambda o: o.update(inputs="ab"))),
     says="inputs")
case("jsonl/wrong-type-outputs-numbers", _prompt(lambda b: b.broken(
    "cascade", "w.jsonl", lambda o: o.update(outputs=[1, 2, 3, 4, 5]))), says="outputs")
case("jsonl/wrong-type-ground-truth", _prompt(lambda b: b.broken(
    "membership", "w.jsonl", lambda o: o.update(ground_truth="yes")), "membership"), says="ground_truth")
case("jsonl/wrong-type-code", _prompt(lambda b: b.broken("typeinf", "w.jsonl", lambda o: o.update(code=42)),
                                      "typeinf"), says="code")
case("jsonl/wrong-type-seed", _prompt(lambda b: b.broken("imports", "w.jsonl", lambda o: o.update(seed="zero")),
                                      "imports"), says="seed")
case("jsonl/wrong-type-tests", _prompt(lambda b: b.broken("specs", "w.jsonl", lambda o: o.update(tests="none")),
                                       "specs"), says="tests")
case("jsonl/missing-outputs", _prompt(lambda b: b.broken("cascade", "m.jsonl", lambda o: o.pop("outputs") and None)),
     says="outputs")
case("jsonl/missing-condition", _prompt(lambda b: b.broken(
    "membership", "m.jsonl", lambda o: o.pop("condition") and None), "membership"), says="condition")
case("jsonl/missing-code-typeinf", _prompt(lambda b: b.broken(
    "typeinf", "m.jsonl", lambda o: o.pop("code") and None), "typeinf"), says="code")
case("jsonl/missing-code-imports", _prompt(lambda b: b.broken(
    "imports", "m.jsonl", lambda o: o.pop("code") and None), "imports"), says="code")
case("jsonl/missing-function-specs", _prompt(lambda b: b.broken(
    "specs", "m.jsonl", lambda o: o.pop("function") and None), "specs"), says="function")
case("jsonl/extra-nesting-deep", _prompt(lambda b: b.f("n.jsonl", "[" * 5000 + "]" * 5000 + "\n")),
     says="nested")
case("jsonl/extra-nesting-in-field", _prompt(lambda b: b.broken(
    "cascade", "n.jsonl", lambda o: o["meta"].update(deep=json.loads("[" * 300 + "]" * 300)))), says="nested")
case("jsonl/wrapped-in-a-list", _prompt(lambda b: b.jsonl("l.jsonl", [b.lines("cascade")])),
     says="expected a JSON object")
case("jsonl/scalar-line", _prompt(lambda b: b.f("s.jsonl", "42\n")), says="expected a JSON object")
case("jsonl/bom", _prompt(lambda b: b.f("bom.jsonl", b"\xef\xbb\xbf" + Path(b.inst("cascade")).read_bytes())))
case("jsonl/crlf", _prompt(lambda b: b.f("crlf.jsonl", Path(b.inst("membership")).read_bytes().replace(
    b"\n", b"\r\n")), "membership"), code=0, says='"messages"')
case("jsonl/empty-file", _prompt(lambda b: b.f("e.jsonl", "")), says="no instances")
case("jsonl/blank-lines-only", _prompt(lambda b: b.f("e.jsonl", "\n \r\n\t\n"), "specs"), says="no instances")
case("jsonl/empty-file-verify", _prompt(lambda b: b.f("e.jsonl", ""), "membership", V), says="no instances")
case("jsonl/huge-single-line", _prompt(lambda b: b.f("h.jsonl", b'{"id": "' + b"x" * (32 << 20))),
     says="malformed JSON")
case("jsonl/huge-integer", _prompt(lambda b: b.f("i.jsonl", '{"id": ' + "9" * 5000 + "}\n")), says="digits")
case("jsonl/nul-bytes", _prompt(lambda b: b.f("z.jsonl", b"\x00" * 100 + b"\n")), says="malformed JSON")
case("jsonl/latin1", _prompt(lambda b: b.f("l1.jsonl", '{"id": "\u00e9t\u00e9"}\n'.encode("latin-1"))),
     says="UTF-8")
case("jsonl/utf16", _prompt(lambda b: b.f("u16.jsonl", Path(b.inst("cascade")).read_text().encode("utf-16")),
                            "cascade"), says="UTF-8")
case("jsonl/wrong-family", _prompt(lambda b: b.inst("membership"), "cascade"), says="family")
case("jsonl/nan-seed", _prompt(lambda b: b.broken("cascade", "nan.jsonl", lambda o: o.update(seed=float("nan")))),
     says="seed")
case("jsonl/infinite-seed", _prompt(lambda b: b.f("inf.jsonl", Path(b.inst("membership")).read_text().replace(
    '"seed":0', '"seed":1e309').replace('"seed": 0', '"seed": 1e309')), "membership"), says="seed")
case("jsonl/lone-surrogate-id", _prompt(lambda b: b.broken(
    "cascade", "sur.jsonl", lambda o: o.update(id="\ud800"))), code=0, says='"messages"')
case("jsonl/directory", _prompt(lambda b: str(b.d("adir"))), says="directory")
case("jsonl/missing-file", _prompt(lambda b: str(b.dir / "absent.jsonl")), says="absent.jsonl")
case("jsonl/dev-zero", _prompt(lambda _b: "/dev/zero"), says="/dev/zero")
case("jsonl/dev-zero-verify", _prompt(lambda _b: "/dev/zero", "specs", V), says="/dev/zero")

# ---- answers JSONL (verify) ------------------------------------------------------------------------------


def _verify(family: str, answers: Callable[[Bench], str]) -> Callable[[Bench], list]:
    return lambda b: [V, family, "--instances", b.inst(family), "--answers", answers(b)]


case("answers/truncated", _verify("cascade", lambda b: b.f("a.jsonl", '{"id": "x", "resp')), says="malformed JSON")
case("answers/response-a-number", _verify("membership", lambda b: b.answers("membership", 1)), says="response")
case("answers/response-null", _verify("typeinf", lambda b: b.answers("typeinf", None)), says="response")
case("answers/response-an-object", _verify("imports", lambda b: b.answers("imports", {"imports": []})),
     says="response")
case("answers/missing-id", _verify("specs", lambda b: b.jsonl("a.jsonl", [{"response": "x"}])), says="'id'")
case("answers/missing-response", _verify("cascade", lambda b: b.jsonl("a.jsonl", [{"id": b.ids("cascade")[0]}])),
     says="'response'")
case("answers/unknown-id", _verify("membership", lambda b: b.jsonl("a.jsonl", [{"id": "nope", "response": "x"}])),
     says="nope")
case("answers/a-list", _verify("typeinf", lambda b: b.f("a.jsonl", '["id", "response"]\n')),
     says="expected a JSON object")
case("answers/empty-file", _verify("imports", lambda b: b.f("a.jsonl", "")), says="no answers")
case("answers/non-utf8", _verify("specs", lambda b: b.f("a.jsonl", b'{"id": "\xff\xfe", "response": ""}\n')),
     says="UTF-8")
case("answers/directory", _verify("cascade", lambda b: str(b.d("answers"))), says="directory")

# ---- garbage model output, per family: a verdict (exit 0), never a crash -----------------------------------
GARBAGE: dict[str, str] = {
    "empty": "",
    "binary": bytes(range(256)).decode("latin-1") * 64,
    "brackets-1MB": "[" * 500_000 + "]" * 500_000,
    "nul-bytes": "\x00" * 10_000,
    "only-a-fence": "```\n```",
    "prose-only": "I am not sure what the answer is, but I think it has something to do with types. " * 50,
}


def _garbage_is_wrong(family: str) -> Callable[[Bench, subprocess.CompletedProcess], None]:
    def check(b: Bench, _proc: subprocess.CompletedProcess) -> None:
        verdicts = [json.loads(line) for line in (b.dir / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(verdicts) == len(b.ids(family))
        assert not any(v["correct"] for v in verdicts), verdicts
    return check


for _family in FAMILIES:
    for _kind, _text in GARBAGE.items():
        case(f"garbage/{_family}-{_kind}",
             lambda b, f=_family, t=_text: [V, f, "--instances", b.inst(f), "--answers", b.answers(f, t),
                                            "--out", str(b.dir / "verdicts.jsonl"), "--format", "json"],
             code=0, says='"family"', check=_garbage_is_wrong(_family))
case("garbage/trace-cascade-brackets", lambda b: [T, "cascade", "--instances", b.inst("cascade"), "--id",
                                                  b.ids("cascade")[0], "--answer", "[" * 100_000], code=0)
case("garbage/trace-membership-binary", lambda b: [T, "membership", "--instances", b.inst("membership"), "--id",
                                                   b.ids("membership")[0], "--answer", "\x01\x7f\u00ff" * 1000],
     code=0)

# specs traces its second instance: trace proves the reference first (WP, in the case's own log), and the
# first one's (abs_array) is ~5 s of provers where the second's (abs_value) is ~1 s (docs/testing.md).
for _family in ("typeinf", "imports", "specs"):
    case(f"garbage/trace-{_family}-parens",
         lambda b, f=_family: [T, f, "--instances", b.inst(f), "--id", b.ids(f)[1 if f == "specs" else 0],
                               "--answer", "(" * 50_000], code=0)

# ---- the log database ------------------------------------------------------------------------------------


def _on_db(make: Callable[[Bench], str], *args: str) -> Callable[[Bench], list]:
    return lambda b: ["--db", make(b), *args]


def _truncated(size: int) -> Callable[[Bench], str]:
    def make(b: Bench) -> str:
        data = Path(b.material / "seeded.db").read_bytes()
        return b.f("trunc.db", data[: size if size > 0 else len(data) // 2])
    return make


def _newer(b: Bench) -> str:
    path = b.dir / "newer.db"
    shutil.copyfile(b.material / "seeded.db", path)
    with sqlite3.connect(path) as conn:
        conn.execute("pragma user_version = 999")
    return str(path)


def _corrupt_middle(b: Bench) -> str:
    data = bytearray(Path(b.material / "seeded.db").read_bytes())
    data[4096:] = b"\xa5" * (len(data) - 4096)  # every page after the first (the schema's)
    return b.f("corrupt.db", bytes(data))


def _immutable(b: Bench) -> str:
    """A read-only log database. The tests run as root, for whom file modes do not count: the file is made
    immutable (chattr +i), which binds root too; where that is refused, a read-only mode is all there is."""
    path = b.dir / "ro.db"
    shutil.copyfile(b.material / "seeded.db", path)
    path.chmod(0o444)
    subprocess.run(["chattr", "+i", str(path)], capture_output=True)
    return str(path)


case("db/truncated-half", _on_db(_truncated(0), "runs"), says="trunc.db")
case("db/truncated-100-bytes", _on_db(_truncated(100), "snapshot", "list"), says="trunc.db")
case("db/truncated-report", _on_db(_truncated(0), "report", "any"), says="trunc.db")
case("db/text-file-named-db", _on_db(lambda b: b.f("notes.db", "these are my notes, not a database\n"), "runs"),
     says="notes.db")
case("db/text-file-run", _on_db(lambda b: b.f("notes.db", "hello\n" * 100),
                                "run", "--snapshot", "pag-demo", "--solver", "oracle", "--limit", "1"),
     says="notes.db")
case("db/newer-schema", _on_db(_newer, "runs"), says="newer.db")
case("db/newer-schema-notes", _on_db(_newer, "notes", "list"), says="newer.db")
case("db/corrupt-pages", _on_db(_corrupt_middle, "runs"), says="corrupt.db")
case("db/read-only-run", _on_db(_immutable, "run", "--snapshot", "pag-demo", "--solver", "oracle", "--limit", "1"),
     says="ro.db", preamble=True)
case("db/fifo", _on_db(lambda b: (os.mkfifo(b.dir / "db.fifo"), str(b.dir / "db.fifo"))[1], "runs"), says="db.fifo")
case("db/dev-zero", _on_db(lambda _b: "/dev/zero", "snapshot", "list"), says="/dev/zero")
case("db/directory", _on_db(lambda b: str(b.d("db-dir")), "runs"), says="db-dir")
case("db/below-a-file", _on_db(lambda b: b.f("plain.txt", "x") + "/log.db", "runs"), says="plain.txt")
case("db/dev-null", _on_db(lambda _b: "/dev/null", "runs"), says="/dev/null")
case("db/kept-unknown-resume", lambda b: ["run", "--resume", "nope"], db=True, says="nope")
case("db/kept-bad-answers", lambda b: ["import-answers", "--snapshot", "s", "--answers",
                                       b.f("a.jsonl", '{"id": 1'), "--solver-name", "x"], db=True,
     says="malformed JSON")
case("db/kept-unknown-answer-id", lambda b: ["import-answers", "--snapshot", "s", "--answers",
                                             b.jsonl("a.jsonl", [{"id": "nope", "response": "x"}]), "--solver-name",
                                             "x"], db=True, says="nope")
# importing again under a taken name replaces the snapshot (documented: its notes are kept); its runs stay readable
case("db/kept-reimport-under-a-taken-name", lambda b: ["snapshot", "import", b.inst("membership"), "--name", "s",
                                                       "--family", "membership"], db=True, code=0,
     check=lambda b, _p: _then_ok(b, "report", _run_id(b)))
case("db/kept-resume-other-samples", lambda b: ["run", "--resume", _run_id(b), "--samples", "5"], db=True,
     says="samples")
case("db/kept-bad-import", lambda b: ["snapshot", "import", b.f("x.jsonl", "{"), "--name", "t", "--family",
                                      "cascade"], db=True, says="malformed JSON")
case("db/kept-import-answers-dev-zero", lambda b: ["import-answers", "--snapshot", "s", "--answers", "/dev/zero",
                                                   "--solver-name", "x"], db=True, says="/dev/zero")
case("db/kept-import-wrong-ground-truth", lambda b: ["snapshot", "import", b.broken(
    "cascade", "gt.jsonl", lambda o: o.update(ground_truth={"cascade": [["z", "q"]]})), "--name", "bg", "--family",
    "cascade"], db=True, preamble=True, says="does not verify")
case("db/kept-notes-unknown-id", lambda b: ["notes", "add", "--snapshot", "s", "--id", "nope", "text"], db=True,
     says="nope")


def _then_ok(b: Bench, *args: str | bytes, db: Path | None = None) -> None:
    """A later command on the same database still works: what the case stored can be read back."""
    proc = subprocess.run(_argv(list(args), db or b.db), env=_env(b.dir, b.env), capture_output=True, timeout=TIMEOUT_S)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")


def _run_id(b: Bench) -> str:
    with sqlite3.connect(f"file:{b.db}?mode=ro", uri=True) as conn:
        return conn.execute("select id from runs").fetchone()[0]


# values damaged inside a sound file (edited by hand, written by another program): one line naming the row
def _damaged(sql: str, *args: str | Callable[[Bench], str]) -> Callable[[Bench], list]:
    def argv(b: Bench) -> list:
        resolved = [a(b) if callable(a) else a for a in args]  # before the damage: _run_id reads the runs
        with sqlite3.connect(b.db) as conn:
            conn.executescript(sql)
        return resolved
    return argv


case("db/damaged-run-options-report", _damaged("update runs set options = '{';", "report", _run_id), db=True,
     says="runs.options")
case("db/damaged-run-options-resume", _damaged("update runs set options = '{';", "run", "--resume", _run_id),
     db=True, says="runs.options")
case("db/damaged-attempt-prompt", _damaged("update attempts set prompt = 'nul';", "export", _run_id), db=True,
     says="attempts.prompt")
case("db/damaged-snapshot-meta", _damaged("update snapshots set meta = '[';", "snapshot", "list"), db=True,
     says="snapshots.meta")
case("db/damaged-snapshot-meta-run", _damaged("update snapshots set meta = '[';", "run", "--snapshot", "s",
                                              "--solver", "oracle"), db=True, says="snapshots.meta")
case("db/damaged-instance-data", _damaged("""update instances set data = '{"id": ';""", "snapshot", "export", "s"),
     db=True, says="instances.data")
case("db/damaged-note-tags", _damaged("update notes set tags = 'kept';", "notes", "list"), db=True,
     says="notes.tags")
case("db/instance-data-wrong-shape", _damaged("""update instances set data = '{"id": 5}';""", "run", "--snapshot",
                                              "s", "--solver", "oracle"), db=True, says="inputs")
case("db/run-of-unknown-family", _damaged("update runs set family = 'zzz';", "report", _run_id), db=True,
     says="zzz")


# ---- dead and broken endpoints ----------------------------------------------------------------------------


def _run_model(setup: Callable[[Bench], None]) -> Callable[[Bench], list]:
    def argv(b: Bench) -> list:
        setup(b)
        return ["run", "--snapshot", "s", "--solver", "openai:m", "--samples", "3", "--no-cache"]
    return argv


def _solve_model(setup: Callable[[Bench], None], family: str = "membership") -> Callable[[Bench], list]:
    def argv(b: Bench) -> list:
        setup(b)
        return [S, family, "--instances", b.inst(family), "--solver", "openai:m"]
    return argv


def _solve_errors(b: Bench, proc: subprocess.CompletedProcess) -> None:
    rows = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(rows) == 2 and all(row.get("error") for row in rows), rows


ENDPOINTS: dict[str, Callable[[Bench], None]] = {
    "nothing-listening": lambda b: b.dead_port(),
    "closes-connection": lambda b: b.server(Fault.drop()),
    "http-500": lambda b: b.server(Fault.http500()),
    "garbage-json": lambda b: b.server(Fault.malformed('{"choices": [{"message": {"content": ')),
    "html": lambda b: b.server(Fault.malformed("<html><body><h1>502 Bad Gateway</h1></body></html>")),
    "no-choices": lambda b: b.server(Fault.missing_fields('{"id": "x", "object": "chat.completion", "choices": []}')),
    "slow-beyond-timeout": lambda b: b.server(Fault.delay(30), timeout_s=0.3),
}
for _name, _setup in ENDPOINTS.items():
    case(f"endpoint/run-{_name}", _run_model(_setup), db=True, preamble=True, says="resume")
    case(f"endpoint/solve-{_name}", _solve_model(_setup), code=0, check=_solve_errors)
case("endpoint/run-huge-reply", _run_model(lambda b: b.server(reply=Reply(text="[" * 1_200_000))), db=True, code=0)
case("endpoint/models-served-dead", lambda b: (b.dead_port(), ["models", "--served"])[1], code=0)
case("endpoint/base-url-not-a-url", lambda b: (b.env.update(OPENAI_BASE_URL="ht!tp://::nope"),
                                               [S, "cascade", "--instances", b.inst("cascade"), "--solver",
                                                "openai:m"])[1], says="OPENAI_BASE_URL")
case("endpoint/solver-without-model", lambda b: [S, "cascade", "--instances", b.inst("cascade"), "--solver",
                                                 "openai:"], says="openai:")

# ---- absurd numbers -------------------------------------------------------------------------------------


def _gen(*extra: str) -> Callable[[Bench], list]:
    return lambda b: ["generate", "cascade", "--seed", "0", "--count", "1", *extra]


def _runflags(*extra: str) -> Callable[[Bench], list]:
    return lambda b: ["run", "--snapshot", "s", "--solver", "oracle", *extra]


for _flag, _value in [("--count", "-1"), ("--count", "1e309"), ("--count", "10000001"), ("--count", "12abc"),
                      ("--count", "nan"), ("--seed", "nan"), ("--seed", str(2**64)), ("--seed", "0x10"),
                      ("--start", "-5"), ("--start", str(10**13))]:
    case(f"numbers/generate{_flag}={_value}", _gen(_flag, _value), says=_flag)
for _param in ("n_examples=-1", "n_examples=1e309", "n_examples=nan", f"n_examples={10**100}",
               "input_len_max=100000", "patience=0x"):
    case(f"numbers/generate-param-{_param[:24]}", _gen("--param", _param), says=_param.split("=")[0])
for _flag, _value in [("--samples", "0"), ("--samples", "-1"), ("--samples", "1001"), ("--samples", "1e3"),
                      ("--concurrency", "0"), ("--concurrency", str(10**9)), ("--limit", "-1"),
                      ("--budget", "0"), ("--budget", "nan"), ("--budget", "inf"), ("--budget", "1e309"),
                      ("--budget", "-1"), ("--budget", "5s"), ("--temperature", "nan"), ("--temperature", "-1"),
                      ("--top-p", "2"), ("--max-tokens", "0"), ("--seed", str(2**63)), ("--workers", "0"),
                      ("--workers", "100000")]:
    case(f"numbers/run{_flag}={_value}", _runflags(_flag, _value), db=True, says=_flag)
case("numbers/run-17-stops", _runflags(*[a for i in range(17) for a in ("--stop", f"s{i}")]), db=True, says="stop")
case("numbers/solve-budget-nan", lambda b: [S, "membership", "--instances", b.inst("membership"), "--solver",
                                            "baseline", "--budget", "nan"], says="--budget")
case("numbers/import-sample-huge", lambda b: ["import-answers", "--snapshot", "s", "--solver-name", "x", "--answers",
                                              b.jsonl("a.jsonl", [{"id": b.ids("cascade")[0], "response": "x",
                                                                   "sample": 10**30}])], db=True, says="sample")
case("numbers/import-sample-negative", lambda b: ["import-answers", "--snapshot", "s", "--solver-name", "x",
                                                  "--answers", b.jsonl("a.jsonl", [{"id": b.ids("cascade")[0],
                                                                                    "response": "x", "sample": -1}])],
     db=True, says="sample")
case("numbers/note-too-long", lambda b: ["notes", "add", "--snapshot", "s", "--id", b.ids("cascade")[0],
                                         "n" * 100_001], db=True, says="100")

# ---- unknown names --------------------------------------------------------------------------------------
for _verb in ("generate", P, V, S, T):
    case(f"unknown/family-{_verb}", lambda b, v=_verb: {
        "generate": ["generate", "nosuch", "--seed", "0"],
        P: [P, "nosuch", "--instances", b.inst("cascade")],
        V: [V, "nosuch", "--instances", b.inst("cascade"), "--answers", b.answers("cascade", "x")],
        S: [S, "nosuch", "--instances", b.inst("cascade"), "--solver", "baseline"],
        T: [T, "nosuch", "--instances", b.inst("cascade"), "--id", "x"]}[v], says="nosuch")
case("unknown/family-import", lambda b: ["snapshot", "import", b.inst("cascade"), "--name", "x", "--family", "nosuch"],
     says="nosuch")
case("unknown/preset", lambda b: ["generate", "specs", "--preset", "nope", "--seed", "0"], says="nope")
case("unknown/param", lambda b: ["generate", "membership", "--param", "zzz=1", "--seed", "0"], says="zzz")
case("unknown/style", lambda b: [P, "typeinf", "--instances", b.inst("typeinf"), "--style", "nope"], says="nope")
case("unknown/solver", lambda b: [S, "imports", "--instances", b.inst("imports"), "--solver", "nosuch"],
     says="nosuch")
case("unknown/provider", lambda b: [S, "cascade", "--instances", b.inst("cascade"), "--solver", "acme:m"],
     says="acme")
case("unknown/snapshot-run", lambda b: ["run", "--snapshot", "nope", "--solver", "oracle"], db=True, says="nope")
case("unknown/snapshot-export", lambda b: ["snapshot", "export", "nope"], db=True, says="nope")
case("unknown/snapshot-notes", lambda b: ["notes", "list", "--snapshot", "nope"], db=True, code=0)
case("unknown/snapshot-import-answers", lambda b: ["import-answers", "--snapshot", "nope", "--answers",
                                                   b.answers("cascade", "x"), "--solver-name", "x"], db=True,
     says="nope")
case("unknown/run-report", lambda b: ["report", "nope"], db=True, says="nope")
case("unknown/run-export", lambda b: ["export", "nope"], db=True, says="nope")
case("unknown/run-compare", lambda b: ["compare", _run_id(b), "nope"], db=True, says="nope")
case("unknown/run-resume", lambda b: ["run", "--resume", "run-nope"], db=True, says="run-nope")
case("unknown/instance-trace", lambda b: [T, "membership", "--instances", b.inst("membership"), "--id", "nope"],
     says="nope")
case("unknown/feature-report", lambda b: ["report", _run_id(b), "--feature", "nope"], db=True, says="nope")
case("unknown/bundled-snapshot-build", lambda b: ["snapshot", "build", "--only", "nope", "--out",
                                                  str(b.dir / "x.db")], says="nope")
case("unknown/verb", lambda b: ["nosuchverb"], says="nosuchverb")

# ---- imported folders -----------------------------------------------------------------------------------


def _import(family: str, make: Callable[[Bench], str | Path]) -> Callable[[Bench], list]:
    return lambda b: ["--db", str(b.dir / "imp.db"), "snapshot", "import", str(make(b)), "--name", "imp", "--family",
                      family]


def _loop(b: Bench) -> Path:
    os.symlink(b.dir / "loop-b", b.dir / "loop-a")
    os.symlink(b.dir / "loop-a", b.dir / "loop-b")
    return b.dir / "loop-a"


def _loop_inside(b: Bench) -> Path:
    root = b.d("with-loop")
    os.symlink(root, root / "self")
    os.symlink(root / "x", root / "x")
    return root


def _deep(b: Bench) -> Path:
    root = b.d("deep")
    os.makedirs(os.path.join(root, *["d"] * 100))
    return root


def _fifo_in(suffix: str) -> Callable[[Bench], Path]:
    def make(b: Bench) -> Path:
        root = b.d("fifo")
        os.mkfifo(root / f"1{suffix}")
        return root
    return make


def _non_utf8_name(suffix: bytes, content: str) -> Callable[[Bench], Path]:
    def make(b: Bench) -> Path:
        root = b.d("names")
        with open(os.path.join(os.fsencode(root), b"\xff\xfe" + suffix), "wb") as handle:
            handle.write(content.encode())
        return root
    return make


def _files(suffix: str, content: str) -> Callable[[Bench], Path]:
    def make(b: Bench) -> Path:
        root = b.d("wrong")
        for i in range(3):
            (root / f"{i}{suffix}").write_text(content, encoding="utf-8")
        return root
    return make


for _family in FAMILIES:
    case(f"folder/empty-{_family}", _import(_family, lambda b: b.d("empty")), says="empty")
case("folder/nonexistent", _import("specs", lambda b: b.dir / "absent"), says="absent")
case("folder/a-text-file", _import("imports", lambda b: b.f("notes.txt", "not a folder\n")), says="notes.txt")
case("folder/symlink-loop", _import("typeinf", _loop), says="loop-a")
case("folder/symlink-loop-inside", _import("imports", _loop_inside), says="with-loop", preamble=True)
case("folder/deep-tree-imports", _import("imports", _deep), says="deep")
case("folder/deep-tree-specs", _import("specs", _deep), says="deep")
case("folder/fifo-inside-imports", _import("imports", _fifo_in(".java")), preamble=True, says="fifo")
case("folder/fifo-inside-typeinf", _import("typeinf", _fifo_in(".hs.md")), preamble=True, says="fifo")
case("folder/non-utf8-name-imports", _import("imports", _non_utf8_name(b".java", "class A { Foo f; }\n")),
     code=0, check=lambda b, _p: _then_ok(b, "snapshot", "export", "imp", db=b.dir / "imp.db"))
case("folder/non-utf8-name-specs", _import("specs", _non_utf8_name(b".c", "int f(int x) { return x; }\n")),
     preamble=True, says="names")
case("folder/non-utf8-folder-name", lambda b: ["snapshot", "import", os.path.join(os.fsencode(b.dir), b"\xff"),
                                               "--name", "imp", "--family", "cascade"], says="no such")
case("folder/java-files-as-specs", _import("specs", _files(".java", "class A {}\n")), says="wrong")
case("folder/c-files-as-typeinf", _import("typeinf", _files(".c", "int main(void) { return 0; }\n")), says="wrong")
case("folder/md-files-as-imports", _import("imports", _files(".md", "# title\n")), says="wrong")
case("folder/jsonl-files-as-cascade", _import("cascade", _files(".jsonl", "{}\n")), says="wrong")
case("folder/dev-zero", _import("membership", lambda _b: "/dev/zero"), says="/dev/zero")

# ---- config files ---------------------------------------------------------------------------------------


def _with_config(text: str | bytes, *args: str) -> Callable[[Bench], list]:
    def argv(b: Bench) -> list:
        b.config(text)
        return list(args) or ["models"]
    return argv


case("config/toml-syntax-error", _with_config("[openai\nbase_url = 'x'\n"), says="config.toml")
case("config/wrong-type-concurrency", _with_config("[openai]\nmax_concurrency = 'lots'\n"), says="max_concurrency")
case("config/wrong-type-timeout", _with_config("[openai]\ntimeout_s = [1, 2]\n"), says="timeout_s")
case("config/timeout-nan", _with_config("[openai]\ntimeout_s = nan\n"), says="timeout_s")
case("config/timeout-negative", _with_config("[openai]\ntimeout_s = -1\n"), says="timeout_s")
case("config/timeout-inf", _with_config("[openai]\nrequest_deadline_s = inf\n"), says="request_deadline_s")
case("config/retries-huge", _with_config("[openai]\nmax_retries = 1000000000000\n"), says="max_retries")
case("config/unknown-key", _with_config("[openai]\nbase_urll = 'http://x'\n"), says="base_urll")
case("config/section-not-a-table", _with_config("openai = 3\n"), says="openai")
case("config/non-utf8", _with_config(b"[openai]\nbase_url = '\xff'\n"), says="config.toml")
case("config/missing-file", lambda b: (b.env.update(SEMBENCH_CONFIG=str(b.dir / "absent.toml")), ["models"])[1],
     says="absent.toml")
case("config/a-directory", lambda b: (b.env.update(SEMBENCH_CONFIG=str(b.d("cfgdir"))), ["models"])[1],
     says="cfgdir")
case("config/bad-in-run", _with_config("[openai]\nmax_concurrency = 0\n", "run", "--snapshot", "s", "--solver",
                                       "openai:m", "--limit", "1"), db=True, says="max_concurrency")

case("config/dev-zero", lambda b: (b.env.update(SEMBENCH_CONFIG="/dev/zero"), ["models"])[1], says="/dev/zero")
case("config/fifo", lambda b: (os.mkfifo(b.dir / "cfg.fifo"), b.env.update(SEMBENCH_CONFIG=str(b.dir / "cfg.fifo")),
                               ["models"])[2], says="FIFO")
case("config/fifo-in-solve", lambda b: (os.mkfifo(b.dir / "cfg.fifo"),
                                        b.env.update(SEMBENCH_CONFIG=str(b.dir / "cfg.fifo")),
                                        [S, "cascade", "--instances", b.inst("cascade"), "--solver", "openai:m"])[2],
     says="FIFO")

case("config/key-control-character", lambda b: (b.env.update(OPENAI_API_KEY="sk-ab\x01cd", OPENAI_BASE_URL="http://127.0.0.1:9/v1"),
                                                 [S, "cascade", "--instances", b.inst("cascade"), "--solver",
                                                  "openai:m"])[1], says="OPENAI_API_KEY")
case("config/db-env-a-directory", lambda b: (b.env.update(SEMBENCH_DB=str(b.d("dbdir"))), ["runs"])[1], says="dbdir")

# ---- flag combinations ----------------------------------------------------------------------------------
case("flags/run-without-snapshot", lambda b: ["run", "--solver", "oracle"], db=True, says="--snapshot")
case("flags/retry-errors-without-resume", lambda b: ["run", "--snapshot", "s", "--solver", "oracle",
                                                     "--retry-errors"], db=True, says="--resume")
case("flags/resume-other-solver", lambda b: ["run", "--resume", _run_id(b), "--solver", "baseline"], db=True,
     says="solver")
case("flags/generate-without-seed", lambda b: ["generate", "cascade"], says="--seed")
case("flags/unknown-flag", lambda b: ["runs", "--nope"], says="--nope")
case("flags/format-xml", lambda b: ["runs", "--format", "xml"], says="xml")
case("flags/db-without-value", lambda b: ["--db"], says="--db")
case("flags/verify-without-answers", lambda b: [V, "cascade", "--instances", b.inst("cascade")], says="--answers")
case("flags/param-without-equals", lambda b: ["generate", "cascade", "--seed", "0", "--param", "n_examples"],
     says="key=value")
case("flags/cluster-and-workers", lambda b: [V, "cascade", "--instances", b.inst("cascade"), "--answers",
                                             b.answers("cascade", "x"), "--cluster", "tcp://127.0.0.1:1",
                                             "--workers", "2"], says="--cluster")
case("flags/report-png-unwritable", lambda b: ["report", _run_id(b), "--png", b.f("f.txt", "x") + "/p.png"],
     db=True, says="p.png")
case("flags/out-below-a-file", lambda b: [P, "cascade", "--instances", b.inst("cascade"), "--out",
                                          b.f("f.txt", "x") + "/o.jsonl"], says="o.jsonl")
case("flags/import-answers-without-solver-name", lambda b: ["import-answers", "--snapshot", "s", "--answers",
                                                            b.answers("cascade", "x")], db=True,
     says="--solver-name")

# ---- non-UTF-8 arguments --------------------------------------------------------------------------------
case("args/family", lambda b: ["generate", b"\xff\xfe", "--seed", "0"], says="unknown family")
case("args/snapshot", lambda b: ["run", "--snapshot", b"s\xff", "--solver", "oracle"], db=True,
     says="unknown snapshot")
case("args/run-id", lambda b: ["report", b"run-\xff"], db=True, says="UTF-8")
case("args/instances-path", lambda b: [P, "cascade", "--instances",
                                       os.path.join(os.fsencode(b.dir), b"\xff.jsonl")], says="jsonl")
case("args/import-name", lambda b: ["snapshot", "import", b.inst("membership"), "--name", b"snap\xff",
                                    "--family", "membership"], db=True, says="UTF-8")
case("args/solver-name", lambda b: ["import-answers", "--snapshot", "s", "--answers", b.answers("cascade", "x"),
                                    "--solver-name", b"me\xff"], db=True, says="UTF-8")
case("args/note-text", lambda b: ["notes", "add", "--snapshot", "s", "--id", b.ids("cascade")[0], b"\xff\xfe"],
     db=True, says="UTF-8")
# a tag is stored as JSON, where the undecodable byte is an escape that reads back as the same tag
case("args/tag", lambda b: ["notes", "add", "--snapshot", "s", "--id", b.ids("cascade")[0], "--tag", b"t\xff"],
     db=True, code=0, check=lambda b, _p: _then_ok(b, "notes", "list", "--format", "json"))
case("args/trace-answer", lambda b: [T, "cascade", "--instances", b.inst("cascade"), "--id", b.ids("cascade")[0],
                                     "--answer", b"\xff\xfe"], code=0)


def test_the_battery_holds_at_least_124_distinct_cases() -> None:
    """The battery of 124 bad inputs is kept at 0 tracebacks: this one holds at least as many, each
    distinct, over every family."""
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 124, len(ids)
    for family in FAMILIES:
        assert sum(family in i for i in ids) >= 8, family


def test_every_case_runs_under_the_memory_limit() -> None:
    """The limit reaches the process that runs the CLI (through prlimit, or the preexec_fn without it)."""
    argv, preexec = _limited([sys.executable, "-c", "import resource; print(resource.getrlimit(resource.RLIMIT_AS))"])
    proc = subprocess.run(argv, preexec_fn=preexec, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert proc.returncode == 0 and proc.stdout.strip() == str((MEMORY_LIMIT, MEMORY_LIMIT)), proc


# ---- a full disk while writing (/dev/full): one line naming the file, or standard output ------------------
FULL = "/dev/full"
case("write/prompt-out-full", lambda b: [P, "cascade", "--instances", b.inst("cascade"), "--out", FULL], says=FULL)
case("write/generate-out-full", lambda b: ["generate", "membership", "--seed", "0", "--count", "5", "--out", FULL],
     says=FULL)
case("write/verify-out-full", lambda b: [V, "typeinf", "--instances", b.inst("typeinf"), "--answers",
                                         b.answers("typeinf", "x"), "--out", FULL], says=FULL)
case("write/snapshot-export-out-full", lambda b: ["snapshot", "export", "s", "--out", FULL], db=True, says=FULL)
case("write/run-export-out-full", lambda b: ["export", _run_id(b), "--out", FULL], db=True, says=FULL)
case("write/notes-export-out-full", lambda b: ["notes", "export", "--out", FULL], db=True, says=FULL)
case("write/prompt-stdout-full", lambda b: [P, "specs", "--instances", b.inst("specs")], stdout=FULL,
     says="standard output")
case("write/generate-stdout-full", lambda b: ["generate", "cascade", "--seed", "0", "--count", "3"], stdout=FULL,
     says="standard output")
case("write/snapshot-export-stdout-full", lambda b: ["snapshot", "export", "s"], db=True, stdout=FULL,
     says="standard output")
case("write/runs-stdout-full", lambda b: ["runs", "--format", "json"], db=True, stdout=FULL, says="standard output")

# ---- the other verbs: specs-repair, ddmin, worker, kb ------------------------------------------------------
case("verbs/specs-repair-cascade-snapshot", lambda b: ["specs-repair", "--snapshot", "s"], db=True, says="specs")
case("verbs/specs-repair-unknown-snapshot", lambda b: ["specs-repair", "--snapshot", "nope"], db=True, says="nope")
case("verbs/specs-repair-rounds-21", lambda b: ["specs-repair", "--snapshot", "formalbench-c", "--rounds", "21"],
     db=True, says="--rounds")
case("verbs/specs-repair-limit-negative", lambda b: ["specs-repair", "--snapshot", "formalbench-c", "--limit", "-1"],
     db=True, says="--limit")
case("verbs/specs-repair-unknown-style", lambda b: ["specs-repair", "--snapshot", "formalbench-c", "--style", "nope",
                                                    "--limit", "1"], db=True, says="nope")
case("verbs/ddmin-dev-zero", lambda b: ["ddmin", "--instances", "/dev/zero", "--id", "x"], says="/dev/zero")
case("verbs/ddmin-wrong-family", lambda b: ["ddmin", "--instances", b.inst("cascade"), "--id", b.ids("cascade")[0]],
     says="family")
case("verbs/ddmin-unknown-id", lambda b: ["ddmin", "--instances", b.inst("imports"), "--id", "nope"], says="nope")
case("verbs/ddmin-budget-zero", lambda b: ["ddmin", "--instances", b.inst("imports"), "--id", b.ids("imports")[0],
                                           "--budget", "0"], says="--budget")
case("verbs/ddmin-non-utf8", lambda b: ["ddmin", "--instances", b.f("i.jsonl", b'{"id": "\xff"}\n'), "--id", "x"],
     says="UTF-8")
case("verbs/ddmin-missing-field", lambda b: ["ddmin", "--instances", b.broken(
    "imports", "m.jsonl", lambda o: o.pop("code") and None), "--id", b.ids("imports")[0]], says="code")
case("verbs/ddmin-nested", lambda b: ["ddmin", "--instances", b.f("n.jsonl", "[" * 100_000 + "\n"), "--id", "x"],
     says="nested")
case("verbs/worker-without-address", lambda b: ["worker"], says="ADDRESS")
case("verbs/worker-unknown-family", lambda b: ["worker", "tcp://127.0.0.1:1", "--insecure", "--require", "nosuch"], says="nosuch")
case("verbs/kb-format-xml", lambda b: ["kb", "stats", "--format", "xml"], says="xml")

# ---- files in a released format with garbage in them ---------------------------------------------------------
case("folder/garbage-tfbench-task", _import("typeinf", lambda b: (b.d("t"), b.f("t/task_1.hs.md",
                                                                               b"\x00\xff ```haskell\nf ::\n"))[0]),
     says="task_1.hs.md")
case("folder/garbage-tfbench-jsonl", _import("typeinf", lambda b: b.f("tf.jsonl", '{"task_id": 3}\n')),
     says="code")
case("folder/garbage-c-file", lambda b: ["--db", str(b.dir / "imp.db"), "snapshot", "import",
                                         b.f("a.c", b"/*@ requires ;; */ int f( {\x00"), "--name", "x", "--family",
                                         "specs", "--no-verify"], preamble=True, says="no instances")
case("folder/garbage-java-file", _import("imports", lambda b: b.f("A.java", b"class {{{{ \x00\xff")), code=0)
case("folder/cascade-folder-of-text", _import("cascade", lambda b: (b.d("c/lang"), b.f("c/lang/w.txt", "x\n"))[0]),
     says="cascade")


# ---- the test (after the table: parametrize reads CASES when it is defined) ------------------------------
@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_bad_input(c: Case, bench: Bench) -> None:
    args = c.argv(bench)
    before = _counts(bench.db) if c.db else None
    assert before is None or before["attempts"] > 0
    with open(c.stdout or os.devnull, "wb") as sink:
        argv, preexec = _limited(_argv(args, bench.db if c.db else None))
        proc = subprocess.run(argv, env=_env(bench.dir, bench.env),
                              stdout=sink if c.stdout else subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT_S, preexec_fn=preexec, stdin=subprocess.DEVNULL)
    out = (proc.stdout or b"").decode("utf-8", errors="replace")
    err = proc.stderr.decode("utf-8", errors="replace")
    assert "Traceback" not in out + err, err[-3000:]
    assert proc.returncode == c.code, (proc.returncode, err[-2000:], out[-500:])
    lines = err.strip().splitlines()
    if c.code != 0:
        errors = [line for line in lines if line.startswith("error:")]
        assert len(errors) == 1 and lines[-1] == errors[0], err[-2000:]
        assert c.preamble or len(lines) == 1, err[-2000:]
        assert c.says in errors[0], errors[0]
    elif c.says:
        assert c.says in out + err, (out[-2000:], err[-2000:])
    if c.check is not None:
        c.check(bench, proc)
    if c.db:
        after = _counts(bench.db)
        assert after is not None and all(after[t] >= n for t, n in before.items()), (before, after)
