import inspect

import torch
from allennlp.common import Params
from allennlp.training.learning_rate_schedulers import LearningRateScheduler

from srcframework import compat


def test_reduce_on_plateau_builds_with_verbose_in_config():
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    params = Params({"type": "reduce_on_plateau", "factor": 0.5, "patience": 0, "mode": "max", "verbose": True})
    scheduler = LearningRateScheduler.from_params(optimizer=optimizer, params=params)
    scheduler.step(1.0)
    scheduler.step(0.5)
    assert optimizer.param_groups[0]["lr"] == 0.5


def test_patch_only_where_old_api_is_missing():
    has_verbose = "verbose" in inspect.signature(torch.optim.lr_scheduler.ReduceLROnPlateau).parameters
    applied = any("reduce_on_plateau" in item for item in compat.apply())
    assert applied != has_verbose
