"""specs runs programs built from answers and imported files only inside bubblewrap, and a machine that
cannot run its tools is never taken for a wrong answer. Real `sembench` processes, real Frama-C and gcc."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FAKE_BWRAP = ("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does "
              "not allow non-privileged user namespaces.' >&2\nexit 1\n")
# The reference's contract is false, so the import's check of it searches a counterexample: gcc builds the
# file with a test harness and runs it, and its constructor runs before main. (A reference that verifies
# runs no program at import: completeness is not part of the reference check.) `system` is declared, not
# included: Frama-C's libc contract for it adds a call-site precondition of its own.
EVIL = """int system(const char *command);
__attribute__((constructor)) static void pwn(void) { system("/usr/bin/touch MARKER"); }
/*@ requires x < 1000 && x > -1000;
    ensures \\result == x + 2; */
int f(int x) { return x + 1; }
"""


def sembench(*args: str, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=REPO)


@pytest.fixture
def env(tmp_path):
    tmp = tmp_path / "tmpdir"
    tmp.mkdir()
    return {**os.environ, "PYTHONPATH": str(REPO), "SEMBENCH_DB": str(tmp_path / "log.db"), "TMPDIR": str(tmp)}


def fake_bwrap(tmp_path: Path, env: dict[str, str]) -> dict[str, str]:
    fake = tmp_path / "fakebin"
    fake.mkdir(exist_ok=True)
    (fake / "bwrap").write_text(FAKE_BWRAP)
    (fake / "bwrap").chmod(0o755)
    return {**env, "PATH": f"{fake}:{env['PATH']}"}


def evil_folder(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / f"escaped-{uuid.uuid4().hex}"
    folder = tmp_path / "collection"
    folder.mkdir()
    (folder / "evil.c").write_text(EVIL.replace("MARKER", str(marker)))
    return folder, marker


@pytest.mark.framac
def test_an_imported_files_constructor_runs_only_in_the_sandbox(tmp_path, env) -> None:
    folder, marker = evil_folder(tmp_path)
    done = sembench("snapshot", "import", str(folder), "--family", "specs", "--name", "evil", "--keep-unverified",
                    env=env)
    assert done.returncode == 0, done.stderr
    assert "imported 1 instances" in done.stdout
    assert "breaks the postcondition" in done.stderr  # a program built from the file ran (sandboxed)
    assert not marker.exists(), "the imported file's constructor wrote outside the sandbox"


@pytest.mark.framac
def test_without_bubblewrap_the_import_is_refused_unless_unsandboxed(tmp_path, env) -> None:
    folder, marker = evil_folder(tmp_path)
    boxless = fake_bwrap(tmp_path, env)
    refused = sembench("snapshot", "import", str(folder), "--family", "specs", "--name", "evil", "--keep-unverified",
                       env=boxless)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "bubblewrap cannot run here" in lines[0] and "--unsandboxed" in lines[0]
    assert not marker.exists()
    # asked for explicitly: it runs unconfined, and the constructor does what it does (the test's own check)
    allowed = sembench("snapshot", "import", str(folder), "--family", "specs", "--name", "evil", "--unsandboxed", "--keep-unverified",
                       env=boxless)
    assert allowed.returncode == 0, allowed.stderr
    # The counterexample search ran the program (unconfined, as asked). Frama-C's E-ACSL rebuilds the
    # program from its own AST, which drops the unused static constructor, so nothing escapes even here;
    # that unconfined programs do run is shown by tests/engine/test_sandbox.py.
    assert "breaks the postcondition" in allowed.stderr


def _path_without(tmp_path: Path, name: str) -> str:
    """A PATH with every executable of the current one but `name` (symlinks)."""
    bin_dir = tmp_path / f"no-{name}"
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(":"):
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            if entry.name != name and not (bin_dir / entry.name).exists():
                (bin_dir / entry.name).symlink_to(entry.path)
    return str(bin_dir)


@pytest.mark.framac
def test_a_run_with_frama_c_missing_stops_at_once_and_resumes(tmp_path, env) -> None:
    # What a missing tool does to a run, not the contracts' verdicts: without the completeness check (a WP
    # run per mutant, 8 per instance; ~40 s of Frama-C for the resume's two instances, ~3 s without), the
    # resume still verifies both answers with Frama-C for real.
    env = {**env, "SEMBENCH_SPECS_COMPLETENESS": "0"}
    broken = {**env, "PATH": _path_without(tmp_path, "frama-c")}
    # one attempt at a time: the first one meets the missing tool, the second is never started
    done = sembench("run", "--snapshot", "formalbench-c", "--limit", "2", "--solver", "oracle", "--concurrency", "1",
                    env=broken)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    line = lines[-1]
    assert "error of the environment" in line and "'frama-c' is not installed" in line and "frama-c-base" in line
    assert "sembench run --resume run-" in line
    run_id = line.split("--resume ")[1].split()[0]
    with sqlite3.connect(env["SEMBENCH_DB"]) as conn:
        status = conn.execute("select status from runs where id = ?", [run_id]).fetchone()[0]
        recorded = conn.execute("select count(*) from attempts where run_id = ?", [run_id]).fetchone()[0]
    assert status != "finished" and recorded == 0  # no answer was charged with the missing tool
    # The report counts the attempt the fault stopped apart: not an answer, not an error, not just missing.
    report = sembench("report", run_id, "--format", "json", env=env)
    assert report.returncode == 0, report.stderr
    counts = json.loads(report.stdout)["counts"]
    assert counts["env_errors"] == 1 and "'frama-c' is not installed" in counts["env_cause"]
    assert counts["attempts"] == 0 and counts["errors"] == 0 and counts["correct"] == 0 and counts["missing"] == 1
    shown = sembench("report", run_id, env={**env, "COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    assert "environment errors: 1 (cause: 'frama-c' is not installed" in " ".join(shown.stdout.split())
    # Resumed with the tool back: both attempts are made and verified, and the fault no longer counts.
    resumed = sembench("run", "--resume", run_id, env=env)
    assert resumed.returncode == 0, resumed.stderr
    with sqlite3.connect(env["SEMBENCH_DB"]) as conn:
        rows = conn.execute("select correct, error from attempts where run_id = ?", [run_id]).fetchall()
    assert len(rows) == 2 and all(correct and error is None for correct, error in rows)
    after = json.loads(sembench("report", run_id, "--format", "json", env=env).stdout)["counts"]
    assert after["env_errors"] == 0 and after["env_cause"] is None
    assert after["attempts"] == 2 and after["correct"] == 2 and after["missing"] == 0
    assert "environment errors" not in sembench("report", run_id, env=env).stdout


# A goal no prover settles (Fermat, n = 3): WP keeps CVC4 and Z3 busy up to its per-goal time-out.
HARD = "    ensures \\forall integer x, y, z; x > 0 && y > 0 && z > 0 ==> x*x*x + y*y*y != z*z*z;\n*/"


def _one_answer(tmp_path: Path, env: dict[str, str], hard: bool = False) -> tuple[Path, Path]:
    instances, answers = tmp_path / "one.jsonl", tmp_path / "answers.jsonl"
    sembench("snapshot", "export", "formalbench-c", "--out", str(tmp_path / "all.jsonl"), env=env)
    first = (tmp_path / "all.jsonl").read_text().splitlines()[0]
    instances.write_text(first + "\n")
    inst = json.loads(first)
    # the reference itself: a correct answer, so any failure can only be the machine's
    contract = inst["ground_truth"]["contract"]
    if hard:
        contract = contract.replace("\n*/", "\n" + HARD, 1)
    answers.write_text(json.dumps({"id": inst["id"], "response": f"```c\n{contract}\n```"}) + "\n")
    return instances, answers


@pytest.mark.framac
@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs (needs root)")
def test_a_read_only_or_full_tmpdir_is_named_not_a_verdict(tmp_path, env) -> None:
    instances, answers = _one_answer(tmp_path, env)
    mounts = []
    try:
        for options in ("ro,size=1m", "size=1m"):
            where = tmp_path / f"mnt{len(mounts)}"
            where.mkdir()
            subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], check=True)
            mounts.append(where)
            if "ro" not in options:
                with open(where / "fill", "wb") as f:
                    try:
                        f.write(b"\0" * 2 * 1024 * 1024)
                    except OSError:
                        pass
            out = tmp_path / f"verdicts{len(mounts)}.jsonl"
            done = sembench("verify", "specs", "--instances", str(instances), "--answers", str(answers), "--out",
                            str(out), env={**env, "TMPDIR": str(where)})
            assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
            line = done.stderr.strip().splitlines()[-1]
            assert "neither CVC4 nor Z3" not in line and "Frama-C rejects" not in line
            assert ("Read-only file system" in line) if "ro" in options else ("no space left" in line), line
            assert str(where) in line
            assert not out.exists() or "failure" not in out.read_text()
    finally:
        for where in mounts:
            subprocess.run(["umount", "-l", str(where)], check=False)


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[1].split()


def _descendants(root: int) -> dict[tuple[int, str], str]:
    """The live processes descended from `root` (a confined tool runs with an empty environment, so its
    ancestry is what tells it), keyed by pid and start time, with their command lines."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(_stat(int(entry.name))[1])
            except (OSError, IndexError, ValueError):
                continue
    members, grew = {root}, True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in members and pid not in members:
                members.add(pid)
                grew = True
    found = {}
    for pid in members - {root}:
        try:
            fields = _stat(pid)
            if fields[0] != "Z":
                found[(pid, fields[19])] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
                    errors="replace")
        except (OSError, IndexError):
            continue
    return found


