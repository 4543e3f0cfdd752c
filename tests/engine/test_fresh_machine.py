"""The README's two set-up commands on a simulated fresh machine: `bash .ci/run` and `bash .ci/app` in a fresh
clone, with dpkg's status file missing some packages (bound over the real one by bubblewrap) and an
`apt-get` that records what it is asked (bound over /usr/bin/apt-get). The scripts run as they are; only
what they call is replaced: apt-get, a `python3` whose `-m venv` behaves as Debian's with or without
python3-venv, and a `.venv` whose programs (pip, ruff, pytest, sembench) record their arguments and
succeed, so that a run stops being about set-up once apt-get has been asked."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from core.paths import DATA_ROOT
from tests.kit.debian import DPKG_STATUS, setup_packages, status_without

pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.skipif(os.geteuid() != 0 and not os.environ.get("CI"),
                       reason="binds files over /var/lib/dpkg/status and /usr/bin/apt-get: needs root"),
]

# Debian's message when python3-venv (ensurepip) is missing; it leaves a half-made environment behind.
NO_ENSUREPIP = ("The virtual environment was not created successfully because ensurepip is not\n"
                "available.  On Debian/Ubuntu systems, you need to install the python3-venv\n"
                "package using the following command.\n\n    apt install python3.11-venv\n")
APT_ERROR = "E: Unable to locate package {}"


def recorder(path: Path, log: Path, body: str = "exit 0") -> None:
    path.write_text(f'#!/bin/sh\nprintf "%s\\n" "$(basename "$0") $*" >>{shlex.quote(str(log))}\n{body}\n')
    path.chmod(0o755)


class Machine:
    """A fresh clone and the programs that stand in for apt-get, python3 and the venv's tools."""

    def __init__(self, tmp: Path, *, apt_fails: bool = False, has_venv_module: bool = True) -> None:
        self.tmp = tmp
        self.clone = tmp / "clone"
        subprocess.run(["git", "clone", "-q", str(DATA_ROOT), str(self.clone)], check=True)
        self.apt_log = tmp / "apt.log"
        self.tool_log = tmp / "tools.log"
        self.installed = tmp / "installed"  # a package apt-get "installed" leaves its name here
        self.installed.mkdir()
        self.bin = tmp / "bin"
        self.bin.mkdir()
        self.home = tmp / "home"
        self.home.mkdir()
        # Why3 already configured: `why3 config detect` (seconds) is not what is tested here
        (self.home / ".why3.conf").write_text('[prover]\nname = "Z3"\n')
        install = (f'if [ "$1" = install ]; then for last; do :; done; echo "{APT_ERROR.format("$last")}" >&2; '
                   "exit 100; fi" if apt_fails else
                   f'if [ "$1" = install ]; then for p in "$@"; do touch {self.installed}/"$p"; done; fi')
        self.apt = tmp / "apt-get"
        recorder(self.apt, self.apt_log, f"{install}\nexit 0")
        venv_tools = tmp / "venv-tools"
        venv_tools.mkdir()
        for name in ("python", "pip", "ruff", "sembench"):
            recorder(venv_tools / name, self.tool_log)
        ready = "true" if has_venv_module else f"[ -e {self.installed}/python3-venv ]"
        # `python3 -m venv DIR`: a venv of recording tools once the venv module is there; without it, what
        # Debian's python3 does (a half-made DIR, the message, exit 1). Anything else: the real python3.
        (self.bin / "python3").write_text(f"""#!/bin/bash
if [ "$1" = -m ] && [ "$2" = venv ]; then
  dir="${{@: -1}}"
  if {ready}; then mkdir -p "$dir/bin" && cp {venv_tools}/* "$dir/bin/" && exit 0; fi
  mkdir -p "$dir/bin" && ln -sf /usr/bin/python3 "$dir/bin/python"
  printf '%s' {shlex.quote(NO_ENSUREPIP)}
  exit 1
fi
exec /usr/bin/python3 "$@"
""")
        (self.bin / "python3").chmod(0o755)

    def run(self, script: str, status: Path) -> subprocess.CompletedProcess[str]:
        env = {"PATH": f"{self.bin}:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(self.home), "LANG": "C.UTF-8",
               "SEMBENCH_CACHE_DIR": str(self.tmp / "cache"), "TMPDIR": str(self.tmp)}
        argv = ["bwrap", "--dev-bind", "/", "/", "--bind", str(status), str(DPKG_STATUS),
                "--bind", str(self.apt), "/usr/bin/apt-get", "--chdir", str(self.clone), "--",
                "bash", script]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)

    def apt_calls(self) -> list[list[str]]:
        return [line.split()[1:] for line in self.apt_log.read_text().splitlines()] if self.apt_log.exists() else []

    def installs(self) -> list[list[str]]:
        """The packages of each `apt-get install` (its options left out)."""
        return [[a for a in call[1:] if not a.startswith("-")] for call in self.apt_calls() if call[:1] == ["install"]]

    def tools(self) -> list[str]:
        return self.tool_log.read_text().splitlines() if self.tool_log.exists() else []


