"""The released PBEBench files: the relation detector reimplemented, import, the released prompt, K per file."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest

from core.errors import UserError
from core.families.cascade import released
from core.families.cascade.generator import CATEGORIES, generate_one
from core.families.cascade.model import apply_cascade
from core.families.cascade.presets import PRESETS
from core.families.cascade.relations import cascade_relations, category_bits
from core.family import get_family

FIXTURES = Path(__file__).parent / "fixtures" / "released"
HEAD29 = FIXTURES / "adaptive_balanced_1008_complete.head29.jsonl"
PROMPTS = FIXTURES / "adaptive_balanced_1008_complete_promptsfile.head1.jsonl"
FAMILY = get_family("cascade")


def sample_records() -> list[tuple[list[str], list[str], list[tuple[str, str]], str, str]]:
    """The 112 transcribed Lite records: (inputs, outputs, cascade, non-N edges, category)."""
    records = []
    for line in (FIXTURES / "lite_sample.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        ins, outs, progs, edges, category = line.split("|")
        cascade = [(p.split(">")[0], p.split(">")[1]) for p in progs.split(" ")]
        records.append((ins.split(" "), outs.split(" "), cascade, edges, category))
    return records


# ---- the detector ---------------------------------------------------------------------------------

def test_detector_reproduces_every_released_dag_of_the_first_29_records() -> None:
    for n, line in enumerate(HEAD29.read_text().splitlines(), start=1):
        record = json.loads(line)
        cascade = [released.parse_program_string(p) for p in record["programs"]]
        dag = [[i, list(labels), j] for i, labels, j in released.detect(cascade)]
        assert dag == record["bfcc_dag"], n
        assert released.released_category(cascade) == record["bfcc_category"], n


def test_detector_reproduces_the_released_category_on_112_records() -> None:
    records = sample_records()
    assert len(records) == 112
    for k, (inputs, outputs, cascade, edges, category) in enumerate(records, start=1):
        assert [apply_cascade(s, cascade) for s in inputs] == outputs, k  # the transcription is consistent
        found = " ".join(f"{i}{''.join(lb)}{j}" for i, lb, j in released.detect(cascade) if lb != ("N",))
        assert found == edges, k
        assert released.released_category(cascade) == category, k


def test_the_exact_classifier_disagrees_on_12_of_the_112_released_records() -> None:
    # the figure the README quotes: the exact count-based classifier relabels 10.7% of these records
    disagree = [k for k, (_, _, cascade, _, category) in enumerate(sample_records(), start=1)
                if category_bits(cascade_relations(cascade)) != category]
    assert len(disagree) == 12


def test_detector_tests_on_hand_cases() -> None:
    # containment: "vzw" holds "z" and "g" does not: feeding; "dj" -> "w" then lhs "wd": overlap "w"
    assert released.released_feeds("g", "vzw", "z") and not released.released_bleeds("g", "vzw", "z")
    assert released.released_feeds("dj", "w", "wd") and released.released_bleeds("dj", "w", "wd")
    assert not released.released_feeds("a", "a", "a")  # a rule that changes nothing relates to nothing
    assert released.released_feeds("xy", "", "ab")  # a deletion can join any two characters
    assert released.pair_labels(("w", "ky"), ("c", "zfg")) == ("N",)


def test_the_generators_string_tests_equal_the_detectors_on_every_short_triple() -> None:
    """`feeds_bleeds` (what the generator calls ~0.7 million times for PBEBench-Lite) against the detector's
    statement, `released_feeds` / `released_bleeds`: every triple of strings of up to three characters
    over three letters, the empty string included (64,000 triples; up to four characters, 1.8 million,
    also agreed when it was written)."""
    strings = ["", *("".join(t) for n in range(1, 4) for t in itertools.product("abc", repeat=n))]
    wrong = [(a, b, c) for a, b, c in itertools.product(strings, repeat=3)
             if released.feeds_bleeds(a, b, c)
             != released.released_feeds(a, b, c) | released.released_bleeds(a, b, c) << 1]
    assert wrong == []
    assert released.feeds_bleeds("g", "vzw", "z") == 1 and released.feeds_bleeds("dj", "w", "wd") == 3


def test_incremental_bits_equal_the_whole_cascade() -> None:
    for _inputs, _outputs, cascade, _edges, category in sample_records()[:40]:
        bits = (False,) * 4
        for j in range(len(cascade)):
            added = released.added_rule_bits(cascade[:j], cascade[j])
            bits = tuple(a or b for a, b in zip(bits, added, strict=True))
        assert "".join("1" if b else "0" for b in bits) == category


# ---- import ----------------------------------------------------------------------------------------

def test_import_of_released_records_keeps_their_category_and_their_ground_truth_verifies() -> None:
    instances = FAMILY.import_files(HEAD29)
    assert instances is not None and len(instances) == 29
    lines = HEAD29.read_text().splitlines()
    for instance, line in zip(instances, lines, strict=True):
        record = json.loads(line)
        assert instance.inputs == record["inputs"] and instance.outputs == record["outputs"]
        assert instance.meta["released_category"] == record["bfcc_category"] == instance.meta["category"]
        assert instance.meta["category_exact"] == category_bits(cascade_relations(instance.cascade()))
        assert instance.meta["max_programs"] == 5 == max(json.loads(x)["cascade_length"] for x in lines)
        assert instance.meta["alphabet"] == released.LITE_ALPHABET and instance.meta["max_side"] == 3
    report = FAMILY.metrics([(i, FAMILY.check(i, FAMILY.oracle_response(i))[1]) for i in instances])
    assert report["overall"]["pass@1"] == 1.0 and report["overall"]["valid_rate"] == 1.0


def test_import_reads_the_prompt_files_with_escaped_quotes() -> None:
    [instance] = FAMILY.import_files(PROMPTS)
    assert instance.cascade() == [("z", "xwy"), ("b", "h"), ("g", "vzw")]
    assert instance.meta["released_category"] == "0010" == instance.meta["category"]


def test_k_is_the_longest_cascade_of_each_file(tmp_path: Path) -> None:
    # the released (25, 30) data are two files, K = 25 and K = 30
    rules = [(f"{c}", f"{c}{c}") for c in "abcdefghijk"]
    for length, name in ((7, "seven.jsonl"), (11, "eleven.jsonl")):
        cascade = rules[:length]
        inputs = ["abcdefghijk", "ka"]
        record = {"inputs": inputs, "outputs": [apply_cascade(s, cascade) for s in inputs],
                  "programs": [released.program_string(a, b) for a, b in cascade], "cascade_length": length}
        (tmp_path / name).write_text(json.dumps(record) + "\n")
        [instance] = FAMILY.import_files(tmp_path / name)
        assert instance.max_programs() == length


def test_import_of_real_sound_law_data(tmp_path: Path) -> None:
    [instance] = FAMILY.import_files(FIXTURES / "real_sli")
    assert instance.cascade() is None and instance.meta["language"] == "atr_niue"
    assert len(instance.inputs) == len(instance.outputs) == 133
    assert instance.inputs[0] == "kapakau" and instance.outputs[0] == "tapakau"
    assert instance.max_programs() == 50 and instance.max_side() == 5
    assert {"ʔ", "ŋ", "a", "Z"} <= instance.allowed_chars()
    # verification checks the outputs; a partial answer is partial
    answer, verdict = FAMILY.check(instance, '```python\ns = s.replace("w", "v")\n```')
    assert answer.ok and verdict.status == "valid" and not verdict.correct and verdict.score < 1
    assert len(verdict.details["lev"]) == 133 and verdict.explanation
    trace = FAMILY.trace(instance, answer)
    assert trace.reference is None and "no reference" in trace.meta["no_reference"]
    # one language folder alone imports too
    copy = tmp_path / "atr_niue"
    shutil.copytree(FIXTURES / "real_sli" / "atr_niue", copy)
    [alone] = FAMILY.import_files(copy)
    assert alone.inputs == instance.inputs


def test_other_files_are_not_released_ones(tmp_path: Path) -> None:
    ours = tmp_path / "ours.jsonl"
    ours.write_text(json.dumps(generate_one(dict(PRESETS["cascade-demo"].params), 0, 0).to_json_dict()) + "\n")
    assert FAMILY.import_files(ours) is None
    assert FAMILY.import_files(FIXTURES / "lite_sample.txt") is None
    assert FAMILY.import_files(tmp_path) is None  # a folder without words.in / words.out


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"inputs": ["ab"], "outputs": ["cb"], "programs": ['replace("a", "d")']}, "do not turn"),
        ({"inputs": ["ab"], "outputs": ["cb"], "programs": ["swap a and c"]}, "is not replace"),
        ({"inputs": ["ab"], "outputs": ["ab", "x"], "programs": []}, "1 inputs but 2 outputs"),
        ({"inputs": ["ab"], "outputs": ["b"], "programs": ['replace("", "x")']}, "empty lhs"),
    ],
)
def test_a_file_that_is_not_what_it_claims_is_refused_with_its_line(tmp_path: Path, record: dict, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    good = {"inputs": ["ab"], "outputs": ["cb"], "programs": ['replace("a", "c")']}
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(UserError, match=message) as caught:
        FAMILY.import_files(path)
    assert "bad.jsonl:2:" in str(caught.value)  # the file and the line of the bad record


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(UserError, match="empty"):
        FAMILY.import_files(tmp_path / "empty.jsonl")


# ---- the released prompt ---------------------------------------------------------------------------

def test_the_released_prompt_style_reproduces_the_released_prompt() -> None:
    [instance] = FAMILY.import_files(PROMPTS)
    record = json.loads(PROMPTS.read_text())
    # the released Lite file has K = 5 (its longest cascade); this one-record excerpt alone would give 3
    data = instance.model_dump()
    instance = type(instance).model_validate({**data, "meta": {**data["meta"], "max_programs": 5}})
    prompt = FAMILY.prompt(instance, "released")
    assert [m["role"] for m in prompt.messages] == ["user"]
    text = prompt.messages[0]["content"]
    # the released text, plus restriction 6: the alphabet line of the released template, which the
    # released scorer enforces although its prompt files do not say it
    alphabet_line = "6. Only characters: abcdefghijkuvwxyz are included\n"
    assert alphabet_line in text
    assert text.replace(alphabet_line, "") == record["prompt"].rstrip("\n")


def test_the_default_prompt_states_the_released_constraints() -> None:
    instance = FAMILY.import_files(HEAD29)[0]
    user = FAMILY.prompt(instance).messages[-1]["content"]
    assert "at most 5 programs" in user and "at most 3 characters" in user and "abcdefghijkuvwxyz" in user


# ---- balancing on either classifier -----------------------------------------------------------------

def test_presets_balance_the_released_categories_and_a_parameter_balances_the_exact_ones() -> None:
    params = {k: v for k, v in PRESETS["cascade-demo"].params.items() if k != "length_weights"}
    released_items = [generate_one(params, 1, i) for i in range(16)]
    assert [i.meta["category"] for i in released_items] == list(CATEGORIES)
    exact_items = [generate_one({**params, "balance_on": "exact"}, 1, i) for i in range(16)]
    assert [i.meta["category_exact"] for i in exact_items] == list(CATEGORIES)
    for item in [*released_items, *exact_items]:
        cascade = item.cascade()
        assert item.meta["category"] == released.released_category(cascade)
        assert item.meta["category_exact"] == category_bits(cascade_relations(cascade))
