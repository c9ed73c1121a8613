"""An archive is read to its end before anything extracts it: a flipped byte, a truncated file and a
git-LFS pointer file are each one line, from the check itself and from `allennlp evaluate` and
`allennlp predict` (which extract through `srcframework.compat`)."""
import gzip
import json
import shutil
import tarfile

import pytest

from srcframework.common.archive_check import ArchiveError, check_archive
from tests.conftest import FIXTURES, ROOT, run_allennlp

POINTER = ("version https://git-lfs.github.com/spec/v1\n"
           "oid sha256:5f508bbd6966116a440de0b810f3965ecc213adea3ace6af7dbf4695dcbe06c5\nsize 2553103\n")
KINDS = ("flipped", "truncated", "pointer")


def damaged(source, target, kind: str):
    """A copy of the model archive `source` at `target`: `flipped` (its tar gzipped without
    compression, so one byte of a member changed still decompresses and only the CRC tells),
    `truncated` (its last third gone) or `pointer` (a git-LFS pointer file in its place)."""
    if kind == "pointer":
        target.write_text(POINTER)
    elif kind == "truncated":
        payload = source.read_bytes()
        target.write_bytes(payload[: 2 * len(payload) // 3])
    else:
        with gzip.open(source) as stream:
            tar = stream.read()
        with gzip.open(target, "wb", compresslevel=0) as stream:
            stream.write(tar)
        payload = bytearray(target.read_bytes())
        payload[10 + 5 + 700] ^= 0x01  # a byte of the first member's data, after the gzip and block headers
        target.write_bytes(bytes(payload))
    return target


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_archive_is_one_line_naming_the_file(tiny_archive, tmp_path, kind):
    archive = damaged(tiny_archive, tmp_path / "model.tar.gz", kind)
    with pytest.raises(ArchiveError) as error:
        check_archive(str(archive))
    message = str(error.value)
    assert "\n" not in message and message.startswith(f"{archive} is ")
    expected = {"flipped": "is damaged: CRC check failed", "truncated": "is truncated: its gzip stream ends early",
                "pointer": "is a git-LFS pointer file (2,553,103 bytes, sha256 5f508bbd6966...), not the archive "
                           "itself: run `git lfs pull`"}
    assert expected[kind] in message


def test_a_flipped_byte_in_the_stored_tar_still_extracts_without_the_check(tiny_archive, tmp_path):
    """What the check is for: tarfile alone extracts the damaged copy without a word."""
    archive = damaged(tiny_archive, tmp_path / "model.tar.gz", "flipped")
    with tarfile.open(archive, "r:gz") as tar:
        tar.extractall(tmp_path / "out", filter="data")
    assert (tmp_path / "out" / "config.json").is_file()


def test_a_byte_flipped_in_the_middle_of_the_released_archive_is_caught(tmp_path):
    archive = tmp_path / "bidaf-quickstart.tar.gz"
    shutil.copyfile(ROOT / "models" / "bidaf-quickstart.tar.gz", archive)
    payload = bytearray(archive.read_bytes())
    payload[len(payload) // 2] ^= 0x10
    archive.write_bytes(bytes(payload))
    with pytest.raises(ArchiveError, match=f"^{archive} is "):
        check_archive(str(archive))


def test_a_sound_archive_passes_and_other_files_are_named(tiny_archive, tmp_path):
    check_archive(str(tiny_archive))
    (tmp_path / "empty.tar.gz").write_bytes(b"")
    with pytest.raises(ArchiveError, match="not a gzip file \\(an empty file\\)"):
        check_archive(str(tmp_path / "empty.tar.gz"))
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ArchiveError, match="is not a model archive \\(.tar.gz\\): not a gzip file"):
        check_archive(str(tmp_path / "config.json"))
    with gzip.open(tmp_path / "text.gz", "wb") as stream:
        stream.write(b"not a tar" * 100)
    with pytest.raises(ArchiveError, match="is not a valid tar archive inside its gzip stream"):
        check_archive(str(tmp_path / "text.gz"))
    with pytest.raises(FileNotFoundError, match="archive not found"):
        check_archive(str(tmp_path / "missing.tar.gz"))


def one_error_line(done) -> str:
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0] == done.stderr.strip().splitlines()[-1], done.stderr[-3000:]
    return errors[0]


@pytest.mark.parametrize("kind", KINDS)
def test_allennlp_evaluate_gives_one_line_and_no_metrics(tiny_archive, tmp_path, kind):
    archive = damaged(tiny_archive, tmp_path / "model.tar.gz", kind)
    done = run_allennlp("evaluate", str(archive), str(FIXTURES / "squad_tiny.json"),
                        "--output-file", str(tmp_path / "metrics.json"))
    assert one_error_line(done).startswith(f"error: {archive} is ")
    assert not (tmp_path / "metrics.json").exists()


@pytest.mark.parametrize("kind", KINDS)
def test_allennlp_predict_gives_one_line_and_no_predictions(tiny_archive, tmp_path, kind):
    archive = damaged(tiny_archive, tmp_path / "model.tar.gz", kind)
    inputs = tmp_path / "input.jsonl"
    inputs.write_text(json.dumps({"context": "The harbour was dredged in 1882.", "question": "When?"}) + "\n")
    done = run_allennlp("predict", str(archive), str(inputs), "--predictor", "span_qa", "--silent",
                        "--output-file", str(tmp_path / "predictions.jsonl"))
    assert one_error_line(done).startswith(f"error: {archive} is ")
    assert not (tmp_path / "predictions.jsonl").exists()
