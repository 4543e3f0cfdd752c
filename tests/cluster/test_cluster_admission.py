"""Admission of workers: only workers whose code fingerprint and tool versions equal the driver's own are
admitted, however many others agree with each other; the fingerprint covers every file that takes part in
a check (the Java helpers, prompts and corpora, not only the Python code)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.cluster.remote import _digest, _tree, probe, verification_files
from core.cluster.session import ClusterSession, admit
from core.errors import UserError
from core.family import get_family

REPO = Path(__file__).resolve().parents[2]


def test_workers_running_other_code_are_refused_however_many_agree() -> None:
    """Two workers running modified code agree with each other; the one honest worker is the driver's
    and is the only one admitted."""
    here = probe()
    modified = {**here, "fingerprint": "0123456789abcdef"}
    admission = admit({"tcp://a:1": modified, "tcp://b:2": modified, "tcp://c:3": here}, here)
    assert admission.admitted == ["tcp://c:3"]
    assert admission.refused == {a: f"Sembench code 0123456789abcdef, not {here['fingerprint']} (this machine's)"
                                 for a in ("tcp://a:1", "tcp://b:2")}
    assert admission.fingerprint == here["fingerprint"]
    with pytest.raises(UserError, match="no worker of the cluster runs this machine's Sembench"):
        admit({"tcp://a:1": modified, "tcp://b:2": modified}, here)


def test_a_worker_with_another_tool_version_than_the_drivers_is_refused_naming_the_tool() -> None:
    here = {"fingerprint": "f" * 16, "tools": {"frama-c": "30.0", "ghc": "9.0.2"}}
    other = {**here, "tools": {"frama-c": "29.0", "ghc": "9.0.2"}}
    admission = admit({"tcp://a:1": other, "tcp://b:2": other, "tcp://c:3": here,
                       "tcp://d:4": {"error": "cannot run Sembench (ModuleNotFoundError: core)"}}, here)
    assert admission.admitted == ["tcp://c:3"]
    assert admission.refused["tcp://a:1"] == "frama-c 29.0, not 30.0 (this machine's)"
    assert "ModuleNotFoundError" in admission.refused["tcp://d:4"]


def test_a_tool_the_driver_lacks_is_the_workers_when_they_agree_and_never_put_to_a_vote() -> None:
    """A laptop without Frama-C drives workers that have it: their version is taken when they agree; when
    they do not, a family needing it stops with one line rather than let the larger group decide."""
    driver = {"fingerprint": "f" * 16, "tools": {"frama-c": None, "ghc": "9.0.2"}}
    new, old = ({**driver, "tools": {"frama-c": v, "ghc": "9.0.2"}} for v in ("30.0", "29.0"))
    agreed = admit({"tcp://a:1": new, "tcp://b:2": new}, driver)
    assert agreed.admitted == ["tcp://a:1", "tcp://b:2"] and agreed.tools["frama-c"] == "30.0"
    split = admit({"tcp://a:1": new, "tcp://b:2": new, "tcp://c:3": old}, driver)
    assert split.admitted == ["tcp://a:1", "tcp://b:2", "tcp://c:3"] and "frama-c" not in split.tools
    session = ClusterSession.__new__(ClusterSession)
    session.admission = split
    with pytest.raises(UserError, match=r"disagree on frama-c's version \(29.0 on tcp://c:3; 30.0 on tcp://a:1, "
                                        r"tcp://b:2\) and this machine has no frama-c"):
        session.require(get_family("specs"))
    session.require(get_family("typeinf"))  # ghc: the driver's version, on every admitted worker


def test_the_fingerprint_covers_the_java_helpers_prompts_and_corpora(tmp_path: Path) -> None:
    labels = {label for label, _ in verification_files()}
    assert {"core/families/imports/java/CompileService.java", "assets/prompts/specs.txt",
            "assets/typeinf/corpus.hs", "core/cluster/remote.py"} <= labels
    assert any(label.startswith("assets/specs/corpus/") for label in labels)
    assert not any(label.startswith("assets/themes/") or "__pycache__" in label for label in labels)
    copy = tmp_path / "core"
    shutil.copytree(REPO / "core", copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = _digest(_tree("core", copy))
    java = copy / "families" / "imports" / "java" / "CompileService.java"
    java.write_text(java.read_text().replace('"-proc:none", ', ""))  # annotation processing back on
    assert _digest(_tree("core", copy)) != before
