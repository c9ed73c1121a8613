import pytest
import torch
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase
from allennlp.data import Batch, DatasetReader
from allennlp.models import Model

from srcframework.modules.field_encoders.text import TextFieldEncoder
from srcframework.modules.seq2seq_encoders.padded_bilstm import PaddedBiLstm
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

    @pytest.mark.parametrize("threads", [1, 2])
    def test_training_autocast_trains_in_bfloat16_and_evaluates_in_float32(self, threads):
        params = Params.from_file(self.param_file)
        params["model"]["training_autocast"] = "bfloat16"
        model = Model.from_params(vocab=self.vocab, params=params["model"])
        model.load_state_dict(self.model.state_dict())
        lstm_outputs, encodings = [], []
        for module in model.modules():
            if isinstance(module, torch.nn.LSTM):  # padded_bilstm's, in worker threads at 2 threads
                module.register_forward_hook(lambda _m, _i, out: lstm_outputs.append(out[0].dtype))
            if isinstance(module, (PaddedBiLstm, TextFieldEncoder)):  # masked outputs stay bfloat16
                module.register_forward_hook(lambda _m, _i, out: encodings.append(
                    (out[0] if isinstance(out, tuple) else out).dtype))
        tensors = batch_tensors(self.instances, self.vocab)
        before = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            torch.manual_seed(1)
            self.model.train()
            reference = self.model(**tensors)["loss"]
            torch.manual_seed(1)
            model.train()
            output = model(**tensors)
            loss = output["loss"]
            loss.backward()
        finally:
            torch.set_num_threads(before)
        assert lstm_outputs and set(lstm_outputs) == {torch.bfloat16}
        assert encodings and set(encodings) == {torch.bfloat16}
        assert output["span_start_logits"].dtype == output["span_end_logits"].dtype == torch.float32
        assert loss.dtype == torch.float32 and abs(loss.item() - reference.item()) < 0.05 * reference.item()
        trained = [p for p in model.parameters() if p.requires_grad]
        assert all(p.grad is not None and p.grad.dtype == torch.float32 and torch.isfinite(p.grad).all() for p in trained)
        lstm_outputs.clear()
        encodings.clear()
        model.eval()
        self.model.eval()
        evaluated = model(**tensors)
        assert set(lstm_outputs) == {torch.float32}
        assert set(encodings) == {torch.float32}
        assert torch.equal(evaluated["span_start_logits"], self.model(**tensors)["span_start_logits"])

    def test_an_unknown_training_autocast_is_a_clear_error(self):
        params = Params.from_file(self.param_file)
        params["model"]["training_autocast"] = "float16"
        with pytest.raises(ValueError, match="training_autocast must be null or \"bfloat16\", got 'float16'"):
            Model.from_params(vocab=self.vocab, params=params["model"])

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

    @pytest.mark.slow
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

    def test_a_reader_with_ctc_targets_trains_a_model_with_a_ctc_weight(self):
        """The reader's `question_targets` reach span_qa by name, through AllenNLP's batching."""
        import json

        config = Params.from_file(str(self.param_file)).as_dict(quiet=True)
        config["dataset_reader"]["ctc_targets"] = True
        config["model"]["question_encoder"]["ctc_weight"] = 0.3
        reader = DatasetReader.from_params(Params(config["dataset_reader"]))
        instances = list(reader.read(str(self.src_dir / "fid2qid_dev.csv")))
        model = Model.from_params(vocab=self.vocab, params=Params(json.loads(json.dumps(config["model"]))))
        model.train()
        output = model(**batch_tensors(instances, self.vocab))
        assert torch.isfinite(output["question_ctc_loss"]) and output["question_ctc_loss"] > 0
        output["loss"].backward()
        assert model.question_encoder.ctc_layer.weight.grad.abs().sum() > 0
        assert set(model.get_metrics(reset=True)) == {"question_ctc_loss"}  # training reports no spans

    def test_outputs_carry_speaker_groups(self):
        self.model.eval()
        output = self.model(**batch_tensors(self.instances, self.vocab))
        assert {g["speaker"] for g in output["groups"]} == {"SPK101", "SPK103", "SPK105"}
        assert {g["country"] for g in output["groups"]} == {"US", "UK"}
        assert all(answer in instance["metadata"]["context"]
                   for answer, instance in zip(output["best_span_str"], self.instances))
        assert type(self.model.question_encoder).__name__ == "SpeechT5AudioEncoder"


# A CTC loss on the speech encoder beside the span loss (the speecht5 encoder's ctc_weight)

CTC_CONTEXTS = ["the harbour was built in 1850 by the river", "what river flows by the harbour"]
CTC_QUESTIONS = ["When was the harbour built?", "What flows by it?"]


@pytest.fixture(scope="module")
def ctc_recognizer(tmp_path_factory):
    from tests.tiny_models import save_tiny_ctc_recognizer

    return save_tiny_ctc_recognizer(tmp_path_factory.mktemp("ctc_recognizer"))


