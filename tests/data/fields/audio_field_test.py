import random

import numpy
import pytest
import torch
from allennlp.data import Batch, Instance
from allennlp.data.samplers import BucketBatchSampler

from srcframework.data.fields.audio_field import AudioField, padding_fraction

RATE = 16000


def noise(num_samples, seed=0):
    return numpy.random.default_rng(seed).standard_normal(num_samples).astype(numpy.float32)


def test_padding_lengths_tensor_and_mask():
    waveform = noise(5)
    field = AudioField(waveform, source="a.wav")
    assert field.get_padding_lengths() == {"num_samples": 5}
    assert len(field) == 5
    tensors = field.as_tensor({"num_samples": 8})
    assert set(tensors) == {"waveform", "mask"}
    assert tensors["waveform"].dtype == torch.float32 and tensors["mask"].dtype == torch.bool
    assert torch.equal(tensors["waveform"][:5], torch.from_numpy(waveform))
    assert torch.equal(tensors["waveform"][5:], torch.zeros(3))
    assert tensors["mask"].tolist() == [True] * 5 + [False] * 3
    with pytest.raises(ValueError, match="cannot pad 5 samples to 3"):
        field.as_tensor({"num_samples": 3})


def test_duration_str_and_readable_repr():
    field = AudioField(noise(24000), sample_rate=RATE, source="q/DEV1_SPK001.wav")
    assert field.duration == pytest.approx(1.5)
    text = str(field)
    assert "24000 samples" in text and "1.50 s" in text and "16000 Hz" in text and "DEV1_SPK001.wav" in text
    assert field.human_readable_repr() == {"num_samples": 24000, "sample_rate": 16000, "duration": 1.5, "source": "q/DEV1_SPK001.wav"}
    assert AudioField(noise(800), sample_rate=8000).duration == pytest.approx(0.1)


def test_accepts_tensors_and_rejects_other_shapes():
    field = AudioField(torch.ones(4, dtype=torch.float64))
    assert field.waveform.dtype == numpy.float32 and len(field) == 4
    with pytest.raises(ValueError, match="1-D waveform"):
        AudioField(numpy.zeros((2, 10)), source="stereo.wav")
    with pytest.raises(ValueError, match="sample_rate"):
        AudioField(noise(4), sample_rate=0)


def test_empty_field_and_equality():
    field = AudioField(noise(7))
    empty = field.empty_field()
    assert len(empty) == 0 and empty.duration == 0
    padded = empty.as_tensor({"num_samples": 4})
    assert not padded["mask"].any() and not padded["waveform"].any()
    assert field == AudioField(noise(7))
    assert field != AudioField(noise(7, seed=1))
    assert field != AudioField(noise(7), sample_rate=8000)
    assert field.duplicate() == field


def test_batch_stacks_padded_waveforms_and_masks():
    lengths = [3, 7, 5]
    waveforms = [noise(n, seed=n) for n in lengths]
    batch = Batch([Instance({"question": AudioField(w)}) for w in waveforms])
    tensors = batch.as_tensor_dict()["question"]
    assert tensors["waveform"].shape == (3, 7) and tensors["mask"].shape == (3, 7)
    assert tensors["mask"].sum(1).tolist() == lengths
    for row, waveform in zip(tensors["waveform"], waveforms):
        assert torch.equal(row[: len(waveform)], torch.from_numpy(waveform))
        assert not row[len(waveform) :].any()


def test_padding_fraction_counts_padded_samples():
    assert padding_fraction([[1, 3], [2, 2]]) == pytest.approx(2 / 10)
    assert padding_fraction([]) == 0.0
    fields = [AudioField(noise(n)) for n in (4, 2)]
    assert padding_fraction([fields]) == pytest.approx(2 / 8)
    instances = [Instance({"question": f}) for f in fields]
    assert padding_fraction([instances]) == pytest.approx(2 / 8)


def batch_padding_from_masks(instances, batches):
    """The padding fraction of the tensors AllenNLP actually builds for these batches."""
    padded = total = 0
    for indices in batches:
        mask = Batch([instances[i] for i in indices]).as_tensor_dict()["question"]["mask"]
        padded += int((~mask).sum())
        total += mask.numel()
    return padded / total


def test_bucketing_groups_similar_durations():
    rng = numpy.random.default_rng(3)
    lengths = [int(seconds * RATE) for seconds in rng.uniform(0.5, 8.0, size=64)]
    instances = [Instance({"question": AudioField(numpy.zeros(n, numpy.float32))}) for n in lengths]
    random.seed(0)
    bucketed = list(BucketBatchSampler(batch_size=8, sorting_keys=["question"]).get_batch_indices(instances))
    order = list(range(len(instances)))
    random.Random(0).shuffle(order)
    shuffled = [order[i : i + 8] for i in range(0, len(order), 8)]
    assert sorted(i for b in bucketed for i in b) == list(range(64))

    def spread(batch):
        seconds = [lengths[i] / RATE for i in batch]
        return max(seconds) - min(seconds)

    assert max(spread(b) for b in bucketed) < 2.0  # each bucket spans a narrow band of durations
    assert numpy.mean([spread(b) for b in shuffled]) > 4.0
    with_buckets = padding_fraction([[lengths[i] for i in b] for b in bucketed])
    without = padding_fraction([[lengths[i] for i in b] for b in shuffled])
    assert with_buckets < 0.2 and without > 0.3 and with_buckets < without / 2
    assert with_buckets == pytest.approx(batch_padding_from_masks(instances, bucketed))
    assert without == pytest.approx(batch_padding_from_masks(instances, shuffled))
