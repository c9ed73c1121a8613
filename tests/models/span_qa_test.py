import pytest
import torch
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase
from allennlp.data import Batch
from allennlp.models import Model

from tests.conftest import FIXTURES


def batch_tensors(instances, vocab) -> dict:
    batch = Batch(instances)
    batch.index_instances(vocab)
    return batch.as_tensor_dict()


class SpanQAModelChecks:
    """ModelTestCase's checks, for every span_qa configuration below."""

    def test_train_save_load_predict_consistency(self):
        self.ensure_model_can_train_save_and_load(self.param_file, tolerance=1e-4)

    def test_batch_predictions_are_consistent(self):
        self.ensure_batch_predictions_are_consistent(keys_to_ignore=["loss"])


class TestSpanQA(SpanQAModelChecks, ModelTestCase):
    def setup_method(self):
        super().setup_method()
        # the initial weights, whatever tests ran before in this process (overfitting 9 questions
        # reaches F1 0.78 to 1.0 depending on them)
        torch.manual_seed(0)
        self.set_up_model(FIXTURES / "bidaf_tiny.jsonnet", FIXTURES / "squad_tiny.json")

    def test_forward_outputs_answer_strings_and_metrics(self):
        self.model.eval()
        output = self.model(**batch_tensors(self.instances, self.vocab))
        assert len(output["best_span_str"]) == len(self.instances)
        for answer, instance in zip(output["best_span_str"], self.instances):
            assert answer in instance["metadata"]["context"]
        metrics = self.model.get_metrics(reset=True)
        assert set(metrics) == {"start_acc", "end_acc", "span_acc", "em", "f1"}
        assert self.model.get_metrics() == {}

    def test_training_mode_reports_loss_only(self):
        self.model.train()
        output = self.model(**batch_tensors(self.instances, self.vocab))
        assert "best_span_str" not in output and output["loss"].requires_grad
        assert self.model.get_metrics() == {}

    def test_overfits_tiny_data(self):
        torch.manual_seed(0)
        tensors = batch_tensors(self.instances, self.vocab)
        optimizer = torch.optim.Adam(self.model.parameters(), lr=0.02)
        self.model.eval()
        self.model(**tensors)
        before = self.model.get_metrics(reset=True)["f1"]
        for _ in range(60):
            self.model.train()
            optimizer.zero_grad()
            self.model(**tensors)["loss"].backward()
            optimizer.step()
        self.model.eval()
        self.model(**tensors)
        after = self.model.get_metrics(reset=True)["f1"]
        assert after > max(0.8, before + 0.3)

    def test_encoder_width_mismatch_is_a_clear_error(self):
        params = Params.from_file(self.param_file)
        params["model"]["span_head"]["input_dim"] = 12
        with pytest.raises(ValueError, match="context_encoder output size 10 != span_head input size 12"):
            Model.from_params(vocab=self.vocab, params=params["model"])


