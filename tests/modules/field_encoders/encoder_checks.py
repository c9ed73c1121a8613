"""
The checks every pretrained field encoder passes (`PretrainedEncoderChecks`) and those every
audio encoder passes besides (`AudioEncoderChecks`), shared the way `SpanQAModelChecks` is by the
span_qa configurations. A test class names the encoder (`encoder_class`, `name`), the tiny
checkpoint it reads (`kind`, a key of `tests.tiny_models.WRITERS`), where its transformer layers
are (`layers`, an attribute path in the model) and its inputs (`batch`, `lengths`, `small_batch`).
"""
import shutil
from operator import attrgetter
from typing import Dict, List

import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError

from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from tests.tiny_models import CONV, audio_batch, tiny_checkpoint

LENGTHS = [80000, 50000, 20000, 3000]  # 5 s, 3.1 s, 1.25 s, 0.19 s
FRAMES = [249, 156, 62, 9]  # the tiny convolution stack's frames for LENGTHS


def expected_frames(samples: int) -> int:
    """Frames out of the tiny convolution stack, by the Conv1d length formula."""
    for kernel, stride in zip(CONV["conv_kernel"], CONV["conv_stride"]):
        samples = (samples - kernel) // stride + 1
    return samples


def row_of(batch: Dict[str, torch.Tensor], row: int) -> Dict[str, torch.Tensor]:
    """Row `row` of an audio batch alone, without its padding."""
    length = int(batch["mask"][row].sum())
    return {key: value[row : row + 1, :length] for key, value in batch.items()}


