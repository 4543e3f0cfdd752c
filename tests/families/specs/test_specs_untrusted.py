"""A specs reply that keeps the task's C code and adds ghost code running the system or reading secrets:
refused at extraction; and, with that refusal bypassed, the counterexample search runs it in the sandbox,
where it sees no secret, no home and no configuration, and what it prints is redacted before a verdict
or a repair prompt holds it. Each layer is tested on its own (docs/sandbox.md)."""

from __future__ import annotations

import base64

import pytest
from specs_helpers import corpus_instance, fenced

from core.families.specs import inputs
from core.families.specs.extract import extract
from core.families.specs.model import SpecsInstance
from core.families.specs.repair import repair_prompt
from core.families.specs.verify import counterexample, harness, verify
from core.verdict import Verdict

SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # the user's, in AWS_SECRET_ACCESS_KEY
GHOST_DECLS = "/*@ ghost /@ assigns \\nothing; @/ int system(); */\n/*@ ghost /@ assigns \\nothing; @/ void _exit(); */\n"


def _evil(inst: SpecsInstance, ghost: str, decls: str = GHOST_DECLS) -> str:
    """The reference with a false postcondition (so that the counterexample search runs the program) and
    `ghost` code at the start of the function's body."""
    ref = inst.reference()
    assert ref is not None
    wrong = ref.replace("ensures \\forall integer k; 0 <= k < n ==> \\result >= a[k];", "ensures \\result > 1000000;")
    return decls + wrong.replace("  int m = a[0];\n", f"  int m = a[0];\n  /*@ ghost {ghost} */\n", 1)


@pytest.mark.parametrize("ghost", [
    'system("tr \'\\\\0\' \'\\\\n\' < /proc/$PPID/environ"); _exit(3);',
    'system("cat ~/.ssh/id_rsa ~/.config/sembench/config.toml"); _exit(3);',
])
def test_ghost_code_reaching_the_system_is_refused_at_extraction(ghost) -> None:
    inst = corpus_instance("max_array")
    answer = extract(fenced(_evil(inst, ghost)), inst)
    assert not answer.ok and answer.error == "foreign_ghost_code"
    assert "`system`" in answer.message and "does not define" in answer.message
    verdict = verify(inst, answer)  # no tool runs for a refused reply
    assert verdict.status == "failure" and verdict.details["category"] == "InvalidResponse"
    # declared nowhere (C's implicit declaration), called through a pointer, or named without a call
    for other in ('int z = system("id");', 'int z = (system)("id");', "void *p = &system;", "char **e = environ;"):
        refused = extract(fenced(_evil(inst, other, decls="")), inst)
        assert refused.error == "foreign_ghost_code", other


def test_ghost_code_that_uses_the_programs_own_names_is_kept() -> None:
    inst = corpus_instance("max_array")
    ref = inst.reference()
    kept = ref.replace("  int m = a[0];\n", "  int m = a[0];\n  /*@ ghost int seen = 0, last[2]; */\n"
                       "  //@ ghost seen = seen + n + last[0] + INT_MAX - max_array(a, 1);\n", 1)
    answer = extract(fenced(kept), inst)
    assert answer.ok, answer.message


@pytest.fixture
def secrets_around(tmp_path, monkeypatch):
    """The user's secrets where the reviewer found them: the environment, a private key and the
    configuration in the home directory."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE-KEY-MATERIAL-0123456789\n")
    (home / ".config" / "sembench").mkdir(parents=True)
    (home / ".config" / "sembench" / "config.toml").write_text('[anthropic]\napi_key = "sk-ant-Q7vLm2XcB9dR4tY8wZ1n"\n')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    return home


@pytest.mark.framac
def test_the_counterexample_search_runs_ghost_code_in_the_sandbox(secrets_around) -> None:
    """Extraction bypassed: E-ACSL compiles the ghost code and runs it; from the sandbox it finds no
    variable of the user's (its own environment, its parent's, pid 1's), no home, no configuration."""
    home = secrets_around
    inst = corpus_instance("max_array")
    look = (f"echo ran; {{ env; tr '\\\\0' '\\\\n' < /proc/$PPID/environ; tr '\\\\0' '\\\\n' < /proc/1/environ; "
            f"cat {home}/.ssh/id_rsa {home}/.config/sembench/config.toml; }} 2>&1 | grep -E 'AWS|PRIVATE|api_key|No such' | head -3")
    info = counterexample(inst, _evil(inst, f'system("{look}"); _exit(3);'))
    cex = info["counterexample"]
    assert cex["kind"] == "RuntimeError" and "exit status 3" in cex["message"], cex  # the ghost code ran
    assert "ran" in cex["message"] and "No such file or directory" in cex["message"]
    assert SECRET not in cex["message"] and "AWS" not in cex["message"] and "PRIVATE" not in cex["message"]


