"""Shared test setup: tool-marked tests skip locally when the tool is missing, but FAIL in CI."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings

# Property tests on a 2-core CI machine shared by two xdist workers (and, in development, by other jobs):
# hypothesis's wall-clock checks (a 200 ms deadline per example, "too slow" when fewer than ten inputs are
# made in a second) judge the machine's load, not the code, and failed once at a load of 8. The examples
# and what each asserts are unchanged; a test's own @settings still wins.
settings.register_profile("sembench", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("sembench")

# marker -> (executable, Debian package)
TOOL_MARKERS = {
    "ghc": ("ghc", "ghc"),
    "javac": ("javac", "openjdk-17-jdk-headless"),
    "framac": ("frama-c", "frama-c-base"),
    "tmux": ("tmux", "tmux"),
    "bwrap": ("bwrap", "bubblewrap"),
    "strace": ("strace", "strace"),
}


# The tests that take the longest (10-70 s each on the 2-core VM, docs/testing.md), besides those marked
# `slow`. A name that stops matching only loses its place at the front; nothing is skipped.
LONG_FIRST = (
    "tests/runs/test_runs_report.py::test_every_family_reports_and_plots[specs]",
    "tests/families/specs/test_specs_sandbox.py::test_a_run_with_frama_c_missing_stops_at_once_and_resumes",
    "tests/runs/test_runs_local_chunks.py::test_worker_processes_record_the_same",
    "tests/runs/test_runs_export_import.py::test_export_then_import_reproduces_the_metrics",
    "tests/engine/test_family_contract.py::test_ground_truth_and_oracle_verify[specs]",
    "tests/engine/test_bundle.py::test_rebuilding_reproduces_the_same_instances[pbebench-lite-moreeg]",
    "tests/families/specs/test_specs_corpus.py::test_reference_contract_proves[min_distance]",
    "tests/families/specs/test_specs_family.py::test_baseline_is_a_floor_with_verified_contracts",
    "tests/runs/test_runs_local_chunks.py::test_what_a_killed_local_run_reported",
    "tests/families/specs/test_specs_sandbox.py::test_without_bubblewrap_the_import_is_refused",
    "tests/engine/test_bundle.py::test_rebuilding_reproduces_the_same_instances[tf-generated]",
    "tests/runs/test_runs_kill.py::test_killed_run_resumes_to_exactly_one_attempt_per_pair",
    "tests/tui/test_tui_keys_and_drafts.py::test_tab_and_global_keys_work_from_every_widget_but_text_fields",
    "tests/tui/test_tui_keys.py::test_human_clock_counts_active_time_and_hides_the_answer",
    "tests/tui/test_tui_keys_and_drafts.py::test_solve_tab_puts_focus_on_the_picker_never_in_a_field",
    "tests/families/cascade/test_cascade_baseline.py::test_solves_most_of_the_first_fifty_length_two_pbebench",
    "tests/tui/test_tui_display.py::test_answer_text_is_never_markup",
    "tests/tui/test_tui_bigdb.py::test_browser_and_runs_answer_keys_while_a_big_log_is_read",
    "tests/families/membership/test_membership_differential.py::test_evaluator_agrees_with_python",
    "tests/families/typeinf/test_typeinf_ghc.py::test_generated_tasks_agree_with_ghc",
    "tests/families/typeinf/test_typeinf_ghc.py::test_checker_agrees_with_the_ghc_oracle_on_every_comparison",
    # tests/tui is collected last: its 14-22 s tests would otherwise start when the other worker is nearly done
    "tests/tui/test_tui_session.py::test_a_timed_session_of_five_is_a_reported_run",
    "tests/tui/test_tui_session.py::test_marked_rows_show_after_each_resume_and_review",
    "tests/tui/test_tui_human.py::test_no_spoilers_on_any_instance_until_sent",
    "tests/tui/test_tui_human.py::test_leaving_while_a_human_answer_is_checked_records_it",
    "tests/tui/test_tui_workflow.py::test_browse_step_solve_baseline_and_human",
    "tests/tui/test_tui_family_snapshots.py::test_specs_verdict",
)


def _long(item: pytest.Item) -> bool:
    return item.get_closest_marker("slow") is not None or item.nodeid.startswith(LONG_FIRST)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long tests (marked `slow`, or named in LONG_FIRST) start first, so that under pytest-xdist
    (`.ci/run`: `-n auto --dist worksteal`) the short ones fill in around them and the workers finish
    together, instead of one worker starting a minute-long test when the other has nothing left
    (docs/testing.md). The order within each group is the collection order (the sort is stable)."""
    items.sort(key=lambda item: not _long(item))


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, (exe, package) in TOOL_MARKERS.items():
        if item.get_closest_marker(marker) is None or shutil.which(exe):
            continue
        message = f"{exe} not found (Debian package {package}; bash .ci/setup installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run this test: {message}")
        pytest.skip(message)


