"""Reading a folder made by someone else (a released dataset) without trusting it: the one walker and
reader every family's `snapshot import FOLDER` uses.

- Only regular files are read. Each is opened relative to the imported folder with O_NOFOLLOW on every
  path component (a folder swapped for a symlink half-way fails to open) and O_NONBLOCK (a FIFO never
  blocks), then checked with fstat on the opened descriptor (no gap between check and read), and at most
  MAX_FILE_BYTES + 1 bytes are read.
- A symlink is read only when it resolves to a regular file inside the folder; one that leads outside
  (`2.java -> /etc/passwd`), to a device, a FIFO or a folder is skipped and listed with the reason.
  FIFOs, sockets, devices and folders whose name a family would read (`task_2.hs.md/`) are skipped and
  listed too. Files the family does not read are ignored.
- The walk is iterative (no recursion error on any depth) and refuses, in one line, a folder deeper than
  MAX_DEPTH levels, holding more than MAX_FILES files to read or MAX_ENTRIES entries, or more than
  MAX_FOLDER_BYTES of them in all; a file larger than MAX_FILE_BYTES is skipped and listed.

`importing()` is the context the CLI opens around a family's `import_files`: it collects the skipped
entries, carries the progress callback and the `--no-verify` choice, so the families' `import_files(path)`
contract stays as it is. docs/imports-of-folders.md states the bounds and the rules.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from core.errors import UserError

# Far above the released datasets (TF-Bench: 188 task files of < 10 KB; StatType-SO: 268 snippets, the
# largest ~30 KB; FormalBench-style C collections: hundreds of files of < 100 KB; real sound-law data: a
# few thousand words per file), far below what exhausts memory.
MAX_FILE_BYTES = 8 * 2**20  # one file
MAX_FOLDER_BYTES = 512 * 2**20  # all files read from one folder
MAX_FILES = 100_000  # files read from one folder
MAX_ENTRIES = 1_000_000  # entries looked at (files of any name, folders)
MAX_DEPTH = 64  # levels of folders below the imported one
MAX_LISTED = 100  # skipped entries kept in the snapshot's meta (all are counted)

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True)
class FolderFile:
    """A regular file read from the folder: `rel` is its path inside it (the link's, for a symlink)."""

    root: Path
    rel: PurePosixPath
    data: bytes

    @property
    def path(self) -> Path:
        return self.root / self.rel

    def text(self, errors: str = "replace") -> str:
        return self.data.decode("utf-8", errors=errors)


@dataclass(frozen=True)
class Skipped:
    path: str  # as the user would type it: the folder joined with the entry's path inside it
    reason: str


@dataclass
class ImportContext:
    verify: bool = True  # False: `--no-verify`, references are not checked (nor parsed with a tool)
    progress: Callable[[str, int, int], None] | None = None  # (label, done, total)
    skipped: list[Skipped] = field(default_factory=list)


_CONTEXT: contextvars.ContextVar[ImportContext | None] = contextvars.ContextVar("sembench_import", default=None)


@contextlib.contextmanager
def importing(verify: bool = True, progress: Callable[[str, int, int], None] | None = None
              ) -> Iterator[ImportContext]:
    """The context of one `snapshot import`: what was skipped, where progress goes, whether to verify."""
    ctx = ImportContext(verify=verify, progress=progress)
    token = _CONTEXT.set(ctx)
    try:
        yield ctx
    finally:
        _CONTEXT.reset(token)


def current() -> ImportContext:
    """The open import context, or a default one (verify, no progress; skips are not collected)."""
    return _CONTEXT.get() or ImportContext()


def verify_references() -> bool:
    return current().verify


def report_progress(label: str, done: int, total: int) -> None:
    callback = current().progress
    if callback is not None:
        callback(label, done, total)


def skip(path: Path | str, reason: str) -> None:
    current().skipped.append(Skipped(str(path), reason))


# ---- single files ------------------------------------------------------------------------------------

def read_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """A file the user named (a symlink they chose is followed): a one-line error unless it is a regular
    file of at most `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UserError(f"cannot open ({exc.strerror or exc})", file=str(path)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"not a regular file ({kind(info.st_mode)}); nothing imported", file=str(path))
        data = _read_bounded(fd, limit)
    finally:
        os.close(fd)
    if data is None:
        raise UserError(f"larger than {_size(limit)}; nothing imported", file=str(path))
    return data


def check_regular(path: Path) -> None:
    """A one-line error when `path` (followed) is a device or a socket: `/dev/zero` read as instance JSONL
    is one line that never ends. A FIFO named by the user is theirs to feed (`<(zcat data.jsonl.gz)`)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise UserError(f"cannot read ({exc.strerror or exc})", file=str(path)) from None
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise UserError(f"not a regular file or folder ({kind(mode)}); nothing imported", file=str(path))


def kind_of(path: Path) -> str:
    """What `path` (followed) is, in words: "a FIFO", "a character device", "a folder"..."""
    try:
        return kind(os.stat(path).st_mode)
    except OSError as exc:
        return exc.strerror or "unreadable"


def kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISLNK, "a symlink")):
        if test(mode):
            return name
    return "not a regular file"


