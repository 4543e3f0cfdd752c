"""Screenshots of each family's Step and Verdict tabs for the README's tour (pytest-textual-snapshot).

test_tui_snapshots.py holds the cascade Step and Verdict and the membership Step; this file adds the
membership Verdict and the Step and Verdict of typeinf, imports and specs. Baselines live in
__snapshots__/test_tui_family_snapshots/; refresh them with
`pytest tests/tui/test_tui_family_snapshots.py --snapshot-update` after a deliberate change, and look at them.

Deterministic: fixed terminal size, instances generated from the family presets with a fixed seed, a
fake clock for the human timer, notifications cleared. A Verdict is a typed human answer that is wrong
(the oracle's verdict and its explanation show); no model is run. Step shows the ground truth's trace."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import FakeClock, digest, settle, write_snapshot
from textual.widgets import Select, TextArea

from core.family import get_family
from core.instance import Instance
from tui.screens.instance import InstanceScreen

TERMINAL = (130, 40)
SEED = 0  # the presets' own seed: the instances below are the presets' first ones
# family id -> (preset, how many of its first instances the test snapshot holds)
FAMILIES = {"membership": ("pag-demo", 4), "typeinf": ("tfbench-base", 8), "imports": ("thalia-like", 1),
            "specs": ("formalbench-c", 2)}


@dataclass
class FamilyBench:
    log: Path
    snapshots: Path
    instances: dict[str, list[Instance]]  # family id -> the instances of its snapshot `<id>-tour`


@pytest.fixture(scope="module")
def tour_instances() -> dict[str, list[Instance]]:
    made = {}
    for fid, (preset, count) in FAMILIES.items():
        family = get_family(fid)
        params = family.resolve_params(preset)
        made[fid] = [family.generate_one(params, SEED, i) for i in range(count)]
    return made


@pytest.fixture
def family_bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 tour_instances: dict[str, list[Instance]]) -> Iterator[FamilyBench]:
    """A read-only snapshots database holding one small snapshot per family (as conftest's `workbench`)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for var in ("SEMBENCH_CONFIG", "OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY",
                "OLLAMA_HOST", "SEMBENCH_DB"):
        monkeypatch.delenv(var, raising=False)
    snapshots = tmp_path / "snapshots.db"
    for fid, (preset, _) in FAMILIES.items():
        write_snapshot(snapshots, f"{fid}-tour", fid, preset, tour_instances[fid])
    before = digest(snapshots)
    yield FamilyBench(log=tmp_path / "log.db", snapshots=snapshots, instances=tour_instances)
    assert digest(snapshots) == before, "the app wrote to the snapshots database"


@pytest.fixture
def tour_app(family_bench: FamilyBench) -> Callable[..., object]:
    from tui.app import SembenchApp

    def factory(clock: Callable[[], float] | None = None) -> SembenchApp:
        kwargs = {"clock": clock} if clock is not None else {}
        return SembenchApp(db=family_bench.log, snapshots=family_bench.snapshots, **kwargs)

    return factory


def step_run_before(fid: str, instance: Instance, *keys: str):
    """Open the instance on its Step tab (the ground truth's trace) and press `keys` (n: next, G: last)."""
    async def run_before(pilot) -> None:
        pilot.app.open_instance(f"{fid}-tour", instance.id, tab="step")
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
        await settle(pilot)

    return run_before


def verdict_run_before(fid: str, instance: Instance, answer: str, clock: FakeClock):
    """Type `answer` as the human solver on the Solve tab, 61 s on the fake clock, send it: the Verdict tab."""
    async def run_before(pilot) -> None:
        app = pilot.app
        app.open_instance(f"{fid}-tour", instance.id, tab="solve")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstanceScreen)
        screen.query_one("#solver", Select).value = "human"
        await pilot.pause()
        screen.query_one("#human-answer", TextArea).text = answer  # the first edit starts the clock
        await pilot.pause()
        clock.now += 61.0
        await pilot.press("ctrl+s")
        await settle(pilot)
        rows = app.workspace.log.attempts(instance_id=instance.id)
        assert len(rows) == 1 and rows[0]["correct"] == 0, rows  # a wrong answer, judged by the oracle
        app.clear_notifications()
        await pilot.pause()

    return run_before


