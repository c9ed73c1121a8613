"""`benchmarks/speecht5_ctc_step.py`: its setups (the serial reading of 2026-12-02 beside the
config's threaded one), the batch files it reads, and a step of each on a tiny synthesized folder."""
import importlib.util
import math

import numpy
import pytest

from tests.conftest import FIXTURES, ROOT

_spec = importlib.util.spec_from_file_location("speecht5_ctc_step", ROOT / "benchmarks" / "speecht5_ctc_step.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

CONFIG = ROOT / "recipes" / "e2e_cpu" / "speecht5_ctc_pretrain.jsonnet"


@pytest.fixture(scope="module")
def config():
    import srcframework  # noqa: F401  (registrations)

    return bench.load_config(str(CONFIG))


def test_setups_keep_the_old_reading_beside_the_configs(config):
    setups = bench.make_setups(["baseline@1", "serial", "current@2"], config, threads=2)
    assert [s.name for s in setups] == ["baseline@1", "serial", "current@2"]
    assert [s.threads for s in setups] == [1, bench.config_threads(config), 2]
    assert [s.reader.loading_threads for s in setups] == [1, 1, config["dataset_reader"]["loading_threads"]]
    assert config["dataset_reader"]["loading_threads"] > 1
    assert setups[0].reader.audio_perturbation is None and setups[1].reader.audio_perturbation is not None
    with pytest.raises(SystemExit, match="unknown setup 'threaded'"):
        bench.make_setups(["threaded"], config, threads=2)


def test_serial_and_current_read_the_same_batch_and_train_on_it(config, tmp_path):
    from allennlp.data import Vocabulary

    from srcframework.jobs.synthesis import synthesize_questions

    src = tmp_path / "src"
    synthesize_questions(str(FIXTURES / "squad_tiny.json"), str(src), bench.VOICES, limit=4, progress=False)
    folder = tmp_path / "batches"
    folder.mkdir()
    files = bench.batch_files(str(src), config["validation_dataset_reader"], 2, 2, str(folder))
    assert [utterances for _, utterances, _ in files] == [2, 2] and all(seconds > 0 for _, _, seconds in files)
    serial, current = bench.make_setups(["serial", "current"], config, threads=1)
    read = []
    for setup in (serial, current):
        setup.reader.set_epoch(1)
        read.append(list(setup.reader.read(files[0][0])))
    assert [i["metadata"]["perturbation"] for i in read[0]] == [i["metadata"]["perturbation"] for i in read[1]]
    assert all(numpy.array_equal(a["question"].waveform, b["question"].waveform) for a, b in zip(*read))
    for setup in (serial, current):
        wall, cpu, loss = setup.step(files[0][0], 1, Vocabulary())
        assert wall > 0 and cpu > 0 and math.isfinite(loss)