_OWN_HOME = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """The suite never reads the user's config nor writes the user's log database (a test that opens no
    workspace of its own writes tool results to the default log, $XDG_DATA_HOME/sembench/log.db): one
    home for the whole session, empty at its start as on a fresh machine, which the xdist workers inherit
    from the process that starts them (and share, as they would share a user's)."""
    if os.environ.get("SEMBENCH_TESTS_HOME"):
        return
    home = tempfile.mkdtemp(prefix="sembench-tests-")
    config.stash[_OWN_HOME] = home
    os.environ["SEMBENCH_TESTS_HOME"] = home
    os.environ["XDG_DATA_HOME"] = os.path.join(home, "data")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(home, "config")
    os.environ.pop("SEMBENCH_CONFIG", None)


def pytest_unconfigure(config: pytest.Config) -> None:
    home = config.stash.get(_OWN_HOME, None)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)
        os.environ.pop("SEMBENCH_TESTS_HOME", None)


@pytest.fixture(autouse=True)
def _private_state(tmp_path_factory, monkeypatch):
    """Each test gets its own XDG state directory: the workbench reopens where it was left (tui.state),
    and one test's workbench must not open where another's was left, nor touch the user's."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


def shared_tool_cache_path() -> str:
    """The session's one tool cache (in the session's home, so both xdist workers use the same file)."""
    return os.path.join(os.environ["SEMBENCH_TESTS_HOME"], "tool-cache.db")


@pytest.fixture
def shared_tool_cache():
    """Tool results (a WP run, a GHC check) cached for the whole session, both workers included: for the
    tests that only read verdicts, so the same reference contract or baseline answer is proved once per
    session rather than once per test (the kit, the family contract and specs' own tests prove many of
    the same programs; docs/testing.md). Set before each test, since a test that opens a workspace points
    the process's cache at that workspace's log. Tests of the cache itself configure their own."""
    from core.tools import configure

    return configure(shared_tool_cache_path())


@pytest.fixture
def session_tool_cache_everywhere(shared_tool_cache, monkeypatch):
    """The session's tool cache for a test that opens workspaces of its own (`sembench run` in process,
    the workbench app) but only reads their verdicts: a workspace points the process's cache at its own
    log (core.store.workspace), so such a test proved again what other tests had proved (the specs
    reference contracts: ~7 s of WP each). Here every workspace the test opens keeps the session's cache;
    its attempts, runs and snapshots stay in its own log. Not for tests of the cache or of resuming."""
    import core.tools
    from core.tools import cache

    configure = cache.configure
    keep = lambda _path: configure(shared_tool_cache.path)  # noqa: E731
    monkeypatch.setattr(cache, "configure", keep)
    monkeypatch.setattr(core.tools, "configure", keep)
    return shared_tool_cache


@pytest.fixture
def log_db(tmp_path, monkeypatch):
    """A fresh log database path, also exported as SEMBENCH_DB for CLI subprocesses."""
    path = tmp_path / "log.db"
    monkeypatch.setenv("SEMBENCH_DB", str(path))
    return path


# The test-only toy family registers for the whole session, so every test parametrized over the registered
# families (the family kit, the TUI kit) covers it too: a family defined outside core/ needs no other edit.
import tests.kit.toyfamily  # noqa: E402,F401
