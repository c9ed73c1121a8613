import importlib.util
import json

import pytest
import torch
from allennlp.data import Vocabulary

from srcframework.models.speecht5_ctc import SpeechT5CtcModel
from srcframework.modules.field_encoders.speecht5 import SpeechT5AudioEncoder
from tests.conftest import ROOT
from tests.tiny_models import TINY_CTC_ENCODER

SPEC = importlib.util.spec_from_file_location("export_speecht5_ctc", ROOT / "scripts" / "export_speecht5_ctc.py")
SCRIPT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(SCRIPT)


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


def test_an_epoch_exports_to_a_folder_the_speecht5_encoder_loads(run, tmp_path):
    folder, model = run
    SCRIPT.main([str(folder), "--epoch", "2", "--output", str(tmp_path / "enc")])
    loaded = SpeechT5AudioEncoder(model_name=str(tmp_path / "enc")).model.state_dict()
    expected = model.network.encoder.state_dict()
    assert set(loaded) == set(expected)
    assert all(torch.equal(loaded[k], expected[k]) for k in expected)
    assert (tmp_path / "enc" / "ctc_head.safetensors").is_file()


def test_a_missing_epoch_or_another_model_is_a_clear_error(run, tmp_path):
    folder, _ = run
    with pytest.raises(SystemExit, match=r"no checkpoint of epoch 5 \(kept: model_state_e2_b0.th\)"):
        SCRIPT.main([str(folder), "--epoch", "5", "--output", str(tmp_path / "enc")])
    (folder / "config.json").write_text(json.dumps({"model": {"type": "bidaf"}}))
    with pytest.raises(SystemExit, match="'bidaf', not speecht5_ctc"):
        SCRIPT.main([str(folder), "--epoch", "2", "--output", str(tmp_path / "enc")])
