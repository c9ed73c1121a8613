import importlib.util

import pytest
import torch
from allennlp.models.archival import load_archive

from tests.conftest import ROOT

SPEC = importlib.util.spec_from_file_location("archive_checkpoint", ROOT / "scripts" / "archive_checkpoint.py")
SCRIPT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(SCRIPT)
main = SCRIPT.main


def test_archives_an_epoch_checkpoint_that_loads_with_those_weights(tiny_archive, tmp_path):
    run = tiny_archive.parent
    checkpoints = sorted(run.glob("model_state_e*_b0.th"))
    assert checkpoints, "the tiny run keeps its epoch checkpoints"
    epoch = int(checkpoints[0].name.split("_e")[1].split("_")[0])
    output = tmp_path / "epoch" / "model.tar.gz"
    main([str(run), "--epoch", str(epoch), "--output", str(output)])
    expected = torch.load(checkpoints[0], map_location="cpu")
    model = load_archive(str(output)).model
    for name, value in model.state_dict().items():
        assert torch.equal(value, expected[name]), name


def test_a_missing_epoch_or_folder_is_a_clear_error(tiny_archive, tmp_path):
    with pytest.raises(SystemExit, match="no checkpoint of epoch 99 \\(kept: "):
        main([str(tiny_archive.parent), "--epoch", "99", "--output", str(tmp_path / "m.tar.gz")])
    with pytest.raises(SystemExit, match="not a training run's folder"):
        main([str(tmp_path), "--epoch", "1", "--output", str(tmp_path / "m.tar.gz")])
