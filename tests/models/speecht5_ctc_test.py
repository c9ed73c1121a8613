import json
import os
import shutil

import pytest
import torch
from allennlp.common import Params
from allennlp.data import Vocabulary
from allennlp.models import Model

from srcframework.metrics.text_noise import word_and_character_errors
from srcframework.models.speecht5_ctc import SpeechT5CtcModel
from srcframework.jobs.synthesis import synthesize_questions
from srcframework.speech.speecht5_ctc_network import CHARACTERS, normalize_transcript
from tests.conftest import FIXTURES
from tests.tiny_models import TINY_CTC_ENCODER as TINY_ENCODER



def tiny_model(**kwargs) -> SpeechT5CtcModel:
    torch.manual_seed(0)
    return SpeechT5CtcModel(Vocabulary(), dict(TINY_ENCODER), **kwargs)


@pytest.fixture(scope="module")
def spoken_folder(tmp_path_factory):
    """Six questions of squad_tiny.json read by flite kal16, awb and slt (the synthesis job)."""
    out = tmp_path_factory.mktemp("ctc_spoken") / "src"
    synthesize_questions(str(FIXTURES / "squad_tiny.json"), str(out), "flite:kal16,flite:awb,flite:slt", limit=6, progress=False)
    return out


@pytest.fixture(scope="module")
def trained(spoken_folder, tmp_path_factory):
    """The tiny fixture config trained for two epochs; the serialization folder."""
    from allennlp.commands.train import train_model_from_file

    saved = os.environ.get("TINY_SRC_DIR")
    os.environ["TINY_SRC_DIR"] = str(spoken_folder)
    try:
        out = tmp_path_factory.mktemp("ctc_train")
        train_model_from_file(str(FIXTURES / "speecht5_ctc_tiny.jsonnet"), str(out), force=True)
    finally:
        if saved is None:
            os.environ.pop("TINY_SRC_DIR", None)
        else:
            os.environ["TINY_SRC_DIR"] = saved
    return out


def test_normalize_transcript():
    assert normalize_transcript("What's the Zürich-based firm's 2nd office?") == "what's the zurich based firm's 2nd office"
    assert normalize_transcript("  Who  wrote “Kyoto” — in 1984?  ") == "who wrote kyoto in 1984"
    assert normalize_transcript("it\u2019s") == "it's"
    assert normalize_transcript("?!") == ""
    assert set(normalize_transcript("Ωmega; ÅNGSTRÖM & co.")) <= set(CHARACTERS[1:])


def test_word_and_character_errors_count_edits():
    # "a b c" -> "a x c d": words: one substitution, one insertion; characters: b->x, then " d"
    # inserted (three edits of five characters); the empty reference is left out
    assert word_and_character_errors(["a b c", ""], ["a x c d", "anything"]) == (2, 3, 3, 5)


def test_perturbation_changes_speed_and_volume_only_when_asked():
    model = tiny_model(speed_perturbation=[1.1, 1.1], volume_perturbation_db=None)
    row = torch.randn(16000)
    faster = model.perturb(row)
    assert faster.numel() == pytest.approx(16000 / 1.1, abs=2)
    louder = tiny_model(speed_perturbation=None, volume_perturbation_db=[6.0, 6.0]).perturb(row)
    assert torch.allclose(louder, row * 10 ** (6 / 20))
    with pytest.raises(Exception, match="low <= high"):
        tiny_model(speed_perturbation=[1.1, 0.9])


def test_forward_perturbs_in_training_only(spoken_folder):
    from srcframework.data.dataset_readers.squad_src import SquadSrcReader
    from allennlp.data import Batch

    instances = list(SquadSrcReader().read(str(spoken_folder / "fid2qid_dev.csv")))[:3]
    batch = Batch(instances)
    batch.index_instances(Vocabulary())
    tensors = batch.as_tensor_dict()
    model = tiny_model(speed_perturbation=[0.9, 0.9], volume_perturbation_db=[-6.0, 6.0], seed=1)
    model.eval()
    first = model(**tensors)
    second = model(**tensors)
    assert torch.equal(first["logits"], second["logits"])  # nothing random in evaluation
    frames = model.network.frames(tensors["question"]["mask"].sum(-1))
    assert torch.equal(first["mask"].sum(-1), frames)
    metrics = model.get_metrics(reset=True)
    assert {"ctc_loss", "cer", "wer"} <= set(metrics) and metrics["cer"] > 0
    assert all(set(t) <= set(CHARACTERS[1:]) for t in first["transcript"])
    assert first["reference"] == [normalize_transcript(i["metadata"]["question"]) for i in instances]
    model.train()
    slowed = model(**tensors)
    assert (slowed["mask"].sum(-1) > frames).all()  # speed 0.9: longer utterances, more frames
    assert torch.isfinite(slowed["loss"]) and "transcript" not in slowed
    assert "cer" not in model.get_metrics()


