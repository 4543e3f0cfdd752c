"""What a confined run sees, listed from inside and compared with the allowed set (docs/sandbox.md): its
environment, its mounts, the environment of the processes it can see, and the host's Unix sockets it can
reach (none). Real bubblewrap, a real gcc-built C program, real Unix-socket servers on the host."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import threading
import uuid
from pathlib import Path

import pytest

from core.tools import Tool, run, sandbox

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("bwrap") is None,
                                reason="needs gcc and bubblewrap (bash .ci/setup installs them)")

PROGRAM = Tool("sh-program", "sh", "dash", version_args=("-c", "echo 1"), confine="program")
COMPILER = Tool("sh-compiler", "sh", "dash", version_args=("-c", "echo 1"), confine="tool")
SECRET = "sk-ant-" + "Zq8" * 10 + "xYw"  # what the user's environment holds and no run may see
TOKEN = "ghp_" + "R2d2C3po" * 4

# Lists, from inside: every variable of its environment (and of pid 1's and its parent's, through /proc),
# every mount point, the processes it can see, and whether each Unix socket named on its command line
# accepts a connection.
VIEW_C = r"""
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
extern char **environ;
static void environ_of(const char *label, const char *path) {
  FILE *f = fopen(path, "r"); char buf[65536]; size_t n;
  if (!f) { printf("%s unreadable %s\n", label, strerror(errno)); return; }
  n = fread(buf, 1, sizeof buf - 1, f); fclose(f); buf[n] = 0;
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1) printf("%s %s\n", label, buf + i);
}
int main(int argc, char **argv) {
  for (char **e = environ; *e; e++) printf("env %s\n", *e);
  char path[64]; snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
  environ_of("parentenv", path);
  environ_of("pid1env", "/proc/1/environ");
  FILE *m = fopen("/proc/self/mountinfo", "r"); char line[4096];
  while (m && fgets(line, sizeof line, m)) { char point[4096];
    if (sscanf(line, "%*s %*s %*s %*s %4095s", point) == 1) printf("mount %s\n", point); }
  DIR *d = opendir("/proc"); struct dirent *ent; int procs = 0;
  while (d && (ent = readdir(d))) if (ent->d_name[0] >= '0' && ent->d_name[0] <= '9') procs++;
  printf("processes %d\n", procs);
  for (int i = 1; i < argc; i++) {
    int s = socket(AF_UNIX, SOCK_STREAM, 0); struct sockaddr_un a = {0}; a.sun_family = AF_UNIX;
    socklen_t len = sizeof a;
    if (argv[i][0] == '@') { strncpy(a.sun_path + 1, argv[i] + 1, sizeof a.sun_path - 2);
      len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(argv[i] + 1)); }
    else strncpy(a.sun_path, argv[i], sizeof a.sun_path - 1);
    if (connect(s, (struct sockaddr *)&a, len) == 0) printf("socket %s connected\n", argv[i]);
    else printf("socket %s %s\n", argv[i], strerror(errno));
  }
  return 0;
}
"""
VIEW_C = VIEW_C.replace("#include <unistd.h>", "#include <unistd.h>\n#include <stddef.h>")


class Listener:
    """A Unix-socket server on the host that records every connection it accepts."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.accepted = 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind("\0" + address[1:] if address.startswith("@") else address)
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join()
        self.sock.close()
        if not self.address.startswith("@"):
            Path(self.address).unlink(missing_ok=True)


@pytest.fixture
def listeners():
    """Servers where a desktop's sockets live: the host's /tmp and /run (as root; /run/user/UID holds a
    user's session bus), and the abstract namespace (docker and X11 use it)."""
    made: list[Listener] = []
    tmp = Path(tempfile.mkdtemp(prefix="sembench-sock-", dir="/tmp"))
    places = [str(tmp / "agent.sock"), f"@sembench-test-{uuid.uuid4().hex}"]
    if os.access("/run", os.W_OK):
        places.append(f"/run/sembench-test-{uuid.uuid4().hex}.sock")
    try:
        for place in places:
            made.append(Listener(place))
        yield made
    finally:
        for listener in made:
            listener.close()
        shutil.rmtree(tmp, ignore_errors=True)


def _view(tool: Tool, sockets: list[str]) -> list[str]:
    script = ("gcc -O0 -w -o view view.c > cc.log 2>&1 || { cat cc.log; exit 3; }\n"
              f"./view {' '.join(sockets)}\n")
    result = run(tool, ["-c", script], {"view.c": VIEW_C}, timeout_s=120, cache=False)
    assert result.rc == 0, result
    return result.stdout.splitlines()


def _names(lines: list[str], label: str) -> set[str]:
    return {line.split(" ", 1)[1].split("=", 1)[0] for line in lines if line.startswith(label + " ")}


def _system_mounts() -> set[str]:
    found = set(sandbox.SYSTEM)
    found |= {top for top in sandbox.MERGED if os.path.isdir(top) and not os.path.islink(top)}
    return found | {path for path in sandbox.ETC if os.path.exists(path)}


# bwrap's own: a minimal /dev (the devices it binds, a devpts), /proc, and a root of its own
BWRAP_MOUNTS = {"/", "/proc", "/dev", "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
                "/dev/pts", "/tmp"}
# bwrap run as root covers these parts of its /proc with read-only binds of themselves
PROC_COVERS = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"}
# what the shells on the way export themselves: a program's limits are set by bash (SHLVL), a tool's by
# dash; both export PWD
PROGRAM_SHELL = {"PWD", "SHLVL"}
TOOL_SHELL = {"PWD"}