def _alive(processes: dict[tuple[int, str], str]) -> list[str]:
    """Which of `processes` still run (the same pid with the same start time, not a zombie)."""
    left = []
    for (pid, started), line in processes.items():
        try:
            fields = _stat(pid)
        except OSError:
            continue
        if fields[19] == started and fields[0] != "Z":
            left.append(line)
    return left


@pytest.mark.framac
def test_kill_9_leaves_no_tool_alive_and_the_next_start_sweeps_its_directories(tmp_path, env) -> None:
    instances, answers = _one_answer(tmp_path, env, hard=True)
    proc = subprocess.Popen([sys.executable, "-m", "core", "verify", "specs", "--instances", str(instances),
                             "--answers", str(answers)], env=env, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:  # WP's provers at work (not the set-up's `z3 --version`)
            running = _descendants(proc.pid)
            lines = list(running.values())
            if any("frama-c" in line and " -wp " in line for line in lines) and \
                    any(("z3" in line or "cvc4" in line) and "-version" not in line for line in lines):
                break
            assert proc.poll() is None and time.monotonic() < deadline, f"no prover started: {lines}"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        time.sleep(2)
        assert _alive(running) == [], f"tools outlived sembench (running at the kill: {lines})"
    finally:
        if proc.poll() is None:
            proc.kill()
    tmpdir = Path(env["TMPDIR"])
    left = [p.name for p in tmpdir.iterdir()]
    assert left and all(name.startswith(f"sembench-tool-{proc.pid}-") for name in left)  # only its own
    # The next start sweeps at its first tool run, whatever the answer: one Frama-C rejects at once, not
    # the hard goal again (~10 s of provers timing out, a run never cached: docs/testing.md).
    quick, out = tmp_path / "quick.jsonl", tmp_path / "verdicts.jsonl"
    answer = json.loads(answers.read_text())
    answer["response"] = answer["response"].replace(HARD, "    ensures \\result == ;\n*/")
    quick.write_text(json.dumps(answer) + "\n")
    again = sembench("verify", "specs", "--instances", str(instances), "--answers", str(quick), "--out", str(out),
                     env=env)
    assert again.returncode == 0, again.stderr
    assert list(tmpdir.iterdir()) == []  # the dead process's directories went at the next start
    verdict = json.loads(out.read_text())
    assert "Frama-C rejects the annotations" in verdict["explanation"] and not verdict["details"]["wp_cached"]


@pytest.mark.framac
def test_programs_run_for_an_answer_stay_in_the_sandbox(tmp_path) -> None:
    """The run-time paths an answer reaches (E-ACSL harness, differential testing of mutants): a program
    whose code writes outside its directory and reaches the network writes nothing and reaches nothing."""
    from core.families.specs.csyntax import signature
    from core.families.specs.runtime import check_contract, differential

    home = Path.home() / f"sembench-answer-{uuid.uuid4().hex}"
    outside = tmp_path / "escaped"
    program = ("#include <stdlib.h>\n#include <stdio.h>\n"
               f"__attribute__((constructor)) static void pwn(void) {{ system(\"touch {outside}\"); }}\n"
               "/*@ requires 0 <= x <= 10;\n    ensures \\result == x + 1; */\n"
               f"int f(int x) {{ FILE *h = fopen(\"{home}\", \"w\"); if (h) fclose(h);\n"
               f"  system(\"touch {outside}.2; curl -s http://example.com >/dev/null\"); return x + 1; }}\n")
    sig = signature(program, "f")
    cases = [{"x": 1}, {"x": 2}]
    table = differential([program, program.replace("x + 1; }", "x + 2; }")], "f", sig, cases)
    assert table is not None and table[0] == ["2", "3"] and table[1] == ["3", "4"]  # it ran, and differed
    checked = check_contract(program.replace("__attribute__((constructor)) ", ""), "f", sig, cases)
    assert checked.ok and [o.status for o in checked.outcomes] == ["ok", "ok"], checked
    assert not home.exists() and not outside.exists() and not Path(f"{outside}.2").exists()
