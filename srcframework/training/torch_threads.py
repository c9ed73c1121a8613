import logging
import math
import os
import time
from typing import Callable, Optional, Sequence, Tuple

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.training.callbacks.callback import TrainerCallback

logger = logging.getLogger(__name__)

# a core counts as busy with other work from this much of it (in cores) on: a CPU-bound job beside
# a training of two threads gets about half to all of one core, a daemon far less
BUSY_FROM = 0.4


def cores() -> Tuple[int, ...]:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return tuple(sorted(os.sched_getaffinity(0)))
    return tuple(range(os.cpu_count() or 1))


def busy_cpu_seconds(stat_text: str, on: Sequence[int], ticks_per_second: float) -> float:
    """CPU seconds spent on the cores `on` (all work but idle and iowait), from the text of
    /proc/stat: its `cpuN user nice system idle iowait irq softirq steal ...` lines."""
    wanted, seconds = set(on), 0
    for line in stat_text.splitlines():
        name, _, rest = line.partition(" ")
        if not (name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in wanted):
            continue
        values = [int(value) for value in rest.split()]
        seconds += sum(values[:3]) + sum(values[5:8])  # guest time is part of user and nice already
    return seconds / ticks_per_second


def read_proc_stat() -> Optional[str]:
    try:
        with open("/proc/stat") as stream:
            return stream.read()
    except OSError:
        return None


def own_cpu_seconds() -> float:
    """CPU seconds of this process so far, all its threads (torch's too)."""
    times = os.times()
    return times.user + times.system


class OtherWork:
    """
    How many cores other processes keep busy, from /proc/stat: the CPU time spent on this process's
    cores between two samples, less this process's own, over the wall time between them. Where
    /proc/stat cannot be read (not Linux), nothing is known (None).
    """

    def __init__(
        self,
        on: Optional[Sequence[int]] = None,
        read_stat: Callable[[], Optional[str]] = read_proc_stat,
        own_seconds: Callable[[], float] = own_cpu_seconds,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.on = tuple(on) if on is not None else cores()
        self.read_stat, self.own_seconds, self.clock = read_stat, own_seconds, clock
        self.ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self.last = self.sample()

    def sample(self) -> Optional[Tuple[float, float, float]]:
        text = self.read_stat()
        if text is None:
            return None
        return self.clock(), busy_cpu_seconds(text, self.on, self.ticks), self.own_seconds()

    def since_last(self) -> Optional[float]:
        """Cores kept busy by other processes since the last call (or since this was made)."""
        now = self.sample()
        before, self.last = self.last, now
        if now is None or before is None or now[0] <= before[0]:
            return None
        wall, busy, own = (a - b for a, b in zip(now, before))
        return max(0.0, (busy - own) / wall)


def threads_for(free_cores: int, others_busy: float) -> int:
    """Threads for a training given its cores and the cores other processes keep busy: the cores
    they leave free, at least one."""
    busy = math.floor(others_busy - BUSY_FROM) + 1 if others_busy >= BUSY_FROM else 0
    return max(1, free_cores - busy)


@TrainerCallback.register("torch_threads")
class TorchThreadsCallback(TrainerCallback):
    """
    Sets how many threads torch's CPU operators use (`torch.set_num_threads`) in a training. Torch
    takes one a core by default. On cores shared with other busy processes, each multi-threaded
    operator waits at its end for a thread the scheduler has put aside (and OpenMP's threads spin
    while they wait, taking the CPU from the others), so that a training of two threads beside one
    CPU-bound job can be many times slower than a training of one: `benchmarks/thread_sharing.py`
    measures it (docs/install.md, "Trainings that share the machine").

    With `threads` unset (the shipped configs), the training uses as many threads as there are
    cores that other processes leave free, at least one: measured when it starts and again every
    `check_seconds` of training, so that a training alone keeps every core, and one beside a test
    suite, a noise job or a second training steps down to the cores left (and up again when they
    are free). With `threads` set, it uses that many throughout. An `OMP_NUM_THREADS` set in the
    environment wins over both, so a run can ask for a number without editing the config. Prediction
    and evaluation outside training keep torch's default.

    The number of threads changes the order of floating-point sums, and a training at CPU scale
    carries that into its weights (quickstart: 43.47 F1 on one thread, 42.79 on two, the same
    config and seed): with `threads` unset, the result depends on the load. A run that must repeat
    to the last digit fixes the number (`threads`, or `OMP_NUM_THREADS`); `training_record.json`
    records the threads of every epoch either way (docs/install.md).

        trainer: { callbacks: [{ type: 'torch_threads' }] }              // the free cores
        trainer: { callbacks: [{ type: 'torch_threads', threads: 1 }] }  // one thread

    A trainer given two of these callbacks follows one with `threads` set.

    # Parameters

    serialization_dir : `str`
        Passed by the trainer.
    threads : `int`, optional (default = `None`)
        Threads for torch's CPU operators (at least 1); `None`: the cores other processes leave free.
    check_seconds : `float`, optional (default = `30`)
        With `threads` unset, how often (in seconds of training) the free cores are measured again.
    """

    def __init__(self, serialization_dir: str, threads: Optional[int] = None, check_seconds: float = 30.0) -> None:
        super().__init__(serialization_dir)
        if threads is not None and threads < 1:
            raise ConfigurationError(f"torch_threads: threads must be at least 1, got {threads}")
        if check_seconds <= 0:
            raise ConfigurationError(f"torch_threads: check_seconds must be positive, got {check_seconds}")
        self.threads = threads
        self.check_seconds = check_seconds
        self.other_work: Optional[OtherWork] = None
        self.next_check = 0.0

    def fixed(self) -> Optional[int]:
        """`OMP_NUM_THREADS` where the environment sets it to a positive number, else `threads`
        (None: the free cores)."""
        value: Optional[str] = os.environ.get("OMP_NUM_THREADS")
        if value and value.strip().isdigit() and int(value) > 0:
            return int(value)
        return self.threads

    def chosen(self) -> int:
        """The threads the training starts with (the free cores are measured over half a second)."""
        fixed = self.fixed()
        if fixed is not None:
            return fixed
        self.other_work = OtherWork()
        time.sleep(0.5)
        return self.free_threads()

    def free_threads(self) -> int:
        others = self.other_work.since_last() if self.other_work is not None else None
        if others is None:  # nothing measured: torch's default
            return len(cores())
        return threads_for(len(self.other_work.on), others)

    def _follows_another(self, trainer) -> bool:
        callbacks = getattr(trainer, "_callbacks", None) or []
        return self.fixed() is None and any(
            isinstance(other, TorchThreadsCallback) and other is not self and other.fixed() is not None
            for other in callbacks
        )

    def on_start(self, trainer, is_primary: bool = True, **kwargs) -> None:
        if self._follows_another(trainer):
            return
        threads = self.chosen()
        torch.set_num_threads(threads)
        self.next_check = time.monotonic() + self.check_seconds
        how = "as set" if self.fixed() is not None else "the cores other processes leave free"
        logger.info("torch uses %d thread(s) for this training (%s)", threads, how)

    def on_batch(self, trainer, batch_inputs, batch_outputs, batch_metrics, epoch, batch_number, is_training,
                 is_primary: bool = True, batch_grad_norm=None, **kwargs) -> None:
        if self.other_work is None or time.monotonic() < self.next_check:
            return
        self.next_check = time.monotonic() + self.check_seconds
        threads = self.free_threads()
        if threads != torch.get_num_threads():
            logger.info("torch now uses %d thread(s) for this training: the cores other processes leave free",
                        threads)
            torch.set_num_threads(threads)
