"""recipes/e2e_cpu/text_bidaf_weights.py: the weights and vocabulary of a text BiDAF archive (a
card id or a path) unpacked for the end-to-end stages, only when the archive holds the declared
last epoch; anything else is one line and no folder."""
import importlib.util
import io
import json
import subprocess
import sys
import tarfile

import pytest
import torch

from tests.conftest import ROOT

SPEC = importlib.util.spec_from_file_location("text_bidaf_weights", ROOT / "recipes" / "e2e_cpu" / "text_bidaf_weights.py")
SCRIPT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(SCRIPT)


def with_record(archive, target, **record) -> str:
    """`archive` copied to `target` with a training_record.json holding `record`."""
    with tarfile.open(archive) as source, tarfile.open(target, "w:gz") as out:
        for member in source.getmembers():
            out.addfile(member, source.extractfile(member) if member.isfile() else None)
        payload = json.dumps(record).encode()
        info = tarfile.TarInfo("training_record.json")
        info.size = len(payload)
        out.addfile(info, io.BytesIO(payload))
    return str(target)


def test_the_last_epoch_of_an_archive_is_unpacked(tiny_archive, tmp_path):
    archive = with_record(tiny_archive, tmp_path / "last.tar.gz", checkpoint="last", epoch=2, epochs=2)
    source = SCRIPT.unpack(archive, str(tmp_path / "text_bidaf"), epoch=2)
    folder = tmp_path / "text_bidaf"
    assert sorted(p.name for p in folder.iterdir()) == ["source.json", "vocabulary", "weights.th"]
    assert (folder / "vocabulary" / "tokens.txt").is_file()
    with tarfile.open(archive) as tar:
        packed = torch.load(io.BytesIO(tar.extractfile("weights.th").read()))
    unpacked = torch.load(folder / "weights.th")
    assert packed.keys() == unpacked.keys() and all(torch.equal(packed[k], unpacked[k]) for k in packed)
    assert json.loads((folder / "source.json").read_text()) == source
    assert source["training_record"]["epoch"] == 2 and len(source["sha256"]) == 64
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("text_bidaf.")]  # no scratch folder left


def test_the_released_card_is_unpacked_and_another_copy_under_its_id_is_never_used(tiny_archive, tmp_path, monkeypatch):
    from srcframework.pretrained import install, model_card

    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "models"))  # nothing installed: the release
    source = SCRIPT.unpack("bidaf-clean", str(tmp_path / "released"), epoch=6)
    assert source["sha256"] == model_card("bidaf-clean").model_usage.sha256
    assert (tmp_path / "released" / "weights.th").is_file()
    # a copy from another training installed under the id (same last epoch, other weights): a
    # released id loads only its card's archive, the clone's release first (pretrained.py), so the
    # copy is passed over and the release unpacked again
    install("bidaf-clean", with_record(tiny_archive, tmp_path / "other.tar.gz", checkpoint="last", epoch=6, epochs=6))
    again = SCRIPT.unpack("bidaf-clean", str(tmp_path / "other"), epoch=6)
    assert again["sha256"] == source["sha256"]
    released = torch.load(tmp_path / "released" / "weights.th")
    other = torch.load(tmp_path / "other" / "weights.th")
    assert released.keys() == other.keys() and all(torch.equal(released[k], other[k]) for k in released)


@pytest.mark.parametrize("record, message", [
    (None, "no training_record.json in the archive"),
    ({"checkpoint": "best", "epoch": 2, "epochs": 2}, "it holds epoch 2 of 2 (checkpoint 'best'); the end-to-end model "
                                                      "starts from the last epoch, 2"),
    ({"checkpoint": "last", "epoch": 1, "epochs": 1}, "it holds epoch 1 of 1"),
])
def test_an_archive_without_the_declared_epoch_is_refused_with_no_folder(tiny_archive, tmp_path, record, message):
    archive = str(tiny_archive) if record is None else with_record(tiny_archive, tmp_path / "a.tar.gz", **record)
    with pytest.raises(SystemExit) as stop:
        SCRIPT.unpack(archive, str(tmp_path / "out"), epoch=2)
    assert message in str(stop.value.code) and "\n" not in str(stop.value.code)
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_the_script_says_a_refusal_in_one_line(tiny_archive, tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "recipes" / "e2e_cpu" / "text_bidaf_weights.py"), str(tiny_archive),
                           str(tmp_path / "out"), "--epoch", "2"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1
    assert "no training_record.json in the archive" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