def _size(n: int) -> str:
    return f"{n // 2**20} MiB" if n >= 2**20 and n % 2**20 == 0 else f"{n} bytes"


def _read_bounded(fd: int, limit: int) -> bytes | None:
    """At most `limit` bytes from fd, or None when there are more (a file growing while read included)."""
    chunks: list[bytes] = []
    got = 0
    while got <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return None if got > limit else b"".join(chunks)


# ---- folders -----------------------------------------------------------------------------------------

def read_folder(root: Path, match: Callable[[PurePosixPath], bool], depth: int | None = None) -> list[FolderFile]:
    """The regular files under `root` whose path inside it `match`es, sorted by that path. `depth` is how
    many levels of folders below `root` the family looks at (0: root's own entries); None walks them all,
    refusing a tree deeper than MAX_DEPTH. Everything not read that `match`es is skipped and listed."""
    root = Path(root)
    try:
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise UserError(f"cannot open the folder ({exc.strerror or exc})", file=str(root)) from None
    try:
        wanted = _walk(root, root_fd, match, depth)
        files: list[FolderFile] = []
        total = 0
        for rel, target in wanted:
            data = _read_beneath(root, root_fd, rel, target)
            if data is None:
                continue
            total += len(data)
            if total > MAX_FOLDER_BYTES:
                raise UserError(f"more than {_size(MAX_FOLDER_BYTES)} of files to read; split the folder, nothing "
                                "imported", file=str(root))
            files.append(FolderFile(root, rel, data))
        return files
    finally:
        os.close(root_fd)


