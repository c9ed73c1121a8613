"""The clone's folders (srcframework/store/paths.py): defined from its root, read when called, and
the models folder of installed archives following the environment."""
from srcframework.store import paths
from tests.conftest import ROOT


def test_the_clones_folders_are_under_its_root(monkeypatch, tmp_path):
    assert paths.PROJECT_ROOT == str(ROOT)
    assert paths.recipes_dir() == str(ROOT / "recipes")
    assert paths.models_dir() == str(ROOT / "models") and paths.snapshots_dir() == str(ROOT / "models" / "snapshots")
    assert paths.models_dir(str(tmp_path)) == str(tmp_path / "models")
    monkeypatch.setattr(paths, "PROJECT_ROOT", str(tmp_path))  # read when called
    assert paths.snapshots_dir() == str(tmp_path / "models" / "snapshots")


def test_the_installed_models_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(paths.MODELS_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert paths.installed_dir() == str(tmp_path / "cache" / "srcframework" / "models")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert paths.installed_dir() == str(tmp_path / "home" / ".cache" / "srcframework" / "models")
    monkeypatch.setenv(paths.MODELS_ENV, "~/mine")
    assert paths.installed_dir() == str(tmp_path / "home" / "mine")
