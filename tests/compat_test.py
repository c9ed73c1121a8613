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


# --- model archives never write outside their extraction folder ---------------------------------

import io  # noqa: E402
import tarfile  # noqa: E402
import tempfile  # noqa: E402

import pytest  # noqa: E402
from allennlp.models.archival import load_archive  # noqa: E402

from tests.conftest import FIXTURES, run_allennlp  # noqa: E402


def _add_file(archive: tarfile.TarFile, name: str, text: str = "written by a hostile archive\n") -> None:
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


def _add_link(archive: tarfile.TarFile, name: str, target: str, kind=tarfile.SYMTYPE) -> None:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    archive.addfile(info)


def hostile_archive(tiny_archive, path, kind: str, outside) -> str:
    """The tiny model archive with one hostile member added (first, so that nothing of the model is
    extracted before it). `outside` is the folder it tries to write into; the archive is extracted
    two levels below it (TMPDIR = outside/tmp, then tempfile's own folder)."""
    with tarfile.open(path, "w:gz") as archive:
        if kind == "dotdot":
            _add_file(archive, "../../escaped.txt")
            bad = "../../escaped.txt"
        elif kind == "absolute":
            _add_file(archive, str(outside / "escaped.txt"))
            bad = str(outside / "escaped.txt")
        elif kind == "symlink":  # a link out of the folder, then a file written through it
            _add_link(archive, "vocabulary_link", str(outside))
            _add_file(archive, "vocabulary_link/escaped.txt")
            bad = "vocabulary_link"
        elif kind == "relative_symlink":
            _add_link(archive, "sub/up", "../../..")
            _add_file(archive, "sub/up/escaped.txt")
            bad = "sub/up"
        elif kind == "hardlink":  # a hard link to a file outside: writing it would change that file
            _add_link(archive, "weights_alias.th", "../../victim.txt", kind=tarfile.LNKTYPE)
            bad = "weights_alias.th"
        else:
            raise ValueError(kind)
        with tarfile.open(tiny_archive, "r:gz") as model:
            for member in model.getmembers():
                archive.addfile(member, model.extractfile(member) if member.isfile() else None)
    return bad


KINDS = ["dotdot", "absolute", "symlink", "relative_symlink", "hardlink"]


@pytest.fixture
def outside(tmp_path, monkeypatch):
    folder = tmp_path / "outside"
    (folder / "tmp").mkdir(parents=True)
    (folder / "victim.txt").write_text("untouched\n")
    monkeypatch.setattr(tempfile, "tempdir", str(folder / "tmp"))
    return folder


def assert_nothing_written(outside):
    assert sorted(p.name for p in outside.iterdir()) == ["tmp", "victim.txt"]
    assert (outside / "victim.txt").read_text() == "untouched\n"
    assert list((outside / "tmp").iterdir()) == []  # and the extraction folder is gone


@pytest.mark.parametrize("kind", KINDS)
def test_load_archive_refuses_members_outside_the_folder(tiny_archive, tmp_path, outside, kind):
    archive = tmp_path / f"{kind}.tar.gz"
    bad = hostile_archive(tiny_archive, archive, kind, outside)
    with pytest.raises(compat.UnsafeArchiveError) as error:
        load_archive(str(archive))
    assert str(archive) in str(error.value) and repr(bad) in str(error.value)
    assert_nothing_written(outside)


def test_a_clean_archive_still_loads(tiny_archive, outside):
    assert load_archive(str(tiny_archive)).model is not None
    assert_nothing_written(outside)


@pytest.mark.parametrize("kind", ["dotdot", "symlink"])
def test_allennlp_evaluate_refuses_a_hostile_archive(tiny_archive, tmp_path, outside, kind):
    archive = tmp_path / f"{kind}.tar.gz"
    bad = hostile_archive(tiny_archive, archive, kind, outside)
    done = run_allennlp("evaluate", str(archive), str(FIXTURES / "squad_tiny.json"),
                        "--output-file", str(tmp_path / "metrics.json"), env={"TMPDIR": str(outside / "tmp")})
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and str(archive) in last and repr(bad) in last, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "metrics.json").exists()
    assert_nothing_written(outside)
