"""`torch_threads`: the training sets torch's threads when it starts; OMP_NUM_THREADS wins."""
import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.training.callbacks.callback import TrainerCallback

from srcframework.training.torch_threads import TorchThreadsCallback


@pytest.fixture
def restore_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_sets_the_threads_when_training_starts(tmp_path, monkeypatch, restore_threads):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    callback = TrainerCallback.from_params(Params({"type": "torch_threads", "threads": 1}), serialization_dir=str(tmp_path))
    assert isinstance(callback, TorchThreadsCallback)
    torch.set_num_threads(2)
    callback.on_start(trainer=None)
    assert torch.get_num_threads() == 1


def test_omp_num_threads_wins(tmp_path, monkeypatch, restore_threads):
    callback = TorchThreadsCallback(str(tmp_path), threads=1)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert callback.chosen() == 2
    callback.on_start(trainer=None)
    assert torch.get_num_threads() == 2
    for ignored in ("", "0", "two"):
        monkeypatch.setenv("OMP_NUM_THREADS", ignored)
        assert callback.chosen() == 1


def test_refuses_fewer_than_one_thread(tmp_path):
    with pytest.raises(ConfigurationError, match="at least 1"):
        TorchThreadsCallback(str(tmp_path), threads=0)
