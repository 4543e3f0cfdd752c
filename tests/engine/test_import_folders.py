"""`sembench snapshot import FOLDER` reads only regular files inside the folder, within
stated bounds, walks any depth without a recursion error, shows progress, stops cleanly on SIGTERM/SIGINT,
and `--no-verify` imports without checking references. Real files, FIFOs, symlinks and processes.

Every CLI run here is a subprocess with a time-out and an address-space limit: on the code before the
change a FIFO blocked forever and a `/dev/zero` symlink grew the process until the kernel killed it."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import core.folders as folders
from core.errors import UserError
from core.family import get_family
from core.store import LogStore

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "families"
TFBENCH = FIXTURES / "typeinf" / "fixtures" / "tfbench"
JAVA = FIXTURES / "imports" / "fixtures" / "so" / "jdk" / "Jdk12.java"
C_FILE = FIXTURES / "specs" / "fixtures" / "binary_search.c"
SLI = FIXTURES / "cascade" / "fixtures" / "released" / "real_sli" / "atr_niue"
DEEP = 2100


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # the old /dev/zero case dies here, not the VM


def sembench(*args: str, db: Path, timeout: float = 600, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PYTHONPATH": str(REPO), "SEMBENCH_DB": str(db), **(env or {})}
    return subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True, timeout=timeout,
                          env=environ, preexec_fn=_limit, cwd=REPO)


def _make(path: Path, kind: str) -> str:
    """Make one entry that must not be read at `path`; return the words its listed reason must hold."""
    if kind in ("zero", "passwd"):
        path.symlink_to("/dev/zero" if kind == "zero" else "/etc/passwd")
        return "outside the folder"
    if kind == "fifo":
        os.mkfifo(path)
        return "a FIFO"
    if kind == "dir":
        path.mkdir()
        return "a folder named like"
    with path.open("wb") as fh:  # sparse: 8 MiB + 1 on disk costs nothing
        fh.truncate(folders.MAX_FILE_BYTES + 1)
    return "larger than 8 MiB"


KINDS = ("zero", "passwd", "fifo", "dir", "big")


def _hostile(folder: Path, task_name: str) -> dict[str, str]:
    """Entries named like task files that must not be read, each with the words its reason must hold."""
    return {task_name.format(kind): _make(folder / task_name.format(kind), kind) for kind in KINDS}


def _layout(family: str, root: Path) -> tuple[Path, dict[str, str], int]:
    """(folder to import, hostile entries, number of good instances) for each family importing folders."""
    if family == "typeinf":
        shutil.copytree(TFBENCH, root)
        return root, _hostile(root, "task_{}.hs.md"), len(list(TFBENCH.glob("*.md")))
    if family == "imports":
        (root / "jdk").mkdir(parents=True)
        shutil.copy(JAVA, root / "jdk" / "Good.java")
        return root, _hostile(root / "jdk", "{}.java"), 1
    if family == "specs":
        (root / "sub").mkdir(parents=True)
        shutil.copy(C_FILE, root / "sub" / "good.c")
        (root / "alias.c").symlink_to(root / "sub" / "good.c")  # a symlink to a file inside the folder: read
        return root, _hostile(root / "sub", "{}.c"), 2
    # cascade: a folder of language folders, each holding words.in and words.out
    root.mkdir()
    shutil.copytree(SLI, root / "good")
    hostile = {}
    for kind in KINDS:
        (root / kind).mkdir()
        shutil.copy(SLI / "words.out", root / kind / "words.out")
        hostile[f"{kind}/words.in"] = _make(root / kind / "words.in", kind)
    return root, hostile, 1


FAMILIES = ["typeinf", "imports", "specs", "cascade"]


@pytest.mark.parametrize("family", FAMILIES)
def test_only_regular_files_inside_the_folder_are_read(family: str, tmp_path: Path) -> None:
    """Symlinks out (/etc/passwd, /dev/zero), a FIFO, a folder named like a task file and an
    oversized file are skipped, each listed with its reason; the good files are imported; `snapshot export`
    holds nothing from /etc/passwd."""
    folder, hostile, good = _layout(family, tmp_path / "data")
    db = tmp_path / "log.db"
    # cascade's check is pure Python, so it runs in full here; the others skip the tools (--no-verify)
    verify = [] if family == "cascade" else ["--no-verify"]
    result = sembench("snapshot", "import", str(folder), "--family", family, "--name", "s", *verify, db=db)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    skipped = {line.split(": skipped: ")[0]: line.split(": skipped: ")[1]
               for line in result.stderr.splitlines() if ": skipped: " in line}
    for name, reason in hostile.items():
        shown = next((k for k in skipped if k.endswith("/" + name)), None)
        assert shown is not None, f"{name} not listed: {result.stderr}"
        assert reason in skipped[shown]
    assert f"imported {good} instances" in result.stdout
    export = sembench("snapshot", "export", "s", db=db)
    assert export.returncode == 0 and "root:x:0:0" not in export.stdout
    (meta,) = [json.loads(r[0]) for r in LogStore(db).db.execute("select meta from snapshots where name='s'")]
    assert meta["n_skipped"] == len(hostile)
    assert (meta.get("verified") is False) == bool(verify)


def _deep_tree(root: Path, levels: int, leaf: str, data: bytes) -> None:
    """`levels` nested folders `d/d/...` with `leaf` at the bottom (made relative to each folder: the path
    is longer than PATH_MAX)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    leaf_fd = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(leaf_fd, data)
    os.close(leaf_fd)
    os.close(fd)


