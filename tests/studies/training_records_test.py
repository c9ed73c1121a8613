"""A study records what each archive's training did, and whether a robust model is matched with
its twin."""
import io
import json
import tarfile

from srcframework.studies.score_tables import training_table
from srcframework.studies.training_records import read_random_seed, read_training_record


def archive(path, record=None, tokens="@@PADDING@@\n@@UNKNOWN@@\nthe\n", namespaces="*labels\n*tags\n", config=None):
    with tarfile.open(path, "w:gz") as tar:
        files = {"config.json": json.dumps(config or {}).encode(), "vocabulary/tokens.txt": tokens.encode(), "vocabulary/.lock": b"",
                 "vocabulary/non_padded_namespaces.txt": namespaces.encode()}
        if record is not None:
            files["training_record.json"] = json.dumps(record).encode()
        for name, payload in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    return str(path)


RECORD = {"checkpoint": "last", "epoch": 6, "epochs": 6, "instances": 99564, "updates": 4980,
          "vocabulary": {"tokens": 21000, "token_characters": 260}, "instances_per_epoch": {"1": 16594}}


def test_the_summary_of_an_archives_record(tmp_path):
    summary = read_training_record(archive(tmp_path / "m.tar.gz", RECORD))
    digest = summary.pop("vocabulary_sha256")
    assert summary == {key: RECORD[key] for key in ("checkpoint", "epoch", "epochs", "instances", "updates", "vocabulary")}
    # the digest of the vocabulary files: the same tokens give the same digest, one token more another
    assert read_training_record(archive(tmp_path / "same.tar.gz", RECORD))["vocabulary_sha256"] == digest
    # AllenNLP writes the non-padded namespaces (a set) in hash order, which differs between processes
    assert read_training_record(archive(tmp_path / "order.tar.gz", RECORD, namespaces="*tags\n*labels\n"))[
        "vocabulary_sha256"] == digest
    assert read_training_record(archive(tmp_path / "more.tar.gz", RECORD, tokens="@@PADDING@@\n@@UNKNOWN@@\nthe\na\n"))[
        "vocabulary_sha256"] != digest
    # the training seed, where the archive's config sets it
    assert read_training_record(archive(tmp_path / "s2.tar.gz", RECORD, config={"random_seed": 2}))["random_seed"] == 2
    assert read_training_record(archive(tmp_path / "old.tar.gz")) is None
    assert read_training_record(str(tmp_path / "missing.tar.gz")) is None
    (tmp_path / "not_a_tar.tar.gz").write_text("x")
    assert read_training_record(str(tmp_path / "not_a_tar.tar.gz")) is None


def test_the_table_says_whether_twins_are_matched():
    other = dict(RECORD, updates=4000)
    # as many tokens as the twin's, but other ones (a noisy training token in place of a clean one)
    other_tokens = dict(RECORD, vocabulary_sha256="b" * 64)
    record = dict(RECORD, vocabulary_sha256="a" * 64)
    results = {"models": [
        {"name": "clean", "twin": None, "training": [record, record, record]},
        {"name": "robust", "twin": "clean", "training": [record, other, other_tokens]},
        {"name": "old", "twin": "clean", "training": [None]},
    ]}
    table = training_table(results)
    assert [row[:2] + row[-1:] for row in table.rows] == [
        ["clean", "#1", ""], ["clean", "#2", ""], ["clean", "#3", ""], ["robust", "#1", "yes"], ["robust", "#2", "no"],
        ["robust", "#3", "no"]]
    assert table.rows[0][2:6] == ["last (6 of 6)", 99564, 4980, 21000]


def test_the_seed_tables_name_each_archive_by_its_training_seed():
    from srcframework.studies.score_tables import seeds_table

    results = {"models": [{"name": "e2e", "twin": None, "training": [dict(RECORD, random_seed=1), dict(RECORD, random_seed=2)]},
                          {"name": "old", "twin": None, "training": [None, None]}],
               "pairs": [{"model": name, "set": "spoken", "seeds": [
                   {"seed": index, "archive": f"{name}{index}.tar.gz", "em": 1.0, "f1": 2.0, "f1_drop": None} for index in (0, 1)]}
                   for name in ("e2e", "old")]}
    assert [row[1] for row in training_table(results).rows] == ["1", "2"]
    assert [row[2] for row in seeds_table(results).rows] == ["1", "2", "#1", "#2"]
    # an archive without a training record still names the seed its config sets
    results["models"][1]["random_seeds"] = [7, None]
    assert [row[2] for row in seeds_table(results).rows] == ["1", "2", "7", "#2"]


def test_the_random_seed_of_an_archive_without_a_training_record(tmp_path):
    assert read_random_seed(archive(tmp_path / "old.tar.gz", config={"random_seed": 3})) == 3
    assert read_random_seed(archive(tmp_path / "none.tar.gz")) is None
    assert read_random_seed(archive(tmp_path / "odd.tar.gz", config={"random_seed": "3"})) is None
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"random_seed": 5}))
    assert read_random_seed(str(folder)) == 5
    assert read_random_seed(str(tmp_path / "missing.tar.gz")) is None


def test_an_archive_without_its_run_folder_gives_the_curve_its_record_holds(tmp_path, monkeypatch):
    from srcframework.studies.training_records import read_validation_curve

    record = dict(RECORD, validation_metric=["f1"], validation_per_epoch={"1": 0.18, "3": 0.45, "2": 0.3})
    curve = read_validation_curve(archive(tmp_path / "released.tar.gz", record))
    assert curve["metric"] == "validation_f1" and curve["values"] == [18.0, 30.0, 45.0]
    assert curve["source"].endswith("released.tar.gz (training_record.json)")
    cer = read_validation_curve(archive(tmp_path / "ctc.tar.gz", dict(RECORD, validation_metric=["-cer"],
                                                                         validation_per_epoch={"1": 0.59})))
    assert cer["metric"] == "validation_cer" and cer["values"] == [0.59]  # not a percentage: as recorded
    assert read_validation_curve(archive(tmp_path / "old.tar.gz", RECORD)) is None
    monkeypatch.chdir(tmp_path)  # an archive under the working folder is named relative to it
    assert read_validation_curve(str(tmp_path / "released.tar.gz"))["source"] == "released.tar.gz (training_record.json)"
    assert read_validation_curve(archive(tmp_path / "bare.tar.gz")) is None