def with_legacy_weight_norm_names(state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """`state` under the weight_g / weight_v names of old checkpoints (as on the hub)."""
    return {
        k.replace("parametrizations.weight.original0", "weight_g").replace("parametrizations.weight.original1", "weight_v"): v
        for k, v in state.items()
    }


class PretrainedEncoderChecks:
    """Registration, output shape and mask, freezing and `from_params` of a pretrained encoder."""

    encoder_class: type
    name: str
    kind: str
    layers: str

    @pytest.fixture(scope="class")
    @classmethod
    def model_dir(cls, tmp_path_factory) -> str:
        return tiny_checkpoint(tmp_path_factory, cls.kind)

    @pytest.fixture(scope="class")
    @classmethod
    def encoder(cls, model_dir):
        return cls.encoder_class(model_dir, output_dim=12).eval()

    def transformer_layers(self, model) -> torch.nn.ModuleList:
        return attrgetter(self.layers)(model)

    def batch(self, model_dir: str):
        """Field tensors whose rows hold `lengths()` positions."""
        raise NotImplementedError

    def lengths(self) -> List[int]:
        raise NotImplementedError

    def small_batch(self, model_dir: str):
        """Field tensors that are quick to encode and backpropagate."""
        raise NotImplementedError

    def test_is_registered(self):
        assert FieldEncoder.by_name(self.name) is self.encoder_class

    def test_output_shape_and_mask(self, encoder, model_dir):
        with torch.no_grad():
            encoded, mask = encoder(self.batch(model_dir))
        lengths = self.lengths()
        assert encoded.shape == (len(lengths), max(lengths), 12) and encoder.get_output_dim() == 12
        assert mask.dtype == torch.bool and mask.sum(-1).tolist() == lengths
        assert all(mask[i, :n].all() and not mask[i, n:].any() for i, n in enumerate(lengths))
        assert torch.isfinite(encoded).all()

    def test_freeze_trains_only_the_projection(self, model_dir):
        encoder = self.encoder_class(model_dir, output_dim=12, freeze=True, num_layers=1, dropout=0.1).train()
        assert len(self.transformer_layers(encoder.model)) == 1
        assert not any(p.requires_grad for p in encoder.model.parameters())
        assert not encoder.model.training and encoder.dropout.training
        encoded, mask = encoder(self.small_batch(model_dir))
        encoded[mask].pow(2).sum().backward()
        assert all(p.grad is None for p in encoder.model.parameters())
        assert encoder.projection.weight.grad is not None and encoder.projection.weight.grad.abs().sum() > 0

    def test_built_from_its_config_alone(self, model_dir, encoder, tmp_path):
        """`load_weights: false` (a model loaded from an archive that holds every weight): the same
        architecture from config.json alone, its weights at their initial values."""
        folder = tmp_path / "config_only"
        folder.mkdir()
        shutil.copy(f"{model_dir}/config.json", folder)
        built = self.encoder_class(str(folder), output_dim=12, load_weights=False).eval()
        loaded, fresh = encoder.state_dict(), built.state_dict()
        assert {key: value.shape for key, value in fresh.items()} == {key: value.shape for key, value in loaded.items()}
        assert any(not torch.equal(fresh[key], loaded[key]) for key in loaded if key.startswith("model."))
        built.load_state_dict(loaded)
        with torch.no_grad():
            assert torch.equal(built(self.batch(model_dir))[0], encoder(self.batch(model_dir))[0])

    def test_from_params(self, model_dir):
        params = {"output_dim": 10, "freeze": True, "dropout": 0.1, "num_layers": 1}
        encoder = FieldEncoder.from_params(Params({"type": self.name, "model_name": model_dir, **params}))
        assert isinstance(encoder, self.encoder_class) and encoder.get_output_dim() == 10 and encoder.freeze
        assert encoder.dropout.p == 0.1 and len(self.transformer_layers(encoder.model)) == 1


class AudioEncoderChecks(PretrainedEncoderChecks):
    """The checks of an encoder of `AudioField` batches (16 kHz; the tiny checkpoints give a
    frame every 320 samples)."""

    def batch(self, model_dir: str):
        return audio_batch(LENGTHS)

    def lengths(self) -> List[int]:
        return FRAMES

    def small_batch(self, model_dir: str):
        return audio_batch([8000, 6000])

    def test_frames_follow_the_convolution_formula(self):
        assert [expected_frames(n) for n in LENGTHS] == FRAMES

    def test_without_output_dim_gives_the_hidden_size(self, model_dir):
        encoder = self.encoder_class(model_dir).eval()
        assert encoder.projection is None and encoder.get_output_dim() == 32
        assert encoder(audio_batch([16000]))[0].shape == (1, 49, 32)

    def test_one_utterance_matches_the_models_own_forward(self, encoder):
        batch = audio_batch([30000], seed=3)
        with torch.no_grad():
            ours = encoder.encode(batch)[0]
            reference = encoder.model(batch["waveform"]).last_hidden_state
        assert torch.allclose(ours, reference, atol=1e-5)

    @pytest.mark.parametrize("norm", ["group", "layer"])
    def test_padding_does_not_change_encodings(self, tmp_path_factory, norm):
        encoder = self.encoder_class(tiny_checkpoint(tmp_path_factory, self.kind, norm), output_dim=12).eval()
        batch = audio_batch(LENGTHS, seed=1)
        with torch.no_grad():
            together, mask = encoder(batch)
            for row in range(len(LENGTHS)):
                alone, alone_mask = encoder(row_of(batch, row))
                frames = int(alone_mask.sum())
                assert frames == FRAMES[row] == int(mask[row].sum())
                assert torch.allclose(together[row, :frames], alone[0], atol=1e-5), (norm, row)

    def test_utterance_shorter_than_a_frame_gets_one(self, encoder):
        with torch.no_grad():
            encoded, mask = encoder(audio_batch([16000, 100]))
        assert mask.sum(-1).tolist() == [49, 1] and torch.isfinite(encoded).all()

    def test_bad_batches_raise_clear_errors(self, encoder):
        batch = audio_batch([1000, 500])
        with pytest.raises(ValueError, match="hold no samples"):
            encoder({"waveform": batch["waveform"], "mask": torch.zeros_like(batch["mask"])})
        holey = batch["mask"].clone()
        holey[0, 10] = False
        with pytest.raises(ValueError, match="first samples"):
            encoder({"waveform": batch["waveform"], "mask": holey})
        with pytest.raises(ValueError, match="AudioField"):
            encoder({"tokens": batch["waveform"]})
        with pytest.raises(ValueError, match="B x T"):
            encoder({"waveform": batch["waveform"][0], "mask": batch["mask"][0]})

    def test_empty_utterance_raises(self, encoder):
        batch = audio_batch([1000, 500])
        batch["mask"][1] = False
        with pytest.raises(ValueError, match=r"rows \[1\]"):
            encoder(batch)

    def test_num_layers_keeps_the_first_layers(self, model_dir, encoder):
        shallow = self.encoder_class(model_dir, output_dim=12, num_layers=1).eval()
        assert len(self.transformer_layers(shallow.model)) == 1
        shallow.projection.load_state_dict(encoder.projection.state_dict())
        batch = audio_batch([8000])
        with torch.no_grad():
            assert not torch.allclose(shallow(batch)[0], encoder(batch)[0])
        for wrong in (0, 3):
            with pytest.raises(ConfigurationError, match="between 1 and 2"):
                self.encoder_class(model_dir, num_layers=wrong)

    def test_convolutions_run_batched_only_where_the_feature_encoder_trains(self, model_dir, monkeypatch):
        from srcframework.modules.field_encoders import pretrained_audio

        calls = []
        for name in ("convolve_batched", "convolve_per_utterance"):
            real = getattr(pretrained_audio, name)
            monkeypatch.setattr(pretrained_audio, name, lambda *args, _real=real, _name=name: calls.append(_name) or _real(*args))
        batch = audio_batch([900, 1400, 1100])
        trained = self.encoder_class(model_dir, output_dim=12, freeze_feature_encoder=False).eval()
        frozen = self.encoder_class(model_dir, output_dim=12, freeze_feature_encoder=True).eval()
        with_grad, _ = trained.encode(batch)
        frozen.encode(batch)
        with torch.no_grad():
            without_grad, _ = trained.encode(batch)
        assert calls == ["convolve_batched", "convolve_per_utterance", "convolve_per_utterance"]
        assert torch.allclose(with_grad, without_grad, atol=1e-5)  # either way, the same encodings