@pytest.mark.framac
def test_a_program_printing_without_end_is_stopped_and_its_verdict_says_why() -> None:
    from core.families.specs.csyntax import signature
    from core.families.specs.runtime import check_contract

    program = ("#include <stdio.h>\n/*@ requires 0 <= x <= 10;\n    ensures \\result == x + 1; */\n"
               "int f(int x) { for (long i = 0; i < 100000000; i++) puts(\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\");"
               " return x + 1; }\n")
    checked = check_contract(program, "f", signature(program, "f"), [{"x": 1}, {"x": 2}])
    assert checked.ok and len(checked.outcomes) == 1, checked
    outcome = checked.outcomes[0]
    assert outcome.status == "crash" and "output passed the runner's limit of 4 MiB" in outcome.message


def test_the_repair_prompt_quotes_no_secret(monkeypatch) -> None:
    """What a program printed reaches the next round's prompt only redacted: as printed, reversed or in
    base64, a secret of the user's environment is not sent to the model."""
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    inst = corpus_instance("max_array")
    encoded = base64.b64encode(f"AWS={SECRET}".encode()).decode()
    message = f"the program stopped abnormally (exit status 3) {SECRET} {SECRET[::-1]} {encoded}"
    verdict = Verdict(correct=False, score=0.0, status="failure", explanation="Failure", details={
        "category": "MemoryAccess", "counterexample": {"input": "a=[3], n=1", "kind": "RuntimeError", "line": None,
                                                       "message": message}})
    prompt = repair_prompt(inst, inst.reference(), verdict)
    text = "\n".join(m["content"] for m in prompt.messages)
    assert "the program stopped abnormally (exit status 3)" in text and "[redacted key]" in text
    for piece in (SECRET, SECRET[::-1], SECRET[5:17], encoded[8:40]):
        assert piece not in text


def test_an_answer_is_checked_on_at_most_max_inputs() -> None:
    inst = corpus_instance("max_array")
    many = inst.model_copy(update={"tests": [{"a": [i, i + 1], "n": 2} for i in range(100)]})
    _sig, cases, _ = harness(many)
    assert len(cases) == inputs.MAX_INPUTS
    assert cases[:inputs.MAX_TESTS] == [{"a": [i, i + 1], "n": 2} for i in range(inputs.MAX_TESTS)]
    few = inst.model_copy(update={"tests": [{"a": [1, 2], "n": 2}] * 10})
    assert len(harness(few)[1]) == 10 + inputs.RANDOM_INPUTS


