"""`sembench notes` (bookmarks, tags and notes per instance, kept across a snapshot's re-import) and
`sembench compare` (two runs paired by instance, with McNemar's exact test)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from core.cli import cli
from core.family import get_family
from core.store import LogStore, notes


def _invoke(*args: str) -> dict | list | str:
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": "240"})  # tables unwrapped
    assert result.exit_code == 0, result.output
    return result.output


def _membership_snapshot(tmp_path, n: int = 12) -> list:
    fam = get_family("membership")
    insts = list(fam.generate(fam.resolve_params("pag-demo"), 0, n))
    path = tmp_path / "inst.jsonl"
    path.write_text("".join(json.dumps(i.to_json_dict()) + "\n" for i in insts))
    _invoke("snapshot", "import", str(path), "--name", "mine", "--family", "membership")
    return insts


def test_notes_add_list_export_and_survive_a_reimport(tmp_path, log_db) -> None:
    insts = _membership_snapshot(tmp_path, 3)
    first, second = insts[0].id, insts[1].id
    _invoke("notes", "add", "--snapshot", "mine", "--id", first, "--bookmark", "--tag", "hard", "--tag", "odd",
            "looks [bold]wrong[/] at depth 3")
    _invoke("notes", "add", "--snapshot", "mine", "--id", second, "--tag", "easy")
    _invoke("notes", "add", "--snapshot", "mine", "--id", first, "--untag", "odd")
    listed = json.loads(_invoke("notes", "list", "--snapshot", "mine", "--format", "json"))
    by_id = {row["instance_id"]: row for row in listed}
    assert by_id[first]["bookmarked"] is True and by_id[first]["tags"] == ["hard"]
    assert by_id[first]["note"] == "looks [bold]wrong[/] at depth 3" and by_id[first]["updated"]
    assert by_id[second]["bookmarked"] is False and by_id[second]["tags"] == ["easy"]
    table = _invoke("notes", "list")
    assert "[bold]wrong[/]" in table  # text is shown as written, never read as markup
    # the snapshot imported again under its name keeps its notes (they are keyed by name and id)
    path = tmp_path / "inst.jsonl"
    _invoke("snapshot", "import", str(path), "--name", "mine", "--family", "membership")
    out = tmp_path / "notes.jsonl"
    CliRunner().invoke(cli, ["notes", "export", "--out", str(out)])
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    assert {row["instance_id"] for row in exported} == {first, second}
    # clearing everything removes the row
    _invoke("notes", "add", "--snapshot", "mine", "--id", second, "--untag", "easy")
    assert {row["instance_id"] for row in json.loads(_invoke("notes", "list", "--format", "json"))} == {first}


def test_notes_refuse_unknown_instances_and_bad_tags(tmp_path, log_db) -> None:
    insts = _membership_snapshot(tmp_path, 2)
    bad = CliRunner().invoke(cli, ["notes", "add", "--snapshot", "mine", "--id", "nope", "--bookmark"])
    assert bad.exit_code == 2 and "has no instance 'nope'" in bad.output
    bad = CliRunner().invoke(cli, ["notes", "add", "--snapshot", "mine", "--id", insts[0].id, "--tag", "two words"])
    assert bad.exit_code == 2 and "one word" in bad.output


def test_note_search_terms() -> None:
    note = notes.Note(snapshot="s", instance_id="i", bookmarked=True, tags=["Hard"], note="Depth three")
    assert notes.matches(note, "bookmarked") and notes.matches(note, "tag:hard")
    assert notes.matches(note, "note:three") and not notes.matches(note, "note:four")
    assert notes.matches(None, "bookmarked") is False and notes.matches(note, "depth>=3") is None


def _answers(tmp_path, name: str, insts: list, wrong: set[int]) -> str:
    fam = get_family("membership")
    path = tmp_path / f"{name}.jsonl"
    lines = []
    for k, inst in enumerate(insts):
        truth = fam.oracle_response(inst)
        flipped = "False" if "True" in truth else "True"
        lines.append(json.dumps({"id": inst.id, "response": flipped if k in wrong else truth}))
    path.write_text("\n".join(lines) + "\n")
    out = json.loads(_invoke("import-answers", "--snapshot", "mine", "--answers", str(path), "--solver-name", name,
                             "--format", "json"))
    return out["run"]


def test_compare_lists_where_runs_differ_with_mcnemar(tmp_path, log_db) -> None:
    insts = _membership_snapshot(tmp_path, 12)
    run_a = _answers(tmp_path, "a", insts, wrong={0, 1})
    run_b = _answers(tmp_path, "b", insts, wrong={1, 2, 3, 4, 5, 6, 7, 8, 9})
    result = json.loads(_invoke("compare", run_a, run_b, "--format", "json"))
    assert result["paired"] == 12 and result["both"] == 2 and result["neither"] == 1
    assert result["a_right_b_wrong"] == [insts[k].id for k in range(2, 10)]
    assert result["a_wrong_b_right"] == [insts[0].id]
    assert result["runs"]["a"]["correct"] == 10 and result["runs"]["b"]["correct"] == 3
    # exact McNemar: 8 vs 1 discordant pairs, two-sided binomial(9, 0.5): 2 * P(X <= 1) = 20/512
    assert abs(result["mcnemar_p"] - 20 / 512) < 1e-12
    same = json.loads(_invoke("compare", run_a, run_a, "--format", "json"))
    assert same["mcnemar_p"] == 1.0 and same["a_right_b_wrong"] == []
    table = _invoke("compare", run_a, run_b)
    assert "McNemar exact p = 0.03906" in table and insts[2].id in table


def test_compare_refuses_runs_that_share_nothing(tmp_path, log_db) -> None:
    insts = _membership_snapshot(tmp_path, 2)
    run_a = _answers(tmp_path, "a", insts, wrong=set())
    bad = CliRunner().invoke(cli, ["compare", run_a, "run-nope"])
    assert bad.exit_code == 2 and "run-nope" in bad.output
    LogStore(log_db).close()


def test_notes_list_at_80_columns_never_cuts_an_id(tmp_path, log_db) -> None:
    """The instance id is what a person copies from the list: whole at 80 columns, however long the note
    and tags beside it (they wrap instead)."""
    insts = _membership_snapshot(tmp_path, 2)
    for inst in insts:
        _invoke("notes", "add", "--snapshot", "mine", "--id", inst.id, "--bookmark", "--tag", "recursion-heavy",
                "--tag", "short-circuit", "the probe's third sub-list is where the model loses track " * 2)
    result = CliRunner().invoke(cli, ["notes", "list"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80
    for inst in insts:
        assert inst.id in result.output, result.output
