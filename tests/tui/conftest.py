"""Fixtures for the workbench tests: temporary snapshot and log databases built from generated instances.

The snapshots database stands in for the bundled `snapshots.db` and is opened read-only by the app;
`workbench` checks after each test that the app never wrote it.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.family import get_family
from core.instance import Instance, Snapshot
from core.store import LogStore, SnapshotStore
from tests.kit.pilot import render_text, settle, until

__all__ = ["render_text", "settle", "until"]  # the tests import them from here

CASCADE_SNAPSHOT = "cascade-demo"
MEMBERSHIP_SNAPSHOT = "membership-demo"
CASCADE_N = 12
MEMBERSHIP_N = 8
SEED = 7
SIZE = (140, 44)


def pytest_configure(config: pytest.Config) -> None:
    # pytest-textual-snapshot writes its failure report to the working directory (the repo root);
    # keep the work tree clean unless a path was asked for.
    if getattr(config.option, "snapshot_report", None) == "snapshot_report.html":
        import tempfile

        config.option.snapshot_report = str(Path(tempfile.gettempdir()) / "sembench-snapshot-report.html")


@dataclass
class Workbench:
    log: Path
    snapshots: Path
    cascade: list[Instance]
    membership: list[Instance]


class FakeClock:
    """A clock the test moves by hand: the human timer reads it."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="session")
def cascade_instances() -> list[Instance]:
    family = get_family("cascade")
    return list(family.generate(family.resolve_params("cascade-demo"), SEED, CASCADE_N))


@pytest.fixture(scope="session")
def membership_instances() -> list[Instance]:
    family = get_family("membership")
    return list(family.generate(family.resolve_params("pag-demo"), SEED, MEMBERSHIP_N))


def write_snapshot(path: Path, name: str, family_id: str, preset: str, instances: list[Instance]) -> None:
    family = get_family(family_id)
    store = SnapshotStore(path, writable=True)
    try:
        store.write_snapshot(
            Snapshot(name=name, family=family_id, preset=preset, seed=SEED, count=len(instances),
                     description=f"{family_id} test snapshot"),
            instances, features=family.feature_values,
        )
    finally:
        store.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="session")
def snapshots_template(tmp_path_factory: pytest.TempPathFactory, cascade_instances: list[Instance],
                       membership_instances: list[Instance]) -> Path:
    """The two test snapshots, written once per session: each test gets its own copy (`workbench`). Writing
    them took ~15 ms of CPU and 100-250 ms of waiting for SQLite's syncs per test; a copy takes <1 ms."""
    path = tmp_path_factory.mktemp("snapshots-template") / "snapshots.db"
    write_snapshot(path, CASCADE_SNAPSHOT, "cascade", "cascade-demo", cascade_instances)
    write_snapshot(path, MEMBERSHIP_SNAPSHOT, "membership", "pag-demo", membership_instances)
    return path


@pytest.fixture
def workbench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cascade_instances: list[Instance],
              membership_instances: list[Instance], snapshots_template: Path) -> Iterator[Workbench]:
    # No user config or endpoint from the machine running the tests leaks in.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for var in ("SEMBENCH_CONFIG", "OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY",
                "OLLAMA_HOST"):
        monkeypatch.delenv(var, raising=False)
    snapshots = tmp_path / "snapshots.db"
    shutil.copyfile(snapshots_template, snapshots)  # a file of the test's own: a write by the app shows below
    before = digest(snapshots)
    bench = Workbench(log=tmp_path / "log.db", snapshots=snapshots, cascade=cascade_instances,
                      membership=membership_instances)
    yield bench
    assert digest(snapshots) == before, "the app wrote to the snapshots database"


@pytest.fixture
def make_app(workbench: Workbench) -> Callable[..., object]:
    from tui.app import SembenchApp

    def factory(clock: Callable[[], float] | None = None) -> SembenchApp:
        kwargs = {"clock": clock} if clock is not None else {}
        return SembenchApp(db=workbench.log, snapshots=workbench.snapshots, **kwargs)

    return factory


@pytest.fixture
def screen_text() -> Callable[[object], str]:
    return render_text


# ---- the test-only toy family (tests/kit/toyfamily): a family with no TUI module of its own ---------------
TOY_SNAPSHOT = "toy-demo"
TOY_N = 4
SLOW_VERIFY_S = 10.0  # the toy verifier sleeps this long on an instance whose meta asks for it


@dataclass
class ToyBench:
    log: Path
    snapshots: Path
    instances: list[Instance]  # instances[0] verifies slowly (meta.slow_verify_s)


@pytest.fixture
def toy_bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ToyBench:
    """A log database holding a toy snapshot (the user's own, as `snapshot import` would make it) and no
    bundled snapshots; the first instance's verifier takes SLOW_VERIFY_S."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for var in ("SEMBENCH_CONFIG", "OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY",
                "OLLAMA_HOST"):
        monkeypatch.delenv(var, raising=False)
    family = get_family("toysum")
    made = list(family.generate(family.resolve_params("toy-small"), SEED, TOY_N))
    slow = made[0].model_copy(update={"id": "", "meta": {**made[0].meta, "slow_verify_s": SLOW_VERIFY_S}})
    instances = [slow.with_content_id(), *made[1:]]
    log = tmp_path / "log.db"
    LogStore(log).close()  # a log database (a snapshots-only file is refused as one)
    write_snapshot(log, TOY_SNAPSHOT, "toysum", "toy-small", instances)
    return ToyBench(log=log, snapshots=tmp_path / "no-bundled.db", instances=instances)


@pytest.fixture
def make_toy_app(toy_bench: ToyBench) -> Callable[..., object]:
    from tui.app import SembenchApp

    def factory(clock: Callable[[], float] | None = None) -> SembenchApp:
        kwargs = {"clock": clock} if clock is not None else {}
        return SembenchApp(db=toy_bench.log, snapshots=toy_bench.snapshots, **kwargs)

    return factory