def _walk(root: Path, root_fd: int, match: Callable[[PurePosixPath], bool], depth: int | None
          ) -> list[tuple[PurePosixPath, PurePosixPath]]:
    """(path, path to read) of the entries to read: the same path, or a symlink's target inside root."""
    real_root = Path(os.path.realpath(root))
    wanted: list[tuple[PurePosixPath, PurePosixPath]] = []
    stack = [PurePosixPath()]
    entries = 0
    while stack:  # iterative: a tree of any depth costs no Python stack
        folder = stack.pop()
        fd = _open_dir(root_fd, folder)
        if isinstance(fd, str):
            skip(root / folder, f"a folder that {fd}; not read")
            continue
        listing = []
        try:
            with os.scandir(fd) as scan:  # scandir works on its own copy of fd
                for entry in scan:
                    entries += 1
                    if entries > MAX_ENTRIES:
                        raise UserError(f"more than {MAX_ENTRIES} entries; not a dataset folder, nothing imported",
                                        file=str(root))
                    try:  # here: an entry of scandir(fd) stats relative to the fd, closed after the loop
                        listing.append((entry.name, entry.stat(follow_symlinks=False).st_mode))
                    except OSError:
                        continue  # gone since listed
        finally:
            os.close(fd)
        for name, mode in sorted(listing):
            rel = folder / name
            if stat.S_ISDIR(mode):
                if match(rel):
                    skip(root / rel, "a folder named like a file to import; not read")
                if depth is None or len(rel.parts) <= depth:
                    if len(rel.parts) > MAX_DEPTH:
                        raise UserError(f"folders nested more than {MAX_DEPTH} levels deep (under "
                                        f"{PurePosixPath(*rel.parts[:3])}/...); not a dataset folder, nothing "
                                        "imported", file=str(root))
                    stack.append(rel)
            elif stat.S_ISLNK(mode):
                target = _link_target(real_root, root / rel)
                if isinstance(target, str):
                    if match(rel) or target.startswith("a symlink to a folder"):
                        skip(root / rel, target)
                elif match(rel):
                    wanted.append((rel, target))
            elif match(rel):
                if stat.S_ISREG(mode):
                    wanted.append((rel, rel))
                else:
                    skip(root / rel, f"{kind(mode)}, not a regular file; not read")
            if len(wanted) > MAX_FILES:
                raise UserError(f"more than {MAX_FILES} files to import; split the folder, nothing imported",
                                file=str(root))
    wanted.sort(key=lambda item: item[0].as_posix())
    return wanted


def _link_target(real_root: Path, link: Path) -> PurePosixPath | str:
    """The target's path inside root when the symlink leads to a regular file there, else why not."""
    try:
        target = Path(os.path.realpath(link, strict=True))
    except (OSError, RuntimeError):
        return "a symlink that leads nowhere (broken or a loop); not followed"
    if not target.is_relative_to(real_root):
        return f"a symlink to {target}, outside the folder; not followed"
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return "a symlink that leads nowhere; not followed"
    if stat.S_ISDIR(mode):
        return "a symlink to a folder; not followed"
    if not stat.S_ISREG(mode):
        return f"a symlink to {kind(mode)}; not followed"
    return PurePosixPath(target.relative_to(real_root).as_posix())


def _open_dir(root_fd: int, rel: PurePosixPath) -> int | str:
    """fd of the folder `rel` under root, opened one component at a time without following symlinks, or
    why it cannot be opened."""
    fd = os.dup(root_fd)
    for part in rel.parts:
        try:
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                return "changed while it was read (now a symlink or gone)"
            return f"cannot be opened ({exc.strerror or exc})"
        os.close(fd)
        fd = child
    return fd


def _read_beneath(root: Path, root_fd: int, rel: PurePosixPath, target: PurePosixPath) -> bytes | None:
    """The bytes of `target` under root (no symlink followed on the way), or None (skipped and listed)."""
    shown = root / rel
    parent = _open_dir(root_fd, target.parent)
    if isinstance(parent, str):
        skip(shown, f"its folder {parent}; not read")
        return None
    try:
        fd = os.open(target.name, _FILE_FLAGS, dir_fd=parent)
    except OSError as exc:
        skip(shown, f"cannot open it ({exc.strerror or exc}); not read")
        return None
    finally:
        os.close(parent)
    try:
        info = os.fstat(fd)  # the descriptor just opened: what is read is what was checked
        if not stat.S_ISREG(info.st_mode):
            skip(shown, f"{kind(info.st_mode)}, not a regular file; not read")
            return None
        if info.st_size > MAX_FILE_BYTES:
            skip(shown, f"larger than {_size(MAX_FILE_BYTES)} ({info.st_size} bytes); not read")
            return None
        data = _read_bounded(fd, MAX_FILE_BYTES)
        if data is None:
            skip(shown, f"grew beyond {_size(MAX_FILE_BYTES)} while read; not read")
        return data
    finally:
        os.close(fd)
