"""A new user who is not root, on a machine without the families' tools: a real unprivileged account
(useradd), a fresh clone it owns, a PATH without any tool a family declares (nor bubblewrap) and a dpkg
that lacks some of set-up's packages. `bash .ci/app`, the README's command, creates the venv and opens the
workbench; cascade and membership run fully; `sembench families` and `sembench doctor` say which family
is not ready and the command that installs what it lacks; a run of such a family stops at once with that
command, recording no attempt.

The venv is made by set-up itself; its packages come from the test's own environment (bound read-only
into the sandbox and put on PYTHONPATH, pip told to use no index), so that no network is needed; the
code is the clone's (the traceback of a failure names its files)."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.family import all_families
from core.paths import DATA_ROOT
from tests.kit.debian import DPKG_STATUS, status_without
from tests.kit.terminal import in_a_terminal

pytestmark = [
    pytest.mark.slow,
    pytest.mark.bwrap,
    pytest.mark.skipif(os.geteuid() != 0 and not os.environ.get("CI"),
                       reason="makes a user account and runs as it: needs root"),
]

# one account per pytest-xdist worker: this module's tests may run on several at once, and each worker
# deletes the account it made when its share is done
USER = f"sembench-nu-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
SITE = "/opt/sembench-test-site"  # where the test's site-packages are seen inside the sandbox
WAIT_S = 900.0
ABSENT = {"ghc", "openjdk-17-jdk-headless", "frama-c-base"}  # packages dpkg does not list on this machine


@pytest.fixture(scope="module")
def user() -> Iterator[pwd.struct_passwd]:
    created = False
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
                        "--shell", "/bin/bash", USER], check=True)
        created = True
    try:
        yield pwd.getpwnam(USER)
    finally:
        if created:
            subprocess.run(["userdel", USER], check=False)


def family_tools() -> set[str]:
    """Every executable some family declares, and bubblewrap (the sandbox): none of them on the user's PATH
    (but the shell, which the gcc tool runs through)."""
    names = {"bwrap"}
    for fam in all_families().values():
        for tool in fam.requires:
            names |= {tool.executable, *tool.extra}
    return names - {"sh", "bash"}


def path_without_tools(folder: Path) -> str:
    """A folder of links to every program of the system's bin folders but the families' tools."""
    folder.mkdir()
    left_out = family_tools()
    for directory in ("/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"):
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            if entry.name not in left_out and not (folder / entry.name).exists():
                (folder / entry.name).symlink_to(entry.path)
    assert not any(shutil.which(t, path=str(folder)) for t in left_out)
    return str(folder)


class Account:
    """The user's home, its clone of the repository, and how to run a command as the user there."""

    def __init__(self, entry: pwd.struct_passwd, base: Path) -> None:
        self.entry = entry
        self.base = base
        self.clone = base / "clone"
        self.home = base / "home"
        subprocess.run(["git", "clone", "-q", str(DATA_ROOT), str(self.clone)], check=True)
        self.home.mkdir()
        self.path = path_without_tools(base / "bin")
        self.status = status_without(ABSENT, base / "status")
        self.deps = self.dependencies(base / "deps")
        subprocess.run(["chown", "-R", f"{entry.pw_uid}:{entry.pw_gid}", str(self.clone), str(self.home)], check=True)

    @staticmethod
    def dependencies(folder: Path) -> Path:
        """The test environment's packages, as links into SITE, but sembench itself: its editable install
        would import the code of this checkout (the same finder module name as the clone's)."""
        folder.mkdir()
        for entry in os.scandir(sysconfig.get_paths()["purelib"]):
            if not entry.name.startswith(("__editable__", "sembench-", "__pycache__")):
                (folder / entry.name).symlink_to(f"{SITE}/{entry.name}")
        return folder

    def argv(self, *command: str) -> list[str]:
        env = {"PATH": self.path, "HOME": str(self.home), "LANG": "C.UTF-8", "TERM": "xterm-256color",
               "PYTHONPATH": str(self.deps), "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
               "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        return ["bwrap", "--dev-bind", "/", "/", "--ro-bind", sysconfig.get_paths()["purelib"], SITE,
                "--bind", str(self.status), str(DPKG_STATUS), "--chdir", str(self.clone), "--",
                "setpriv", f"--reuid={self.entry.pw_uid}", f"--regid={self.entry.pw_gid}", "--init-groups",
                "env", "-i", *(f"{k}={v}" for k, v in env.items()), *command]

    def run(self, *command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(*command), capture_output=True, text=True, timeout=WAIT_S)