def _remove_deep(root: Path) -> None:
    """shutil.rmtree recurses once per level: remove the tree bottom-up without recursion."""
    fds = [os.open(root, os.O_RDONLY | os.O_DIRECTORY)]
    while "d" in os.listdir(fds[-1]):
        fds.append(os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
    while fds:
        fd = fds.pop()
        for name in os.listdir(fd) if fds else ():  # the chain's own leaf; the root's other entries stay
            if name != "d":
                os.unlink(name, dir_fd=fd)
        if fds:
            os.close(fd)
            os.rmdir("d", dir_fd=fds[-1])
        else:
            os.close(fd)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_2100_level_tree_is_one_line_error_or_ignored(family: str, tmp_path: Path) -> None:
    """No RecursionError on a 2,100-level tree. Families that walk the whole tree (imports, specs)
    refuse it in one line naming the depth bound; those that look one or two levels down (typeinf's
    task files, cascade's language folders) import the rest as before."""
    folder, _, good = _layout(family, tmp_path / "data")
    leaf = {"typeinf": "task_9.hs.md", "imports": "Deep.java", "specs": "deep.c", "cascade": "words.in"}[family]
    _deep_tree(folder, DEEP, leaf, b"x")
    try:
        result = sembench("snapshot", "import", str(folder), "--family", family, "--name", "s", "--no-verify",
                          db=tmp_path / "log.db")
    finally:
        _remove_deep(folder)
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr
    if family in ("imports", "specs"):
        assert result.returncode == 2
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith(f"error: {folder}: folders nested more than {folders.MAX_DEPTH} levels deep")
    else:
        assert result.returncode == 0, result.stderr
        assert f"imported {good} instances" in result.stdout


def test_folder_bounds_are_one_line_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """More files, or more bytes in all, than the folder bounds: one UserError, nothing read beyond."""
    for i in range(5):
        (tmp_path / f"{i}.c").write_bytes(b"x" * 1000)
    match = lambda rel: rel.suffix == ".c"  # noqa: E731
    assert len(folders.read_folder(tmp_path, match)) == 5
    monkeypatch.setattr(folders, "MAX_FILES", 3)
    with pytest.raises(UserError, match="more than 3 files to import"):
        folders.read_folder(tmp_path, match)
    monkeypatch.setattr(folders, "MAX_FILES", 100)
    monkeypatch.setattr(folders, "MAX_FOLDER_BYTES", 2500)
    with pytest.raises(UserError, match="more than 2500 bytes of files to read"):
        folders.read_folder(tmp_path, match)
    monkeypatch.setattr(folders, "MAX_ENTRIES", 4)
    with pytest.raises(UserError, match="more than 4 entries"):
        folders.read_folder(tmp_path, match)


def test_a_named_device_is_one_line_error_and_a_named_pipe_is_read(tmp_path: Path) -> None:
    """A symlink to /dev/zero named on the command line is refused at once (read as instance JSONL it was
    one line that never ends); a FIFO the user feeds (process substitution) is read as before."""
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    result = sembench("snapshot", "import", str(tmp_path / "zero.jsonl"), "--family", "cascade", "--name", "s",
                      db=tmp_path / "log.db", timeout=120)
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert "not a regular file or folder (a character device)" in line

    cascade = get_family("cascade")
    rows = [inst.to_json_dict() for inst in cascade.generate(cascade.resolve_params("pbebench-lite"), 0, 3)]
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", 'cat > "$0"', str(fifo)], stdin=subprocess.PIPE, text=True)
    writer.stdin.write("".join(json.dumps(r) + "\n" for r in rows))  # type: ignore[union-attr]
    writer.stdin.close()  # type: ignore[union-attr]
    result = sembench("snapshot", "import", str(fifo), "--family", "cascade", "--name", "p", db=tmp_path / "log.db",
                      timeout=120)
    writer.wait(timeout=60)
    assert result.returncode == 0 and "imported 3 instances" in result.stdout, result.stderr


def test_no_verify_imports_without_checking_and_says_so(tmp_path: Path) -> None:
    """--no-verify imports instances whose ground truth would not verify, and the snapshot's meta
    says none was checked."""
    cascade = get_family("cascade")
    rows = [inst.to_json_dict() for inst in cascade.generate(cascade.resolve_params("pbebench-lite"), 0, 3)]
    rows[1]["outputs"][0] = "zzzz"
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    db = tmp_path / "log.db"
    refused = sembench("snapshot", "import", str(path), "--family", "cascade", "--name", "c", db=db)
    assert refused.returncode == 2 and "does not verify" in refused.stderr
    result = sembench("snapshot", "import", str(path), "--family", "cascade", "--name", "c", "--no-verify", db=db)
    assert result.returncode == 0 and "does not verify" not in result.stderr
    assert "not verified (--no-verify)" in result.stdout
    (meta,) = [json.loads(r[0]) for r in LogStore(db).db.execute("select meta from snapshots where name='c'")]
    assert meta["verified"] is False


def test_progress_is_reported_for_reading_and_checking(tmp_path: Path) -> None:
    """The import reports progress as it goes (the CLI draws it as a bar on a terminal): specs'
    files one by one, the ground-truth check batch by batch."""
    from core.groundtruth import check_ground_truth

    for i in range(5):
        shutil.copy(C_FILE, tmp_path / f"p{i}.c")
    seen: list[tuple[str, int, int]] = []
    with folders.importing(verify=False, progress=lambda *a: seen.append(a)):
        instances = get_family("specs").import_files(tmp_path)
    assert len(instances) == 5 and "annotations_parse" not in instances[0].meta  # --no-verify: no tool run
    assert seen[0] == ("reading C files", 0, 5) and seen[-1] == ("reading C files", 5, 5)
    assert [done for _, done, _ in seen] == list(range(6))

    cascade = get_family("cascade")
    items = [(f"item {i}", inst) for i, inst in enumerate(cascade.generate(cascade.resolve_params("pbebench-lite"),
                                                                            0, 40))]
    steps: list[tuple[int, int]] = []
    bad, _ = check_ground_truth(cascade, items, lambda done, total: steps.append((done, total)))
    assert not bad and steps[0] == (0, 40) and steps[-1] == (40, 40) and len(steps) > 2


@pytest.mark.framac
@pytest.mark.parametrize(("signum", "phase"), [(signal.SIGTERM, "parse"), (signal.SIGINT, "parse"),
                                               (signal.SIGTERM, "check")],
                         ids=["SIGTERM-parse", "SIGINT-parse", "SIGTERM-check"])
def test_a_long_specs_import_stops_cleanly_on_a_signal(signum: int, phase: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A signal during a long specs import (many files, one Frama-C parse check each, then each
    reference verified) ends it with one line and a non-zero exit, leaves no `sembench-tool-*` directory
    and writes nothing. For the check phase, the parse checks are answered from the tool cache (filled
    here first), so the first tool directory seen is a verification's."""
    folder = tmp_path / "many"
    folder.mkdir()
    text = C_FILE.read_text()
    for i in range(400 if phase == "parse" else 6):  # each file different: no check answered from the cache
        (folder / f"p{i:03}.c").write_text(f"{text}\n// copy {i}\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    db = tmp_path / "log.db"
    if phase == "check":
        monkeypatch.setenv("SEMBENCH_DB", str(db))
        from core.tools import cache

        previous = cache._CACHE
        cache.configure(db)
        try:
            assert len(get_family("specs").import_files(folder)) == 6
        finally:
            cache._CACHE = previous
    environ = {**os.environ, "PYTHONPATH": str(REPO), "SEMBENCH_DB": str(db), "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-m", "core", "snapshot", "import", str(folder), "--family", "specs",
                             "--name", "s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ,
                            cwd=REPO)
    try:
        deadline = time.monotonic() + 300
        while not list(tmp.glob("sembench-tool-*")):  # Frama-C is running: the import is under way
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no tool started"
            time.sleep(0.05)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["error: interrupted"]
    assert not list(tmp.glob("sembench-tool-*"))
    assert not db.exists() or not list(LogStore(db).db.execute("select name from snapshots"))


@pytest.mark.framac
def test_the_ground_truth_check_of_specs_skips_completeness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An import asks only whether each reference verifies, so specs' check runs no mutants
    (completeness: 8 more WP runs per reference, 60 s against 20 s for one reference on a loaded VM)."""
    import core.groundtruth as groundtruth

    monkeypatch.setenv("SEMBENCH_DB", str(tmp_path / "cache.db"))
    fam = get_family("specs")
    (inst,) = fam.import_files(C_FILE)
    seen = []
    real = fam.check_many
    monkeypatch.setattr(fam, "check_many", lambda items: seen.extend(real(items)) or seen)
    bad, _ = groundtruth.check_ground_truth(fam, [("item 1", inst)])
    (answer, verdict), = seen
    assert not bad and verdict.correct and "completeness" not in verdict.details


def test_a_folder_swapped_for_a_symlink_after_the_walk_is_not_followed(tmp_path: Path) -> None:
    """No TOCTOU: the reader opens each path component with O_NOFOLLOW, so a folder replaced by a
    symlink to a folder outside between listing and reading is skipped, not read through."""
    root, outside = tmp_path / "data", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "sub" / "a.c").write_text("int a;\n")
    (outside / "a.c").write_text("SECRET\n")
    with folders.importing() as context:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            wanted = folders._walk(root, fd, lambda rel: rel.suffix == ".c", None)
            assert [str(rel) for rel, _ in wanted] == ["sub/a.c"]
            shutil.rmtree(root / "sub")
            (root / "sub").symlink_to(outside)  # the swap, after the walk
            assert folders._read_beneath(root, fd, *wanted[0]) is None
        finally:
            os.close(fd)
    (skipped,) = context.skipped
    assert skipped.path == str(root / "sub" / "a.c") and "changed while it was read" in skipped.reason


def test_file_names_reach_the_terminal_escaped(tmp_path: Path) -> None:
    """Names of files in an imported folder are printed in the "skipped" lines with their control
    characters escaped: an OSC 52 sequence (which sets the clipboard in terminals that allow it), a CSI
    sequence and a newline (a forged line) stay text on one line."""
    folder = tmp_path / "data"
    shutil.copytree(TFBENCH, folder)
    names = ["task_\x1b]52;c;ZWNobyBwd25lZA==\x07.hs.md", "task_\x1b[2J\x1b[31mred.hs.md",
             "task_x\nerror: forged line.hs.md"]
    for name in names:
        (folder / name).symlink_to("/etc/passwd")  # out of the folder: skipped, and listed by name
    result = sembench("snapshot", "import", str(folder), "--family", "typeinf", "--name", "s", "--no-verify",
                      db=tmp_path / "log.db")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr and "\x1b" not in result.stdout
    skipped = [line for line in result.stderr.splitlines() if ": skipped: " in line]
    assert len(skipped) == len(names), result.stderr
    assert not any(line.startswith("error: forged line") for line in result.stderr.splitlines())
    assert any("]52;c;ZWNobyBwd25lZA==" in line for line in skipped), skipped  # shown, escaped