def ctc_model(recognizer, vocab, seed=0, **encoder):
    from tests.tiny_models import span_qa_params

    question_encoder = {"type": "speecht5", "model_name": recognizer, "output_dim": 10, **encoder}
    torch.manual_seed(seed)
    return Model.from_params(vocab=vocab, params=Params(span_qa_params(question_encoder))).eval()


def ctc_batch():
    from srcframework.speech.speecht5_ctc_network import character_ids
    from tests.tiny_models import audio_batch, context_batch

    vocab, context = context_batch(CTC_CONTEXTS)
    rows = [torch.tensor(character_ids(text)) for text in CTC_QUESTIONS]
    targets = torch.nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=-1)
    batch = {
        "context": context,
        "question": audio_batch([24000, 16000], seed=4),
        "span_start": torch.tensor([[6], [1]]),
        "span_end": torch.tensor([[6], [1]]),
    }
    return vocab, batch, targets


def independent_ctc_loss(model, question, texts):
    """torch's CTC loss of the question encoder's CTC layer on its speech encodings, from the texts."""
    from srcframework.speech.speecht5_ctc_network import character_ids

    encoder = model.question_encoder
    hidden, mask = encoder.encode(question)
    log_probs = torch.log_softmax(encoder.ctc_layer(hidden), -1).transpose(0, 1)
    ids = [character_ids(text) for text in texts]
    flat = torch.tensor([i for row in ids for i in row])
    return torch.nn.functional.ctc_loss(log_probs, flat, mask.sum(-1), torch.tensor([len(row) for row in ids]), blank=0)


def test_with_ctc_weight_0_the_model_is_todays(ctc_recognizer):
    vocab, batch, targets = ctc_batch()
    today = ctc_model(ctc_recognizer, vocab)
    off = ctc_model(ctc_recognizer, vocab, ctc_weight=0.0)
    assert today.state_dict().keys() == off.state_dict().keys()
    assert all(torch.equal(value, off.state_dict()[key]) for key, value in today.state_dict().items())
    expected, found = today(**batch), off(**batch)
    assert torch.equal(expected["loss"], found["loss"])
    assert torch.equal(expected["span_start_logits"], found["span_start_logits"])
    assert torch.equal(expected["best_span"], found["best_span"])
    assert "question_ctc_loss" not in found and "question_ctc_loss" not in off.get_metrics()
    # targets for an encoder without a CTC layer
    with pytest.raises(ValueError, match="carries question_targets .* has no auxiliary loss") as error:
        off(**batch, question_targets=targets)
    assert "\n" not in str(error.value)


def test_the_loss_is_the_span_loss_plus_the_weighted_ctc_loss(ctc_recognizer):
    vocab, batch, targets = ctc_batch()
    model = ctc_model(ctc_recognizer, vocab, ctc_weight=0.3)
    span_only = model(**batch)
    both = model(**batch, question_targets=targets)
    ctc = independent_ctc_loss(model, batch["question"], CTC_QUESTIONS)
    assert torch.isfinite(ctc) and ctc > 0
    assert torch.allclose(both["question_ctc_loss"], ctc)
    assert torch.allclose(both["loss"], span_only["loss"] + 0.3 * ctc)
    # the span head saw the same encodings either way
    assert torch.equal(both["span_start_logits"], span_only["span_start_logits"])
    assert model.get_metrics(reset=True)["question_ctc_loss"] == pytest.approx(float(ctc.detach()), rel=1e-5)
    assert "question_ctc_loss" not in model.get_metrics()


def test_the_ctc_term_trains_the_speech_encoder(ctc_recognizer):
    vocab, batch, targets = ctc_batch()
    model = ctc_model(ctc_recognizer, vocab, ctc_weight=0.3)
    layer = model.question_encoder.model.wrapped_encoder.layers[0].attention.k_proj.weight

    def gradient(loss):
        model.zero_grad()
        loss.backward()
        return layer.grad.clone()

    both = gradient(model(**batch, question_targets=targets)["loss"])
    span_only = gradient(model(**batch)["loss"])
    ctc = gradient(independent_ctc_loss(model, batch["question"], CTC_QUESTIONS))
    assert ctc.abs().sum() > 0
    assert torch.allclose(both - span_only, 0.3 * ctc, atol=1e-6)
    model.zero_grad()
    model(**batch, question_targets=targets)["question_ctc_loss"].backward()
    assert model.question_encoder.ctc_layer.weight.grad.abs().sum() > 0
    assert model.question_encoder.projection.weight.grad is None  # the CTC loss is before the projection


def test_the_ctc_loss_of_a_batch_run_in_groups_is_the_batchs(ctc_recognizer):
    vocab, batch, targets = ctc_batch()
    whole = ctc_model(ctc_recognizer, vocab, ctc_weight=0.3)
    grouped = ctc_model(ctc_recognizer, vocab, ctc_weight=0.3)
    whole.group_by_length, grouped.max_group_positions = False, 10  # one row a group
    expected = whole(**batch, question_targets=targets)
    found = grouped(**batch, question_targets=targets)
    assert torch.allclose(found["question_ctc_loss"], expected["question_ctc_loss"])
    assert torch.allclose(found["loss"], expected["loss"])