@pytest.mark.framac
def test_a_run_and_a_repair_store_and_send_no_secret(tmp_path, log_db) -> None:
    """The reviewer's reproduction end to end: a model replies with the task's code plus ghost code that
    prints the environment; `sembench run` and `sembench specs-repair` record it (refused) and ask again.
    The user's secret is in no stored byte, no export and no prompt sent to the model."""
    import json
    import os
    import subprocess
    import sys

    from core.families.specs.prompt import sections
    from tests.models.fakeserver import FakeServer

    inst = corpus_instance("max_array")
    (tmp_path / "i.jsonl").write_text(json.dumps(inst.to_json_dict()) + "\n")
    core = [sys.executable, "-m", "core"]
    imported = subprocess.run([*core, "snapshot", "import", str(tmp_path / "i.jsonl"), "--name", "mine", "--family",
                               "specs"], capture_output=True, text=True, timeout=600)
    assert imported.returncode == 0, imported.stderr
    evil = fenced(_evil(inst, 'system("tr \'\\\\0\' \'\\\\n\' < /proc/$PPID/environ | grep AWS_SECRET"); _exit(3);'))
    repair_system = sections()["repair_system"]
    with FakeServer() as srv:
        srv.reply = lambda req: fenced(inst.reference()) if req.messages[0]["content"] == repair_system else evil
        env = {**os.environ, "OPENAI_BASE_URL": srv.base_url("openai"), "OPENAI_API_KEY": "sk-test-0123456789abcdef",
               "AWS_SECRET_ACCESS_KEY": SECRET}
        ran = subprocess.run([*core, "run", "--snapshot", "mine", "--solver", "openai:m", "--format", "json"],
                             capture_output=True, text=True, timeout=600, env=env)
        repaired = subprocess.run([*core, "specs-repair", "--snapshot", "mine", "--solver", "openai:m", "--rounds", "1"],
                                  capture_output=True, text=True, timeout=600, env=env)
        asked = [json.dumps(r.messages) for r in srv.requests if r.messages]
    assert ran.returncode == 0 and repaired.returncode == 0, ran.stderr + repaired.stderr
    runs = [json.loads(ran.stdout)["run"], json.loads(repaired.stdout.strip().splitlines()[-1])["run"]]
    exported = [subprocess.run([*core, "export", run], capture_output=True, text=True, timeout=600, env=env).stdout
                for run in runs]
    stored = b"".join(p.read_bytes() for p in [log_db, *log_db.parent.glob("log.db-*")])
    for text in [*asked, *exported, ran.stdout, ran.stderr, repaired.stdout, repaired.stderr]:
        assert SECRET not in text and SECRET[::-1] not in text
    assert SECRET.encode() not in stored
    assert all("foreign_ghost_code" in text for text in exported)
    assert len(asked) == 3 and "declares `system`" in asked[2]  # the repair round was told why


@pytest.mark.framac
def test_an_e_acsl_run_stalled_from_outside_is_no_verdict(monkeypatch) -> None:
    """The machine stalls the counterexample search (its processes stopped from outside, as a SIGSTOP or
    a suspended VM does) past its limit: not a counterexample on the answer, but, after one more try, an
    environment fault (a run stops there, resumable)."""
    import os
    import signal
    import threading
    import time
    from pathlib import Path

    from core.errors import EnvironmentFault
    from core.families.specs import runtime
    from core.families.specs.csyntax import signature

    inst = corpus_instance("max_array")
    wrong = _evil(inst, "", decls="").replace("/*@ ghost  */\n", "")
    monkeypatch.setattr(runtime, "run_limit_s", lambda inputs: 5, raising=False)  # the stall need not last a minute
    stopped: list[int] = []
    done = threading.Event()

    me = os.getpid()

    def ours(pid: int) -> bool:
        """Whether `pid` descends from this test's process (other tests, in parallel, run harnesses too)."""
        for _ in range(64):
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                return False
            pid = int(stat.rsplit(")", 1)[1].split()[1])  # the parent, after the command's name
            if pid == me:
                return True
            if pid <= 1:
                return False
        return False

    def stall() -> None:  # stops the harness's shell of each try (of this test's) as soon as it starts
        while not done.is_set():
            for entry in Path("/proc").iterdir():
                try:
                    argv = (entry / "cmdline").read_bytes().split(b"\0") if entry.name.isdigit() else []
                except OSError:
                    continue
                if len(argv) > 2 and argv[1] == b"-c" and argv[2].startswith(b"gcc -std=c99") and \
                        int(entry.name) not in stopped and ours(int(entry.name)):
                    os.kill(int(entry.name), signal.SIGSTOP)
                    stopped.append(int(entry.name))
            time.sleep(0.02)

    watcher = threading.Thread(target=stall, daemon=True)
    watcher.start()
    try:
        with pytest.raises(EnvironmentFault, match="stopped from outside"):
            runtime.check_contract(wrong, "max_array", signature(inst.code, "max_array"), [{"a": [3], "n": 1}])
    finally:
        done.set()
        watcher.join()
    assert len(stopped) == 2