def reached_the_end(script: str, machine: Machine) -> None:
    """What the README command does once set-up is done: open the workbench, or lint and test."""
    tools = machine.tools()
    if script == ".ci/app":
        assert tools and tools[-1] == "sembench ", tools
    else:
        assert any(t.startswith("ruff check") for t in tools), tools
        assert any(t.startswith("python -m pytest") for t in tools), tools


@pytest.mark.parametrize("script", [".ci/run", ".ci/app"])
@pytest.mark.parametrize("missing", ["ghc bubblewrap", "all"])
def test_set_up_installs_exactly_the_missing_packages(tmp_path: Path, script: str, missing: str) -> None:
    machine = Machine(tmp_path)
    removed = set(setup_packages()) if missing == "all" else set(missing.split())
    status = status_without(None if missing == "all" else removed, tmp_path / "status")
    done = machine.run(script, status)
    assert done.returncode == 0, done.stderr[-2000:]
    assert ["update", "-q"] in machine.apt_calls()
    installs = machine.installs()
    assert len(installs) == 1 and sorted(installs[0]) == sorted(removed), machine.apt_calls()
    said = [line for line in done.stderr.splitlines() if "installing Debian packages" in line]
    assert said == [f"setup: installing Debian packages: {' '.join(installs[0])}"], done.stderr
    reached_the_end(script, machine)


@pytest.mark.parametrize("script", [".ci/run", ".ci/app"])
def test_a_failing_apt_get_stops_set_up_with_one_line(tmp_path: Path, script: str) -> None:
    machine = Machine(tmp_path, apt_fails=True)
    done = machine.run(script, status_without({"ghc", "bubblewrap"}, tmp_path / "status"))
    assert done.returncode == 1
    installs = machine.installs()
    assert len(installs) == 1 and sorted(installs[0]) == ["bubblewrap", "ghc"]
    asked = " ".join(installs[0])
    last = APT_ERROR.format(installs[0][-1])
    assert done.stderr.splitlines()[-1] == f"setup: apt-get could not install {asked}: {last}", done.stderr
    assert machine.tools() == [], "nothing runs after set-up stopped"


@pytest.mark.parametrize("script", [".ci/run", ".ci/app"])
def test_without_python3_venv_set_up_installs_it(tmp_path: Path, script: str) -> None:
    machine = Machine(tmp_path, has_venv_module=False)
    done = machine.run(script, DPKG_STATUS)  # every Debian package of the list is installed
    assert done.returncode == 0, done.stderr[-2000:]
    assert machine.installs() == [["python3-venv"]]
    assert (machine.clone / ".venv" / "bin" / "pip").exists()
    reached_the_end(script, machine)


def test_without_python3_venv_a_failing_apt_get_says_so(tmp_path: Path) -> None:
    machine = Machine(tmp_path, has_venv_module=False, apt_fails=True)
    done = machine.run(".ci/app", DPKG_STATUS)
    assert done.returncode == 1
    assert machine.installs() == [["python3-venv"]]
    assert done.stderr.splitlines()[-1] == \
        f"setup: apt-get could not install python3-venv: {APT_ERROR.format('python3-venv')}", done.stderr
    assert not (machine.clone / ".venv").exists(), "a half-made venv must not pass for one on the next run"
    assert machine.tools() == []
