"""A card id loads only what its card claims: a released model's archive must have the card's sha256
wherever it is found (the clone first, then the models folder), and any archive is read whole
first, so a damaged, truncated or git-LFS pointer file is one line from `load_predictor`."""
import shutil
from pathlib import Path

import pytest

from srcframework import pretrained
from srcframework.common.archive_check import ArchiveError
from srcframework.common.files import file_sha256
from srcframework.store import paths
from tests.common.archive_check_test import KINDS, damaged
from tests.conftest import ROOT
from tests.store.from_release_test import release

RELEASE = ROOT / "models" / "bidaf-quickstart.tar.gz"


@pytest.mark.parametrize("kind", KINDS)
def test_load_predictor_of_a_damaged_release_is_one_line(tmp_path, monkeypatch, tiny_archive, kind):
    archive = release(tmp_path, monkeypatch, tiny_archive, "tiny-released")
    damaged(tiny_archive, archive, kind)
    if kind == "pointer":
        with pytest.raises(ArchiveError) as error:
            pretrained.load_predictor("tiny-released")
        assert str(error.value).startswith(f"{archive} is a git-LFS pointer file (2,553,103 bytes, sha256 5f508bbd6966...), "
                                           f"not the archive itself: run `git lfs pull` in {tmp_path / 'clone'} to fetch it")
    else:
        with pytest.raises(pretrained.ModelArchiveNotFound) as error:
            pretrained.load_predictor("tiny-released")
        what = {"flipped": "; it is damaged: CRC check failed", "truncated": "; it is truncated: its gzip stream ends early"}
        assert str(error.value).startswith(f"model 'tiny-released': {archive} does not match the sha256 its card records (")
        assert what[kind] in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("kind", KINDS)
def test_load_predictor_of_a_damaged_installed_copy_is_one_line(install_tiny, tmp_path, monkeypatch, kind):
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "tiny.json").write_text('{"id": "tiny", "registered_predictor_name": "span_qa"}')
    monkeypatch.setenv("SRCFRAMEWORK_MODELCARDS", str(cards))
    installed = install_tiny("tiny")["tiny"]
    damaged(Path(installed), tmp_path / "copy.tar.gz", kind)
    shutil.copyfile(tmp_path / "copy.tar.gz", installed)
    with pytest.raises(ArchiveError, match=f"^{installed} is ") as error:
        pretrained.load_predictor("tiny")
    assert "\n" not in str(error.value)


def test_the_clone_release_comes_before_a_copy_in_the_models_folder(install_tiny):
    installed = install_tiny("bidaf-quickstart")["bidaf-quickstart"]  # a fixture model under the released id
    assert pretrained.archive_path("bidaf-quickstart") == str(RELEASE)
    assert pretrained.archive_status(pretrained.model_card("bidaf-quickstart")) == ("released", str(RELEASE))
    assert file_sha256(installed) != file_sha256(str(RELEASE))


def test_a_copy_in_the_models_folder_that_is_not_the_release_is_refused(install_tiny, tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "PROJECT_ROOT", str(tmp_path / "site-packages"))  # installed: no clone beside it
    installed = install_tiny("bidaf-quickstart")["bidaf-quickstart"]
    expected = pretrained.model_card("bidaf-quickstart").model_usage.sha256
    with pytest.raises(pretrained.ModelArchiveNotFound) as error:
        pretrained.load_predictor("bidaf-quickstart")
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"model 'bidaf-quickstart': {installed} does not match the sha256 its card records "
                              f"({file_sha256(installed)[:12]}... against {expected[:12]}...): it is not the released model")
    # the release itself, copied there, loads
    shutil.copyfile(RELEASE, installed)
    assert pretrained.archive_path("bidaf-quickstart") == installed


def test_a_release_changed_in_the_clone_is_refused_naming_both_hashes(tmp_path, monkeypatch, tiny_archive):
    archive = release(tmp_path, monkeypatch, tiny_archive, "tiny-released")
    expected = file_sha256(str(archive))
    shutil.copyfile(RELEASE, archive)  # a sound archive, but not the one the card records
    with pytest.raises(pretrained.ModelArchiveNotFound) as error:
        pretrained.archive_path("tiny-released")
    assert str(error.value) == (
        f"model 'tiny-released': {archive} does not match the sha256 its card records "
        f"({file_sha256(str(RELEASE))[:12]}... against {expected[:12]}...): `git checkout -- models/tiny-released.tar.gz`, "
        "or release it again (allennlp models release tiny-released)")