@pytest.fixture(scope="module")
def account(user: pwd.struct_passwd) -> Iterator[Account]:
    base = Path(tempfile.mkdtemp(prefix="sembench-newuser-", dir="/tmp"))
    base.chmod(0o755)  # the user reaches its home and clone through it
    try:
        yield Account(user, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_the_readme_command_opens_the_workbench_for_a_user_who_is_not_root(account: Account) -> None:
    code, screen = in_a_terminal(account.argv("bash", ".ci/app"), until=b"tools missing", keys=b"q", wait_s=WAIT_S)
    said = screen.decode(errors="replace")
    assert code == 0, said[-3000:]
    assert "setup: not installing Debian packages (needs root and apt-get)" in said
    assert "setup: installing Python packages into .venv" in said
    assert (account.clone / ".venv" / "bin" / "sembench").exists()
    assert (account.clone / ".venv").stat().st_uid == account.entry.pw_uid
    where = account.run(str(account.clone / ".venv" / "bin" / "python"), "-c", "import tui; print(tui.__file__)")
    assert where.stdout.strip() == str(account.clone / "tui" / "__init__.py"), where


def test_families_say_what_is_missing_and_how_to_install_it(account: Account) -> None:
    sembench = str(account.clone / ".venv" / "bin" / "sembench")
    if not Path(sembench).exists():
        account.run("bash", ".ci/setup")
    listed = account.run(sembench, "families", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    rows = {row["family"]: row for row in json.loads(listed.stdout)}
    assert rows["cascade"]["ready"] and rows["membership"]["ready"]
    assert rows["typeinf"]["ready"], "GHC is the second oracle, not what checks answers"
    assert not rows["imports"]["ready"] and not rows["specs"]["ready"]
    assert rows["imports"]["install"] == "sudo apt-get install openjdk-17-jdk-headless"
    assert rows["specs"]["install"] == "sudo apt-get install frama-c-base why3 cvc4 z3 gcc bubblewrap"
    text = account.run(sembench, "families").stdout
    assert "not ready: javac, java missing; install with: sudo apt-get install openjdk-17-jdk-headless" in text
    doctor = account.run(sembench, "doctor", "--format", "json")
    assert doctor.returncode == 0, doctor.stderr
    report = json.loads(doctor.stdout)
    tools = {t["tool"]: t for row in report["families"] for t in row["tools"]}
    assert tools["javac"]["path"] is None and tools["javac"]["version"] is None
    assert not report["sandbox"]["works"] and "bubblewrap" in report["sandbox"]["problem"]


def test_cascade_and_membership_run_fully_and_the_others_stop_at_once(account: Account) -> None:
    sembench = str(account.clone / ".venv" / "bin" / "sembench")
    if not Path(sembench).exists():
        account.run("bash", ".ci/setup")
    for snapshot in ("pag-demo", "cascade-demo"):
        done = account.run(sembench, "run", "--snapshot", snapshot, "--solver", "baseline", "--limit", "16")
        assert done.returncode == 0, done.stderr
        assert "finished, 16/16 attempts, accuracy 100.0%, 0 errors" in done.stdout, done.stdout
    stopped = account.run(sembench, "run", "--snapshot", "thalia-jdk", "--solver", "baseline", "--limit", "4")
    assert stopped.returncode == 2, stopped.stderr[-3000:]
    line = stopped.stderr.strip().splitlines()[-1]
    assert "'javac' is not installed" in line and "sudo apt-get install openjdk-17-jdk-headless" in line, line
    assert "0 of 4 attempts recorded" in line, line