def test_trains_saves_and_loads_through_the_speecht5_question_encoder(trained):
    from allennlp.models.archival import load_archive

    from srcframework.modules.field_encoders.speecht5 import SpeechT5AudioEncoder
    from tests.tiny_models import audio_batch

    metrics = json.loads((trained / "metrics.json").read_text())
    assert metrics["epoch"] == 1 and metrics["best_epoch"] in (0, 1)
    for key in ("training_loss", "validation_loss", "validation_cer", "validation_wer", "validation_ctc_loss"):
        assert key in metrics and metrics[key] == metrics[key]  # present, not NaN
    folder = trained / "speecht5_ctc"
    assert sorted(os.listdir(folder)) == ["config.json", "ctc_head.safetensors", "ctc_vocabulary.json", "model.safetensors"]
    assert json.loads((folder / "ctc_vocabulary.json").read_text())["characters"] == CHARACTERS

    model = load_archive(str(trained / "model.tar.gz")).model.eval()
    encoder = SpeechT5AudioEncoder(model_name=str(folder)).eval()
    archived = model.network.encoder.state_dict()
    loaded = encoder.model.state_dict()
    assert set(archived) == set(loaded)
    assert all(torch.equal(archived[k], loaded[k]) for k in archived)
    fresh = tiny_model().network.encoder.state_dict()
    assert not torch.equal(fresh["prenet.feature_projection.projection.weight"], loaded["prenet.feature_projection.projection.weight"])

    batch = audio_batch([5000, 3100, 800])
    with torch.no_grad():
        ours, our_mask = model.network.encode(batch["waveform"], batch["mask"].sum(-1))
        theirs, their_mask = encoder(batch)
    assert torch.equal(our_mask, their_mask)
    assert torch.allclose(ours[our_mask], theirs[their_mask], atol=1e-5)


def test_the_encoder_folder_is_written_again_from_the_archive(trained, tmp_path):
    """What the recipe runner does for a training put back from its released archive."""
    from allennlp.models.archival import load_archive

    from srcframework.models.speecht5_ctc_callback import SaveSpeechT5CtcCallback

    from srcframework.training.callback_outputs import write_callback_outputs

    model = load_archive(str(trained / "model.tar.gz")).model
    SaveSpeechT5CtcCallback.outputs_from_archive(model, str(tmp_path / "direct"))
    # the runner finds the callback in the training's config
    for name in ("config.json", "model.tar.gz"):
        shutil.copyfile(trained / name, tmp_path / name)
    write_callback_outputs(str(tmp_path))
    for name in os.listdir(trained / "speecht5_ctc"):
        original = (trained / "speecht5_ctc" / name).read_bytes()
        assert (tmp_path / "direct" / "speecht5_ctc" / name).read_bytes() == original, name
        assert (tmp_path / "speecht5_ctc" / name).read_bytes() == original, name


def test_a_finished_pretraining_restored_from_its_snapshot_has_its_encoder_folder(trained, tmp_path):
    from srcframework.store import snapshot

    snapshot.save(str(trained), folder=str(tmp_path / "s"))
    snapshot.restore(str(trained), folder=str(tmp_path / "s"), target=str(tmp_path / "back"))
    for name in os.listdir(trained / "speecht5_ctc"):
        assert (tmp_path / "back" / "speecht5_ctc" / name).read_bytes() == (trained / "speecht5_ctc" / name).read_bytes()


def test_from_params_builds_the_configured_encoder():
    model = Model.from_params(
        vocab=Vocabulary(),
        params=Params({"type": "speecht5_ctc", "encoder": dict(TINY_ENCODER, encoder_layers=1), "speed_perturbation": None}),
    )
    assert isinstance(model, SpeechT5CtcModel)
    assert len(model.network.encoder.wrapped_encoder.layers) == 1 and model.speed_perturbation is None
    assert model.network.head.out_features == len(CHARACTERS) == 39


def test_an_initializer_continues_saved_weights(tmp_path):
    trained = tiny_model(seed=1)
    for parameter in trained.parameters():
        torch.nn.init.normal_(parameter.data)
    path = tmp_path / "best.th"
    torch.save(trained.state_dict(), path)
    params = Params({"type": "speecht5_ctc", "encoder": dict(TINY_ENCODER), "seed": 2,
                     "initializer": {"regexes": [[".*", {"type": "pretrained", "weights_file_path": str(path)}]]}})
    continued = Model.from_params(vocab=Vocabulary(), params=params)
    for name, tensor in continued.state_dict().items():
        assert torch.equal(tensor, trained.state_dict()[name]), name
    fresh = Model.from_params(vocab=Vocabulary(), params=Params({"type": "speecht5_ctc", "encoder": dict(TINY_ENCODER), "seed": 2}))
    assert any(not torch.equal(t, trained.state_dict()[n]) for n, t in fresh.state_dict().items())
