import importlib.util
import json

import pytest
from allennlp.commands.train import train_model_from_file

from tests.conftest import ROOT

SPEC = importlib.util.spec_from_file_location("extend_run", ROOT / "scripts" / "extend_run.py")
SCRIPT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(SCRIPT)


def longer_config(run, tmp_path, **trainer):
    config = json.loads((run / "config.json").read_text())
    config["trainer"].update(trainer)
    path = tmp_path / "longer.json"
    path.write_text(json.dumps(config))
    return config, path


def test_a_copied_run_trains_on_to_the_new_epoch_count(tiny_archive, tmp_path):
    run = tiny_archive.parent
    done = SCRIPT.completed_epochs(run)
    config, path = longer_config(run, tmp_path, num_epochs=done + 1, checkpointer={"keep_most_recent_by_count": 5})
    new_run = tmp_path / "longer"
    SCRIPT.main([str(run), str(path), str(new_run)])
    assert not (new_run / "model.tar.gz").exists()
    assert json.loads((new_run / "config.json").read_text())["trainer"]["num_epochs"] == done + 1
    train_model_from_file(str(path), str(new_run), recover=True)
    metrics = json.loads((new_run / "metrics.json").read_text())
    assert metrics["epoch"] == done  # counted from 0: one more epoch than the source run
    assert (new_run / f"model_state_e{done + 1}_b0.th").is_file()
    assert (new_run / "model.tar.gz").is_file()
    assert not (run / f"model_state_e{done + 1}_b0.th").exists(), "the source run is left as it was"


def test_other_changes_fewer_epochs_and_a_used_folder_are_refused(tiny_archive, tmp_path):
    run = tiny_archive.parent
    done = SCRIPT.completed_epochs(run)
    config, path = longer_config(run, tmp_path, num_epochs=done + 2)
    config["trainer"]["optimizer"]["lr"] = 0.5
    path.write_text(json.dumps(config))
    with pytest.raises(SystemExit, match="beyond the epoch count: trainer.optimizer.lr"):
        SCRIPT.main([str(run), str(path), str(tmp_path / "a")])
    SCRIPT.main([str(run), str(path), str(tmp_path / "b"), "--allow", "trainer.optimizer"])
    _, path = longer_config(run, tmp_path, num_epochs=done)
    with pytest.raises(SystemExit, match=f"already finished {done} epochs"):
        SCRIPT.main([str(run), str(path), str(tmp_path / "c")])
    _, path = longer_config(run, tmp_path, num_epochs=done + 1)
    with pytest.raises(SystemExit, match="exists and is not empty"):
        SCRIPT.main([str(run), str(path), str(tmp_path / "b")])
    with pytest.raises(SystemExit, match="not a training run's folder"):
        SCRIPT.main([str(tmp_path), str(path), str(tmp_path / "d")])


def test_a_changed_reader_without_the_runs_vocabulary_is_warned_about(tiny_archive, tmp_path, capsys):
    run = tiny_archive.parent
    done = SCRIPT.completed_epochs(run)
    config, path = longer_config(run, tmp_path, num_epochs=done + 1)
    config["dataset_reader"]["noise_seed"] = 99
    path.write_text(json.dumps(config))
    SCRIPT.main([str(run), str(path), str(tmp_path / "a"), "--allow", "dataset_reader.noise_seed"])
    assert "dataset_reader.noise_seed changed" in capsys.readouterr().err
    config["vocabulary"] = {"type": "from_files", "directory": str(run / "vocabulary")}
    path.write_text(json.dumps(config))
    SCRIPT.main([str(run), str(path), str(tmp_path / "b"), "--allow", "dataset_reader.noise_seed", "--allow", "vocabulary"])
    assert "warning" not in capsys.readouterr().err
    train_model_from_file(str(path), str(tmp_path / "b"), recover=True)
    assert (tmp_path / "b" / f"model_state_e{done + 1}_b0.th").is_file()
