"""`pip install .` (not editable) gives a working `sembench` from any directory, with the bundled snapshots
and assets found as installed data, not through the checkout; `sembench` alone opens the workbench there."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from core.paths import DATA_ROOT
from tests.kit.terminal import in_a_terminal

pytestmark = pytest.mark.slow


def test_a_regular_install_works_from_another_directory(tmp_path: Path) -> None:
    source = tmp_path / "src"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=DATA_ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (DATA_ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(DATA_ROOT / name, source / name)
    venv = tmp_path / "venv"
    # No pip of its own (ensurepip costs ~7 s of CPU): the test environment's pip installs into it, run by
    # the new environment's interpreter (`pip --python`), as that environment's own pip would
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # the dependencies come from the test environment (no network needed): a .pth file points at them
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                           "--no-build-isolation", str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "SEMBENCH_DB": str(tmp_path / "log.db")}
    where = subprocess.run([str(python), "-c", "import core.paths as p; print(p.DATA_ROOT); print(p.asset('prompts'))"],
                           cwd=elsewhere, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert Path(where[0]) == venv / "share" / "sembench", "the data must come from the installed copy"
    families = subprocess.run([str(venv / "bin" / "sembench"), "families", "--format", "json"], cwd=elsewhere,
                              env=env, capture_output=True, text=True)
    assert families.returncode == 0, families.stderr
    assert {"cascade", "membership"} <= {row["family"] for row in json.loads(families.stdout)}
    listed = subprocess.run([str(venv / "bin" / "sembench"), "snapshot", "list", "--format", "json"],
                            cwd=elsewhere, env=env, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    bundled = {row["name"] for row in json.loads(listed.stdout) if row["origin"] == "bundled"}
    assert "pbebench-lite" in bundled, listed.stdout[:500]
    prompt_file = elsewhere / "one.jsonl"
    gen = subprocess.run([str(venv / "bin" / "sembench"), "generate", "cascade", "--preset", "cascade-demo",
                          "--seed", "0", "--count", "1", "--out", str(prompt_file)], cwd=elsewhere, env=env,
                         capture_output=True, text=True)
    assert gen.returncode == 0, gen.stderr
    prompt = subprocess.run([str(venv / "bin" / "sembench"), "prompt", "cascade", "--instances", str(prompt_file)],
                            cwd=elsewhere, env=env, capture_output=True, text=True)
    assert prompt.returncode == 0 and "replace" in prompt.stdout, prompt.stderr  # the template is installed
    installed = sorted(p.relative_to(venv / "share" / "sembench") for p in (venv / "share" / "sembench").rglob("*")
                       if p.is_file())
    shipped = sorted(p.relative_to(DATA_ROOT) for p in (DATA_ROOT / "assets").rglob("*") if p.is_file())
    assert set(shipped) <= set(installed)
    # files the packages read beside their code (prompt templates, Java helper sources) are installed too
    site_core = Path(site) / "core"
    package_data = [p.relative_to(DATA_ROOT / "core") for p in (DATA_ROOT / "core").rglob("*")
                    if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    missing = [str(p) for p in package_data if not (site_core / p).is_file()]
    assert missing == [], f"package data not installed: {missing}"
    # `sembench` with no verb opens the workbench on the installed snapshots, in a real terminal
    screen_env = {**env, "TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_STATE_HOME": str(tmp_path / "state"),
                  "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    code, screen = in_a_terminal([str(venv / "bin" / "sembench")], until=b"pbebench-lite", keys=b"q",
                                 cwd=elsewhere, env=screen_env)
    shown = screen.decode(errors="replace")
    assert code == 0, shown[-3000:]
    assert "Snapshots" in shown and "Traceback" not in shown
