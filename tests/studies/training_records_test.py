"""A study records what each archive's training did, and whether a robust model is matched with
its twin."""
import io
import json
import tarfile

from srcframework.studies.tables import training_table
from srcframework.studies.training_records import read_training_record


def archive(path, record=None):
    with tarfile.open(path, "w:gz") as tar:
        payload = b"{}" if record is None else json.dumps(record).encode()
        info = tarfile.TarInfo("training_record.json" if record is not None else "config.json")
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    return str(path)


RECORD = {"checkpoint": "last", "epoch": 6, "epochs": 6, "instances": 99564, "updates": 4980,
          "vocabulary": {"tokens": 21000, "token_characters": 260}, "instances_per_epoch": {"1": 16594}}


def test_the_summary_of_an_archives_record(tmp_path):
    summary = read_training_record(archive(tmp_path / "m.tar.gz", RECORD))
    assert summary == {key: RECORD[key] for key in ("checkpoint", "epoch", "epochs", "instances", "updates", "vocabulary")}
    assert read_training_record(archive(tmp_path / "old.tar.gz")) is None
    assert read_training_record(str(tmp_path / "missing.tar.gz")) is None
    (tmp_path / "not_a_tar.tar.gz").write_text("x")
    assert read_training_record(str(tmp_path / "not_a_tar.tar.gz")) is None


def test_the_table_says_whether_twins_are_matched():
    other = dict(RECORD, updates=4000)
    results = {"models": [
        {"name": "clean", "twin": None, "training": [RECORD, RECORD]},
        {"name": "robust", "twin": "clean", "training": [RECORD, other]},
        {"name": "old", "twin": "clean", "training": [None]},
    ]}
    table = training_table(results)
    assert [row[:2] + row[-1:] for row in table.rows] == [["clean", 1, ""], ["clean", 2, ""], ["robust", 1, "yes"], ["robust", 2, "no"]]
    assert table.rows[0][2:6] == ["last (6 of 6)", 99564, 4980, 21000]