@pytest.fixture(scope="class")
def spoken_questions(request, tmp_path_factory):
    """Six questions of squad_tiny.json spoken by three flite voices in a SQuAD-SRC-layout folder,
    and a tiny random SpeechT5, named to the e2e fixture config through its extVars."""
    import json
    import os
    import shutil

    from srcframework.data.squad_src_layout import wav_name, write_fid2qid, write_speaker_table, Speaker
    from srcframework.common.audio import write_wav_atomic
    from srcframework.speech.flite import FliteSynthesizer
    from tests.tiny_models import tiny_checkpoint

    folder = tmp_path_factory.mktemp("e2e_src")
    voices = [("SPK101", "kal16", "US", "M"), ("SPK103", "awb", "UK", "M"), ("SPK105", "slt", "US", "F")]
    questions = [qa for article in json.loads((FIXTURES / "squad_tiny.json").read_text())["data"]
                 for paragraph in article["paragraphs"] for qa in paragraph["qas"]][:6]
    rows = []
    for number, qa in enumerate(questions, 1):
        speaker, voice = voices[number % 3][:2]
        waveform, rate = FliteSynthesizer(voice).synthesize(qa["question"])
        fid = f"DEV{number:06d}"
        write_wav_atomic(str(folder / "wavs" / wav_name(fid, speaker)), waveform, rate)
        rows.append((fid, qa["id"]))
    write_fid2qid(str(folder / "fid2qid_dev.csv"), rows)
    write_speaker_table(str(folder / "speakers.tsv"), [Speaker(s, c, g, "flite:" + v) for s, v, c, g in voices])
    shutil.copy(FIXTURES / "squad_tiny.json", folder / "squad.json")
    saved = {name: os.environ.get(name) for name in ("TINY_SRC_DIR", "TINY_SPEECHT5")}
    os.environ["TINY_SRC_DIR"] = str(folder)
    os.environ["TINY_SPEECHT5"] = tiny_checkpoint(tmp_path_factory, "speecht5")
    request.cls.src_dir = folder
    yield folder
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.mark.usefixtures("spoken_questions")
class TestSpanQASpokenQuestions(SpanQAModelChecks, ModelTestCase):
    """The same span_qa model and bi_attention head with an audio question (SpeechT5)."""

    def setup_method(self):
        super().setup_method()
        self.set_up_model(FIXTURES / "e2e_tiny.jsonnet", self.src_dir / "fid2qid_dev.csv")

    def test_a_released_archive_loads_without_the_speech_encoders_folder(self, tmp_path, monkeypatch):
        import json
        import os
        import shutil

        from allennlp.common.checks import ConfigurationError
        from allennlp.models.archival import archive_model, load_archive

        from srcframework.store.release import slim

        # the model trained with the encoder's folder at `encoder`, archived, then released
        encoder = tmp_path / "speecht5_encoder"
        shutil.copytree(os.environ["TINY_SPEECHT5"], encoder)
        config = Params.from_file(str(self.param_file)).as_dict(quiet=True)
        config["model"]["question_encoder"]["model_name"] = str(encoder)
        model = Model.from_params(vocab=self.vocab, params=Params(json.loads(json.dumps(config["model"]))))
        # the config names it relative to the repository's root, where trainings run
        monkeypatch.setattr("srcframework.pretrained.repository_root", lambda: str(tmp_path))
        config["model"]["question_encoder"]["model_name"] = encoder.name
        run = tmp_path / "run"
        run.mkdir()
        (run / "config.json").write_text(json.dumps(config))
        torch.save(model.state_dict(), run / "weights.th")
        self.vocab.save_to_files(str(run / "vocabulary"))
        archive = archive_model(str(run), weights="weights.th")
        released = tmp_path / "released.tar.gz"
        report = slim(archive, str(released))
        assert ("fta/model.question_encoder/config.json", (encoder / "config.json").stat().st_size) in report["kept"]
        shutil.rmtree(encoder)  # another machine
        with pytest.raises(ConfigurationError, match="speecht5_encoder"):
            load_archive(archive)  # the training's own archive needs the folder
        loaded = load_archive(str(released)).model
        model.eval(), loaded.eval()
        with torch.no_grad():
            expected = model(**batch_tensors(self.instances, self.vocab))
            found = loaded(**batch_tensors(self.instances, self.vocab))
        assert torch.equal(expected["span_start_logits"], found["span_start_logits"])
        assert found["best_span_str"] == expected["best_span_str"]

    def test_outputs_carry_speaker_groups(self):
        self.model.eval()
        output = self.model(**batch_tensors(self.instances, self.vocab))
        assert {g["speaker"] for g in output["groups"]} == {"SPK101", "SPK103", "SPK105"}
        assert {g["country"] for g in output["groups"]} == {"US", "UK"}
        assert all(answer in instance["metadata"]["context"]
                   for answer, instance in zip(output["best_span_str"], self.instances))
        assert type(self.model.question_encoder).__name__ == "SpeechT5AudioEncoder"
