"""A study's per-question record (srcframework/studies/records.py): packed deterministically from
a study folder, and `allennlp compare STUDY --reanalyse RECORD` writing the study's results again
from it alone, equal to the run's byte for byte, with no archive and no data file to read."""
import io
import json
import tarfile
from pathlib import Path

import pytest

from srcframework.commands.compare import run
from srcframework.common.errors import InputError
from srcframework.studies.records import INPUTS_NAME, MTIME, main, pack_bytes, pack_records, record_members
from tests.commands.compare_test import parse
from tests.conftest import ROOT, run_allennlp, shared_file

QUICKSTART = str(ROOT / "recipes" / "quickstart" / "study.jsonnet")
OUTPUTS = ["results.json", "results.md", "results.csv", "results.tex", "report.html"]


def record_files(folder: Path, results: dict) -> None:
    """A study folder with `results` and one-question pair files for every pair it lists."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(results))
    (folder / "pairs").mkdir(exist_ok=True)
    (folder / "pairs" / INPUTS_NAME).write_text(json.dumps({"format": 1, "models": {}, "test_sets": {}, "contexts": {}}))
    for member in record_members(results):
        path = folder / member
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text(json.dumps({"id": "q1", "prediction": "a", "answers": ["a"], "groups": {}}) + "\n")


TWO_SEEDS = {
    "models": [{"name": "m", "archives": ["a1", "a2"]}, {"name": "n", "archive": "b"}],
    "pairs": [{"model": "m", "set": "clean"}, {"model": "n", "set": "clean"}, {"model": "m", "set": "typos"}],
}


def test_record_members_are_every_pair_and_seed_of_the_results_sorted():
    assert record_members(TWO_SEEDS) == [
        "pairs/inputs.json",
        "pairs/m__clean/predictions.jsonl", "pairs/m__clean/scores.json",
        "pairs/m__clean/seed1/predictions.jsonl", "pairs/m__clean/seed1/scores.json",
        "pairs/m__typos/predictions.jsonl", "pairs/m__typos/scores.json",
        "pairs/m__typos/seed1/predictions.jsonl", "pairs/m__typos/seed1/scores.json",
        "pairs/n__clean/predictions.jsonl", "pairs/n__clean/scores.json",
    ]


def test_packing_gives_the_same_bytes_again_whatever_the_files_times(tmp_path):
    import os

    record_files(tmp_path / "study", TWO_SEEDS)
    (tmp_path / "study" / "pairs" / "m__clean" / "predictions.jsonl.tmp-7").write_text("{")  # a killed write: left out
    (tmp_path / "study" / "pairs" / "old__clean").mkdir()  # a pair the results do not list: left out
    (tmp_path / "study" / "pairs" / "old__clean" / "scores.json").write_text("{}")
    size = pack_records(str(tmp_path / "study"), str(tmp_path / "first.tar.xz"))
    for path in (tmp_path / "study").rglob("*"):
        os.utime(path, (1_000_000_000, 1_000_000_000))
    pack_records(str(tmp_path / "study"), str(tmp_path / "second.tar.xz"))
    first = (tmp_path / "first.tar.xz").read_bytes()
    assert size == len(first) and first == (tmp_path / "second.tar.xz").read_bytes()
    assert first[:6] == b"\xfd7zXZ\x00"  # xz
    with tarfile.open(fileobj=io.BytesIO(first)) as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == record_members(TWO_SEEDS)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname, m.mode, m.isfile()) for m in members} == {(MTIME, 0, 0, "", "", 0o644, True)}
    assert pack_bytes(str(tmp_path / "study"), list(reversed(record_members(TWO_SEEDS)))) == first  # any order given


def test_the_module_packs_a_study_folder(tmp_path, capsys):
    record_files(tmp_path / "study", TWO_SEEDS)
    assert main([str(tmp_path / "study"), str(tmp_path / "pairs.tar.xz")]) == 0
    assert capsys.readouterr().out == f"per-question record: {tmp_path / 'pairs.tar.xz'} (0.0 MB)\n"
    assert (tmp_path / "pairs.tar.xz").read_bytes() == pack_bytes(str(tmp_path / "study"), record_members(TWO_SEEDS))
    assert main([str(tmp_path / "absent"), str(tmp_path / "other.tar.xz")]) == 1
    assert capsys.readouterr().err.startswith("error: missing ")


def test_packing_a_folder_without_a_pair_names_it_and_writes_nothing(tmp_path):
    record_files(tmp_path / "study", TWO_SEEDS)
    (tmp_path / "study" / "pairs" / "m__typos" / "seed1" / "scores.json").unlink()
    with pytest.raises(InputError, match=r"no pairs/m__typos/seed1/scores.json for the record: rerun the study"):
        pack_records(str(tmp_path / "study"), str(tmp_path / "record.tar.xz"))
    (tmp_path / "study" / "pairs" / INPUTS_NAME).unlink()
    with pytest.raises(InputError, match=r"no pairs/inputs.json \(1 more missing\) for the record: assemble the study again"):
        pack_records(str(tmp_path / "study"), str(tmp_path / "record.tar.xz"))
    assert not (tmp_path / "record.tar.xz").exists()


def quickstart_pair(folder: Path, test_set: str) -> None:
    """A pair of the quickstart study as `allennlp compare` writes it (one question)."""
    folder.mkdir(parents=True)
    record = {"id": "q1", "prediction": "1911", "answers": ["1911"], "groups": {}, "question": "When?",
              "original_question": "When?"}
    (folder / "predictions.jsonl").write_text(json.dumps(record) + "\n")
    report = {"overall": {"em": 100.0, "f1": 100.0, "count": 1}, "by_country": {}, "by_gender": {}, "by_speaker": {},
              "f1_range": None}
    (folder / "scores.json").write_text(json.dumps({"key": "k", "model": "quickstart", "set": test_set, "report": report,
                                                    "question_noise": None}))


def test_a_pair_missing_from_the_record_is_one_line_naming_it(tmp_path):
    for test_set in ("clean", "keyboard"):
        quickstart_pair(tmp_path / "pairs" / f"quickstart__{test_set}", test_set)
    (tmp_path / "pairs" / INPUTS_NAME).write_text(json.dumps({"format": 1, "models": {}, "test_sets": {}, "contexts": {}}))
    members = [str(p.relative_to(tmp_path)) for p in (tmp_path / "pairs").rglob("*") if p.is_file()]
    record = tmp_path / "pairs.tar.xz"
    record.write_bytes(pack_bytes(str(tmp_path), members))
    with pytest.raises(InputError) as raised:
        run(parse(QUICKSTART, "--reanalyse", str(record), "-o", str(tmp_path / "out"), "--no-progress"))
    message = str(raised.value)
    assert message.startswith(f"{record}: no pair quickstart__misspelling (pairs/quickstart__misspelling/predictions.jsonl")
    assert "\n" not in message and not (tmp_path / "out" / "results.json").exists()
    done = run_allennlp("compare", QUICKSTART, "--reanalyse", record, "-o", tmp_path / "out")
    assert done.returncode == 1 and done.stderr.strip().splitlines()[-1] == f"error: {message}"
    with pytest.raises(InputError, match="--reanalyse: not found: .*absent.tar.xz"):
        run(parse(QUICKSTART, "--reanalyse", str(tmp_path / "absent.tar.xz"), "-o", str(tmp_path / "out")))
    with pytest.raises(ValueError, match="--reanalyse runs no pair; give it without --merge"):
        run(parse(QUICKSTART, "--reanalyse", str(record), "-o", str(tmp_path / "out"), "--merge"))


def test_a_record_without_inputs_or_outside_pairs_is_refused(tmp_path):
    quickstart_pair(tmp_path / "pairs" / "quickstart__clean", "clean")
    record = tmp_path / "pairs.tar.xz"
    record.write_bytes(pack_bytes(str(tmp_path), ["pairs/quickstart__clean/scores.json"]))
    with pytest.raises(InputError, match=r"no pairs/inputs.json: the record does not say what the analysis read"):
        run(parse(QUICKSTART, "--reanalyse", str(record), "-o", str(tmp_path / "out")))
    (tmp_path / "evil").write_text("x")
    record.write_bytes(pack_bytes(str(tmp_path), ["evil"]))
    with pytest.raises(InputError, match=r"'evil' is not a file of a study's pairs/ folder"):
        run(parse(QUICKSTART, "--reanalyse", str(record), "-o", str(tmp_path / "out")))


@pytest.fixture(scope="module")
def quickstart_study(tmp_path_factory):
    """The quickstart study run as its recipe runs it, on the released bidaf-quickstart (no
    training): the noisy sets made by the noise sources (seed 0), then `allennlp compare`."""
    from srcframework.jobs.challenge_set import make_challenge_set
    from srcframework.noise.preset import noise_params
    from srcframework.studies.runner import run_study
    from srcframework.studies.study import load_study

    shared_file("misspellings/wikipedia_common_misspellings.txt")
    folder = tmp_path_factory.mktemp("quickstart")
    runs = folder / "runs"
    (runs / "quickstart" / "sets").mkdir(parents=True)
    for name in ("keyboard", "misspelling"):
        make_challenge_set("srcframework/data/default/dev.json", str(runs / "quickstart" / "sets" / f"{name}.json"),
                           noise_params(name), seed=0, progress=False)
    out = folder / "study"
    run_study(load_study(QUICKSTART, runs=str(runs)), str(out), progress=False)
    return runs, out


@pytest.mark.slow
def test_the_quickstart_study_is_reanalysed_from_its_record_alone(quickstart_study, tmp_path, monkeypatch):
    import shutil

    from srcframework import pretrained
    from srcframework.studies import collection, evaluation, pairs

    runs, out = quickstart_study
    inputs = json.loads((out / "pairs" / INPUTS_NAME).read_text())
    assert len(inputs["contexts"]) == 205 and len(set(inputs["contexts"].values())) == 50
    assert inputs["models"]["quickstart"]["archive"].endswith("bidaf-quickstart.tar.gz")
    assert inputs["models"]["quickstart"]["training"][0]["epochs"] == 8
    assert inputs["test_sets"]["keyboard"]["noise_source"]["type"] == "keyboard"
    record = tmp_path / "pairs.tar.xz"
    pack_records(str(out), str(record))
    expected = {name: (out / name).read_bytes() for name in OUTPUTS}
    # nothing but the record: the sets and the study folder gone, every archive and data read refused
    kept = tmp_path / "kept"
    shutil.copytree(runs, kept)
    shutil.rmtree(runs)

    def refused(*args, **kwargs):
        raise AssertionError(f"a reanalysis read an archive or a data file: {args}")

    for module, name in [(evaluation, "load_model"), (pairs, "path_fingerprint"), (pairs, "archive_reader"),
                         (collection, "read_training_record"), (collection, "read_random_seed"),
                         (collection, "read_validation_curve"), (collection, "question_contexts"),
                         (collection, "recorded_noise"), (pretrained, "archive_path")]:
        monkeypatch.setattr(module, name, refused)
    try:
        summary = run(parse(QUICKSTART, "--reanalyse", str(record), "-o", str(tmp_path / "again"), "--no-progress"))
    finally:
        shutil.copytree(kept, runs)
    assert summary == {"pairs": 3, "pairs_run": 0, "reanalysed": str(record), "assembled": True}
    assert {name: (tmp_path / "again" / name).read_bytes() for name in OUTPUTS} == expected
    assert not (tmp_path / "again" / "pairs").exists()
    # another bootstrap seed changes the intervals, not the figures
    run(parse(QUICKSTART, "--reanalyse", str(record), "-o", str(tmp_path / "seed1"), "--seed", "1", "--no-progress"))
    other = json.loads((tmp_path / "seed1" / "results.json").read_text())
    results = json.loads(expected["results.json"])
    assert [p["f1"] for p in other["pairs"]] == [p["f1"] for p in results["pairs"]]
    assert other["statistics"]["seed"] == 1 and other["pairs"][0]["f1_low"] != results["pairs"][0]["f1_low"]


@pytest.mark.slow
def test_packing_the_quickstart_study_twice_gives_the_same_bytes(quickstart_study, tmp_path):
    _, out = quickstart_study
    assert pack_records(str(out), str(tmp_path / "a.tar.xz")) == pack_records(str(out), str(tmp_path / "b.tar.xz"))
    assert (tmp_path / "a.tar.xz").read_bytes() == (tmp_path / "b.tar.xz").read_bytes()
    with tarfile.open(tmp_path / "a.tar.xz") as tar:
        assert tar.getnames() == sorted(tar.getnames()) and len(tar.getnames()) == 7


@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["listening", "e2e_voices", "quickstart"])
def test_the_committed_records_give_the_committed_results(recipe, tmp_path):
    """The studies whose record is committed: their results.json again from pairs.tar.xz alone."""
    folder = ROOT / "recipes" / recipe
    run(parse(str(folder / "study.jsonnet"), "--reanalyse", str(folder / "pairs.tar.xz"), "-o", str(tmp_path), "--no-progress"))
    assert (tmp_path / "results.json").read_bytes() == (folder / "results.json").read_bytes()
