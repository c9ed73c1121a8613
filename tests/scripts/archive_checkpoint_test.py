import importlib.util

import json

import pytest
import torch
from allennlp.data import Vocabulary
from allennlp.models.archival import load_archive

from srcframework.models.speecht5_ctc import SpeechT5CtcModel
from srcframework.modules.field_encoders.speecht5 import SpeechT5AudioEncoder
from tests.conftest import ROOT
from tests.tiny_models import TINY_CTC_ENCODER

SPEC = importlib.util.spec_from_file_location("archive_checkpoint", ROOT / "scripts" / "archive_checkpoint.py")
SCRIPT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(SCRIPT)
main = SCRIPT.main


def test_archives_an_epoch_checkpoint_that_loads_with_those_weights(tiny_archive, tmp_path):
    run = tiny_archive.parent
    checkpoints = sorted(run.glob("model_state_e*_b0.th"))
    assert checkpoints, "the tiny run keeps its epoch checkpoints"
    epoch = int(checkpoints[0].name.split("_e")[1].split("_")[0])
    output = tmp_path / "epoch" / "model.tar.gz"
    main([str(run), "--epoch", str(epoch), "--output", str(output)])
    expected = torch.load(checkpoints[0], map_location="cpu")
    model = load_archive(str(output)).model
    for name, value in model.state_dict().items():
        assert torch.equal(value, expected[name]), name


def test_a_missing_epoch_or_folder_is_a_clear_error(tiny_archive, tmp_path):
    with pytest.raises(SystemExit, match="no checkpoint of epoch 99 \\(kept: "):
        main([str(tiny_archive.parent), "--epoch", "99", "--output", str(tmp_path / "m.tar.gz")])
    with pytest.raises(SystemExit, match="not a training run's folder"):
        main([str(tmp_path), "--epoch", "1", "--output", str(tmp_path / "m.tar.gz")])


@pytest.fixture
def run(tmp_path):
    """A serialization folder holding one epoch's weights of a tiny random speecht5_ctc model."""
    torch.manual_seed(3)
    model = SpeechT5CtcModel(Vocabulary(), dict(TINY_CTC_ENCODER))
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model": {"type": "speecht5_ctc", "encoder": dict(TINY_CTC_ENCODER)}}))
    Vocabulary().save_to_files(str(folder / "vocabulary"))
    torch.save(model.state_dict(), folder / "model_state_e2_b0.th")
    return folder, model


def test_an_epoch_of_a_ctc_run_writes_an_encoder_folder_the_speecht5_encoder_loads(run, tmp_path):
    folder, model = run
    main([str(folder), "--epoch", "2", "--encoder-folder", str(tmp_path / "enc")])
    loaded = SpeechT5AudioEncoder(model_name=str(tmp_path / "enc")).model.state_dict()
    expected = model.network.encoder.state_dict()
    assert set(loaded) == set(expected)
    assert all(torch.equal(loaded[k], expected[k]) for k in expected)
    assert (tmp_path / "enc" / "ctc_head.safetensors").is_file()


def test_encoder_folder_errors_are_clear(run, tmp_path):
    folder, _ = run
    with pytest.raises(SystemExit, match=r"no checkpoint of epoch 5 \(kept: model_state_e2_b0.th\)"):
        main([str(folder), "--epoch", "5", "--encoder-folder", str(tmp_path / "enc")])
    (folder / "config.json").write_text(json.dumps({"model": {"type": "bidaf"}}))
    with pytest.raises(SystemExit, match="'bidaf', not speecht5_ctc"):
        main([str(folder), "--epoch", "2", "--encoder-folder", str(tmp_path / "enc")])
