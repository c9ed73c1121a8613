"""`torch_threads`: the training sets torch's threads when it starts, to a fixed number or to the
cores other processes leave free (measured again as it goes); OMP_NUM_THREADS wins."""
import glob

import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.training.callbacks.callback import TrainerCallback

from srcframework.training import torch_threads
from srcframework.training.torch_threads import OtherWork, TorchThreadsCallback, busy_cpu_seconds, threads_for
from tests.conftest import ROOT


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
    free = TorchThreadsCallback(str(tmp_path))
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert free.fixed() == 3 and free.chosen() == 3 and free.other_work is None  # nothing measured


def test_refuses_fewer_than_one_thread_and_a_check_that_never_comes(tmp_path):
    with pytest.raises(ConfigurationError, match="at least 1"):
        TorchThreadsCallback(str(tmp_path), threads=0)
    with pytest.raises(ConfigurationError, match="check_seconds must be positive"):
        TorchThreadsCallback(str(tmp_path), check_seconds=0)


STAT = """cpu  900 0 300 5000 10 0 5 2 0 0
cpu0 {user0} 0 {system0} 2500 5 0 {irq0} 1 0 0
cpu1 {user1} 0 100 2500 5 0 0 1 0 0
cpu2 7000 0 0 0 0 0 0 0 0 0
intr 1221474 0 0
ctxt 123
"""


def stat(user0=100, system0=100, irq0=0, user1=100) -> str:
    return STAT.format(user0=user0, system0=system0, irq0=irq0, user1=user1)


def test_busy_seconds_count_the_given_cores_without_idle_and_iowait():
    # cpu0: user 100 + nice 0 + system 100 + irq 0 + softirq 0 + steal 1 = 201 ticks; cpu1: 201 ticks
    assert busy_cpu_seconds(stat(), [0, 1], ticks_per_second=100) == pytest.approx(4.02)
    assert busy_cpu_seconds(stat(), [1], ticks_per_second=100) == pytest.approx(2.01)
    assert busy_cpu_seconds(stat(irq0=50), [0], ticks_per_second=100) == pytest.approx(2.51)
    assert busy_cpu_seconds(stat(), [5], ticks_per_second=100) == 0  # a core not listed


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def other_work(texts, own, clock):
    """An OtherWork over cores 0 and 1 that reads `texts` one after the other, this process having
    used `own` CPU seconds at each sample."""
    texts, own = iter(texts), iter(own)
    work = OtherWork(on=[0, 1], read_stat=lambda: next(texts), own_seconds=lambda: next(own), clock=clock)
    work.ticks = 100
    return work


def test_other_work_is_the_busy_time_less_this_process_over_the_wall_time():
    clock = Clock()
    # 10 s later the two cores spent 20 s (2,000 ticks) more; this process 8 s of them: 1.2 cores
    work = other_work([stat(), stat(user0=1100, user1=1100)], own=[0.0, 8.0], clock=clock)
    clock.now += 10
    assert work.since_last() == pytest.approx(1.2)
    unreadable = other_work([None, None], own=[0.0, 0.0], clock=clock)
    assert unreadable.since_last() is None


def test_threads_are_the_free_cores_and_at_least_one():
    assert threads_for(2, 0.0) == 2
    assert threads_for(2, 0.1) == 2  # a daemon leaves the core free
    assert threads_for(2, torch_threads.BUSY_FROM) == 1  # a CPU-bound job kept to half a core takes it
    assert threads_for(2, 1.0) == 1
    assert threads_for(2, 2.0) == 1
    assert threads_for(16, 2.9) == 13


class FakeWork:
    def __init__(self, *others):
        self.others = list(others)
        self.on = (0, 1)

    def since_last(self):
        return self.others.pop(0)


def test_the_free_cores_are_measured_again_as_the_training_goes(tmp_path, monkeypatch, restore_threads):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    callback = TorchThreadsCallback(str(tmp_path), check_seconds=30)
    callback.other_work = FakeWork(1.0, 0.05)
    assert callback.free_threads() == 1  # one CPU-bound job beside it
    torch.set_num_threads(1)
    clock = Clock()
    monkeypatch.setattr(torch_threads.time, "monotonic", clock)
    callback.next_check = clock.now + 30

    def batch():
        callback.on_batch(None, [], [], {}, epoch=0, batch_number=1, is_training=True)

    batch()
    assert torch.get_num_threads() == 1 and callback.other_work.others == [0.05]  # not yet
    clock.now += 31
    batch()  # the other job has ended: both cores again
    assert torch.get_num_threads() == 2 and callback.next_check == clock.now + 30


def test_without_proc_stat_torch_keeps_its_default(tmp_path):
    callback = TorchThreadsCallback(str(tmp_path))
    callback.other_work = FakeWork(None)
    assert callback.free_threads() == len(torch_threads.cores())


def test_a_fixed_number_in_the_same_trainer_wins(tmp_path, monkeypatch, restore_threads):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)

    class Trainer:
        pass

    trainer = Trainer()
    free, one = TorchThreadsCallback(str(tmp_path)), TorchThreadsCallback(str(tmp_path), threads=1)
    trainer._callbacks = [free, one]
    torch.set_num_threads(2)
    for callback in trainer._callbacks:
        callback.on_start(trainer)
    assert torch.get_num_threads() == 1 and free.other_work is None


def test_every_shipped_training_config_runs_torch_threads():
    """A training of a shipped config beside other work steps down to the free cores; a config
    that fixes the number names it."""
    from allennlp.common import Params

    paths = sorted(glob.glob(str(ROOT / "training_configs" / "*.jsonnet")))
    assert paths
    for path in paths:
        callbacks = Params.from_file(path).as_dict()["trainer"].get("callbacks", [])
        assert [c for c in callbacks if c["type"] == "torch_threads"], path


def test_measures_this_machine(tmp_path, monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    text = torch_threads.read_proc_stat()
    if text is None:
        pytest.skip("no /proc/stat here: the free cores are not measured, torch keeps its default")
    assert busy_cpu_seconds(text, torch_threads.cores(), 100) > 0
    callback = TorchThreadsCallback(str(tmp_path))
    assert 1 <= callback.chosen() <= len(torch_threads.cores()) and callback.other_work is not None
