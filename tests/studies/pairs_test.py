import json
import os
import tarfile

import pytest

from srcframework.studies.pairs import Fingerprints, check_archives, pair_key, path_fingerprint, referenced_paths
from srcframework.studies.study import StudyError, study_from_dict
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "squad_tiny.json")


def test_fingerprints_of_files_folders_and_reader_params(tmp_path):
    (tmp_path / "wavs").mkdir()
    (tmp_path / "wavs" / "a.wav").write_bytes(b"12")
    first = path_fingerprint(str(tmp_path))
    assert first.startswith("dir:") and path_fingerprint(str(tmp_path)) == first
    (tmp_path / "wavs" / "b.wav").write_bytes(b"3")
    assert path_fingerprint(str(tmp_path)) != first
    assert path_fingerprint(TINY) == path_fingerprint(TINY) and len(path_fingerprint(TINY)) == 64
    params = {"type": "squad_src", "squad_file": TINY, "nested": [{"folder": str(tmp_path)}], "name": "x"}
    assert referenced_paths(params) == sorted([TINY, str(tmp_path)])
    with pytest.raises(FileNotFoundError):
        path_fingerprint(os.path.join(str(tmp_path), "none"))

def test_audio_set_key_covers_the_recordings_beside_its_file(tmp_path):
    folder = tmp_path / "src"
    (folder / "wavs").mkdir(parents=True)
    (folder / "fid2qid_dev.csv").write_text("DEV000001\tq1\n")
    (folder / "wavs" / "DEV000001_SPK001.wav").write_bytes(b"RIFF0")
    study = study_from_dict({
        "models": {"e2e": {"archive": str(FIXTURES / "bidaf_tiny.jsonnet"), "input": "audio"}},
        "test_sets": {"spoken": {"data": str(folder / "fid2qid_dev.csv"), "input": "audio", "interface": "accent",
                                 "kind": "natural"}},
    })
    key = pair_key(study, "e2e", "spoken", Fingerprints())
    assert pair_key(study, "e2e", "spoken", Fingerprints()) == key
    (folder / "wavs" / "DEV000001_SPK001.wav").write_bytes(b"RIFF01")  # a recording replaced
    assert pair_key(study, "e2e", "spoken", Fingerprints()) != key

def test_the_key_covers_the_files_the_archives_own_reader_names(tmp_path):
    """A test set without a dataset_reader is read with the archive's reader: a file that reader
    names (a squad_file, or a {split} pattern) changing makes the pairs stale."""
    squad = tmp_path / "squad_dev.json"
    squad.write_text("{}")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"dataset_reader": {"type": "squad_src", "squad_file": str(tmp_path / "squad_{split}.json")}}))
    archive = tmp_path / "model.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(config, "config.json")
    study = study_from_dict({
        "models": {"m": {"archive": str(archive)}},
        "test_sets": {"clean": {"data": TINY, "interface": "clean", "kind": "natural"}},
    })
    key = pair_key(study, "m", "clean", Fingerprints())
    squad.write_text('{"data": []}')
    assert pair_key(study, "m", "clean", Fingerprints()) != key
    assert referenced_paths({"squad_file": str(tmp_path / "squad_{split}.json")}) == [str(squad)]


def test_a_study_only_evaluates_a_missing_archive_is_one_line(tmp_path):
    archives = [tmp_path / "s1.tar.gz", tmp_path / "s2.tar.gz"]
    for archive in archives:
        archive.write_bytes(b"x")
    study = study_from_dict({"models": {"m": {"archives": [str(archive) for archive in archives]}},
                             "test_sets": {"clean": {"data": TINY, "interface": "clean", "kind": "natural"}}}, "s.json")
    check_archives(study, "m")
    archives[1].unlink()
    with pytest.raises(StudyError, match=rf"^s.json: models.m.archives\[1\]: not found: {archives[1]}$"):
        check_archives(study, "m")
