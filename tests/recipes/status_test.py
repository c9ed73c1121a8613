"""`allennlp recipe status` (srcframework/recipes/status.py): a training stopped after an epoch is
to resume, with its learning curve so far under its line; the cards the recipe installs, where
they stand."""
import shutil

from srcframework.recipes.recipe import load_recipe
from srcframework.recipes.status import status_lines, under_way
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "recipes" / "tiny")
LATER = ("model_state_e2_b0.th", "training_state_e2_b0.th", "metrics_epoch_1.json", "metrics.json", "model.tar.gz")


def stopped_after_first_epoch(tiny_archive, folder):
    """The tiny BiDAF's run folder as a training stopped after its first epoch leaves it."""
    shutil.copytree(tiny_archive.parent, folder)
    for name in LATER:
        (folder / name).unlink()
    return folder


def test_a_stopped_training_is_to_resume_with_its_curve(tiny_archive, tmp_path, monkeypatch):
    from srcframework.store import paths, snapshot

    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "models"))
    monkeypatch.setattr(paths, "snapshots_dir", lambda: str(tmp_path / "snapshots"))
    runs = tmp_path / "runs"
    first = stopped_after_first_epoch(tiny_archive, runs / "tiny" / "first")
    recipe = load_recipe(TINY, runs=str(runs))
    lines = status_lines(recipe, str(runs))
    assert lines[:2] == ["recipe tiny: two tiny BiDAFs and their study", "  first      resumed: epoch 1 of 2"]
    curve = lines[2:lines.index("  second_s1  to run: not started")]
    assert curve[0] == f"      **{first}** (best epoch on validation_f1: 0)"
    assert curve[2].split() == ["|", "epoch", "|", "training_loss", "|", "validation_loss", "|", "validation_f1", "|",
                                "training", "time", "|"]
    assert len(curve) == 6 and curve[4].startswith("      | 0 (best) | ")  # one row: the one epoch done
    # whether the repository carries it to the next machine
    assert curve[5] == (f"      no snapshot in models/snapshots: a machine without {first} starts it over "
                        "(`allennlp recipe snapshot tiny` saves one where the models folder has room)")
    assert lines[-1] == "  card bidaf-cpu-scale: not installed"
    assert under_way(recipe) == [str(first)]
    snapshot.save(str(first), float16=True)
    assert status_lines(recipe, str(runs))[7] == "      snapshot in models/snapshots: after 1 epoch, half precision, as far as here"
    shutil.copy(tiny_archive.parent / "model_state_e2_b0.th", first)  # a later epoch done here
    shutil.copy(tiny_archive.parent / "training_state_e2_b0.th", first)
    assert status_lines(recipe, str(runs))[7].startswith("      snapshot in models/snapshots: after 1 epoch, half "
                                                          "precision, of the 2 done here")


def test_an_installed_card_is_named_with_its_path(tiny_archive, tmp_path, install_tiny):
    installed = install_tiny("bidaf-cpu-scale")["bidaf-cpu-scale"]
    lines = status_lines(load_recipe(TINY, runs=str(tmp_path / "runs")), str(tmp_path / "runs"))
    assert lines[-1] == f"  card bidaf-cpu-scale: installed {installed}"
