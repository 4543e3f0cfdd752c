"""The workbench's cluster setting: with `SEMBENCH_CLUSTER` (or `[cluster] address` in the config file) a
slow family's answer sent from the workbench is checked on that cluster (a real scheduler and worker
started with the `dask` commands on 127.0.0.1); cheap families stay in-process."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from cluster_support import REPO, start_cluster

from core.cluster.workbench import check_on_cluster, configured_address, configured_target
from core.family import get_family
from tests.kit.pilot import settle


def test_the_setting_comes_from_the_environment_or_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[cluster]\naddress = "tcp://10.0.0.5:8786"\n')
    assert configured_address({"SEMBENCH_CONFIG": str(config)}) == "tcp://10.0.0.5:8786"
    assert configured_address({"SEMBENCH_CONFIG": str(config), "SEMBENCH_CLUSTER": "local:2"}) == "local:2"
    assert configured_address({"XDG_CONFIG_HOME": str(tmp_path / "none")}) is None
    config.write_text('[cluster]\naddress = "tls://10.0.0.5:8786"\ntls_ca_file = "~/ca.pem"\ntls_cert = "c.pem"\n')
    target = configured_target({"SEMBENCH_CONFIG": str(config)})
    assert target is not None and target.address == "tls://10.0.0.5:8786" and target.tls_cert == "c.pem"
    assert target.tls_ca_file == str(Path("~/ca.pem").expanduser()) and not target.insecure
    assert configured_target({"SEMBENCH_CLUSTER": "tcp://h:1", "SEMBENCH_CLUSTER_INSECURE": "1",
                              "XDG_CONFIG_HOME": str(tmp_path / "none")}).insecure


def test_cheap_families_are_checked_in_process_whatever_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMBENCH_CLUSTER", "tls://127.0.0.1:9")  # never reached: nothing is sent there
    fam = get_family("cascade")
    inst = next(iter(fam.generate(fam.resolve_params("pbebench-lite"), 1, 1)))
    assert check_on_cluster(fam, inst, fam.oracle_response(inst)) is None


@pytest.mark.framac
async def test_the_workbench_checks_a_specs_answer_on_the_cluster_its_setting_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.store import SnapshotStore
    from core.tools import configure
    from tui.app import SembenchApp
    from tui.screens.instance import InstanceScreen

    cluster = start_cluster(["wb1"], tmp_path)
    try:
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
        assert cluster.tls is not None
        config = tmp_path / "config.toml"  # the cluster and the certificates to reach it, in the config file
        config.write_text(f'[cluster]\naddress = "{cluster.address}"\ntls_ca_file = "{cluster.tls.ca}"\n'
                          f'tls_cert = "{cluster.tls.cert}"\ntls_key = "{cluster.tls.key}"\n')
        monkeypatch.setenv("SEMBENCH_CONFIG", str(config))
        monkeypatch.delenv("SEMBENCH_CLUSTER", raising=False)
        tools = tmp_path / "log.db"  # the workbench's tool cache is its log database (Workspace)
        snapshots = REPO / "snapshots.db"
        store = SnapshotStore(snapshots)
        instance_id = store.db.execute("select id from instances where snapshot = 'formalbench-c' "
                                       "order by idx limit 1").fetchone()[0]
        store.close()
        app = SembenchApp(db=tools, snapshots=snapshots, fresh=True)
        async with app.run_test(size=(160, 50)) as pilot:
            app.open_instance("formalbench-c", instance_id, tab="solve")
            await settle(pilot)
            assert isinstance(app.screen, InstanceScreen)
            await pilot.press("ctrl+s")
            deadline = time.monotonic() + 300
            while not app.workspace.log.attempts(instance_id=instance_id):
                assert time.monotonic() < deadline
                await pilot.pause(0.5)
            rows = app.workspace.log.attempts(instance_id=instance_id)
    finally:
        from core.cluster.workbench import close_sessions

        close_sessions()
        configure(None)
        cluster.close()
    assert len(rows) == 1 and rows[0]["error"] is None and rows[0]["status"] in ("success", "failure", "unknown")
    # the check went through the cluster: the driver recorded its verdict and the worker's Frama-C runs
    with sqlite3.connect(tools) as conn:
        recorded = {row[0] for row in conn.execute("select tool from tool_cache")}
    assert "sembench-check:specs" in recorded and len(recorded) >= 2