def test_a_program_sees_only_the_allowed_view(listeners, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    lines = _view(PROGRAM, [listener.address for listener in listeners])
    text = "\n".join(lines)
    assert SECRET not in text and TOKEN not in text
    assert _names(lines, "env") == {"PATH", "LANG", "TMPDIR", "HOME"} | PROGRAM_SHELL
    assert f"env HOME={sandbox.WORK}" in lines and "env TMPDIR=/tmp" in lines
    assert f"env PATH={sandbox.PATH_INSIDE}" in lines
    assert _names(lines, "pid1env") == {"PATH", "LANG"}  # bwrap's own process in the sandbox
    assert _names(lines, "parentenv") == {"PATH", "LANG", "TMPDIR", "HOME"} | PROGRAM_SHELL
    assert {line.split(" ", 1)[1] for line in lines if line.startswith("mount ")} == BWRAP_MOUNTS | _system_mounts()
    assert int(next(line for line in lines if line.startswith("processes ")).split()[1]) <= 5  # its own pid space
    for listener in listeners:
        said = next(line for line in lines if line.startswith(f"socket {listener.address} "))
        assert said.endswith("No such file or directory") or said.endswith("Connection refused"), said
        assert listener.accepted == 0


def test_a_tool_sees_the_same_view_and_its_private_directory(listeners, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    lines = _view(COMPILER, [listener.address for listener in listeners])
    text = "\n".join(lines)
    assert SECRET not in text
    assert _names(lines, "env") == {"PATH", "LANG", "TMPDIR", "HOME"} | TOOL_SHELL
    assert _names(lines, "pid1env") == {"PATH", "LANG"}
    mounts = {line.split(" ", 1)[1] for line in lines if line.startswith("mount ")}
    private = {m for m in mounts if m.startswith(str(tmp_path) + "/sembench-tool-")}
    assert len(private) == 1  # its private directory, bound at its own path: nothing else of the host's /tmp
    assert mounts - private - PROC_COVERS == BWRAP_MOUNTS | _system_mounts()
    for listener in listeners:
        assert listener.accepted == 0


# ---- as an ordinary user --------------------------------------------------------------------------
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def ordinary_user(tmp_path):
    """A user made for the test (`useradd`), with a private key and a sembench configuration holding an
    API key in its home, as on a workstation."""
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("makes a user (needs root and useradd; CI runs as root)")
    import subprocess

    name = f"sbx{os.getpid()}{uuid.uuid4().hex[:6]}"
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", name], check=True, capture_output=True)
    try:
        home = Path(f"/home/{name}")
        (home / ".ssh").mkdir(mode=0o700)
        (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY----- private-key-bytes\n")
        (home / ".config" / "sembench").mkdir(parents=True)
        (home / ".config" / "sembench" / "config.toml").write_text(f'[anthropic]\napi_key = "{SECRET}"\n')
        subprocess.run(["chown", "-R", f"{name}:{name}", str(home)], check=True)
        (home / ".ssh" / "id_rsa").chmod(0o600)
        yield name, home
    finally:
        subprocess.run(["userdel", "--remove", name], check=False, capture_output=True)


def _as_user(name: str, home: Path, code: str) -> str:
    """Run `code` with sembench's runner as `name` (the way sembench run by that user would run it)."""
    import subprocess
    import sysconfig

    user = ["setpriv", f"--reuid={name}", f"--regid={name}", "--init-groups"]
    # the test's own interpreter, or the system's of the same version where the user cannot reach it
    # (a pyenv under /root)
    candidates = [sys.executable, f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"]
    python = next((c for c in candidates if os.path.exists(c) and subprocess.run(
        [*user, c, "-c", "pass"], cwd="/", capture_output=True).returncode == 0), None)
    if python is None:
        pytest.skip(f"no Python {sys.version_info.major}.{sys.version_info.minor} the test user can run")
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8",
           "PYTHONPATH": f"{REPO}:{sysconfig.get_paths()['purelib']}", "ANTHROPIC_API_KEY": SECRET}
    done = subprocess.run([*user, python, "-c", code],
                          env=env, cwd="/", capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_users_home_is_absent_for_what_runs_as_that_user(ordinary_user) -> None:
    name, home = ordinary_user
    reads = (f"cat {home}/.ssh/id_rsa {home}/.config/sembench/config.toml; ls {home}; "
             "cat /proc/1/environ /proc/$PPID/environ | tr '\\0' '\\n'; echo")
    code = ("import sys; from core.tools import Tool, configure, run\n"
            "configure(None)\n"
            "for level in ('program', 'tool'):\n"
            "    tool = Tool('sh-' + level, 'sh', 'dash', version_args=('-c', 'echo 1'), confine=level)\n"
            f"    result = run(tool, ['-c', {reads!r}], cache=False)\n"
            "    print('@@', level, result.rc, result.stdout, result.stderr)\n")
    said = _as_user(name, home, code)
    assert said.count("@@") == 2
    assert "private-key-bytes" not in said and SECRET not in said and "ANTHROPIC" not in said
    for level in ("program", "tool"):
        part = said.split(f"@@ {level} ")[1].split("@@")[0]
        assert f"{home}/.ssh/id_rsa: No such file or directory" in part, part
        assert f"{home}/.config/sembench/config.toml: No such file or directory" in part
        assert f"{home}': No such file or directory" in part  # no home at all