# ---- membership -------------------------------------------------------------------------------------------
def test_membership_verdict(snap_compare, tour_app, family_bench) -> None:
    instance = family_bench.instances["membership"][0]
    wrong = "False" if instance.ground_truth["answer"] else "True"
    clock = FakeClock(1000.0)
    assert snap_compare(tour_app(clock=clock), terminal_size=TERMINAL,
                        run_before=verdict_run_before("membership", instance, wrong, clock))


# ---- typeinf (GHC) ----------------------------------------------------------------------------------------
def typeinf_instance(bench: FamilyBench) -> Instance:
    # `unwords :: [String] -> String`: a list function whose trace unifies a few constraints
    return next(i for i in bench.instances["typeinf"] if i.name == "unwords")


@pytest.mark.ghc
def test_typeinf_step(snap_compare, tour_app, family_bench) -> None:
    instance = typeinf_instance(family_bench)
    assert snap_compare(tour_app(), terminal_size=TERMINAL, run_before=step_run_before("typeinf", instance, *"nnn"))


@pytest.mark.ghc
def test_typeinf_verdict(snap_compare, tour_app, family_bench) -> None:
    instance = typeinf_instance(family_bench)
    wrong = "unwords :: [String] -> [String]"
    clock = FakeClock(1000.0)
    assert snap_compare(tour_app(clock=clock), terminal_size=TERMINAL,
                        run_before=verdict_run_before("typeinf", instance, wrong, clock))


# ---- imports (javac) --------------------------------------------------------------------------------------
@pytest.mark.javac
def test_imports_step(snap_compare, tour_app, family_bench) -> None:
    instance = family_bench.instances["imports"][0]
    assert snap_compare(tour_app(), terminal_size=TERMINAL, run_before=step_run_before("imports", instance, *"nnn"))


@pytest.mark.javac
def test_imports_verdict(snap_compare, tour_app, family_bench) -> None:
    instance = family_bench.instances["imports"][0]
    kept = instance.ground_truth["imports"][:-1]  # one import missing: javac cannot find a symbol
    wrong = "```java\n" + "".join(f"import {fqn};\n" for fqn in kept) + "```\n"
    clock = FakeClock(1000.0)
    assert snap_compare(tour_app(clock=clock), terminal_size=TERMINAL,
                        run_before=verdict_run_before("imports", instance, wrong, clock))


# ---- specs (Frama-C WP) -----------------------------------------------------------------------------------
def specs_instance(bench: FamilyBench) -> Instance:
    # `abs_value`: six lines, no loop, so WP answers in seconds
    return next(i for i in bench.instances["specs"] if "abs_value" in i.code)


@pytest.mark.framac
def test_specs_step(snap_compare, tour_app, family_bench) -> None:
    instance = specs_instance(family_bench)
    # The last step, the outcome: each goal's step shows the prover's time, which varies from run to run.
    assert snap_compare(tour_app(), terminal_size=TERMINAL, run_before=step_run_before("specs", instance, "G"))


@pytest.mark.framac
def test_specs_verdict(snap_compare, tour_app, family_bench) -> None:
    instance = specs_instance(family_bench)
    # `\result > 0` is false for x == 0: WP cannot prove it
    wrong = ("```c\n/*@ requires x > -2147483647;\n    assigns \\nothing;\n    ensures \\result > 0;\n*/\n"
             + instance.code.strip("\n") + "\n```\n")
    clock = FakeClock(1000.0)
    assert snap_compare(tour_app(clock=clock), terminal_size=TERMINAL,
                        run_before=verdict_run_before("specs", instance, wrong, clock))
