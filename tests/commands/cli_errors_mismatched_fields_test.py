"""A model given data of another kind than it was trained on (an audio reader's questions to a text
model, a reader without the model's token indexers) is told which field does not fit and how, not
AllenNLP's `Mismatched token keys: dict_keys([...]) and dict_keys([...])`."""
import shutil

import numpy
import pytest
from allennlp.common.checks import ConfigurationError
from allennlp.models.archival import load_archive

from srcframework.commands import cli_errors
from srcframework.common.audio import write_wav_atomic
from srcframework.data.dataset_readers.squad_src import SquadSrcReader
from srcframework.data.squad_src_layout import wav_name, write_fid2qid
from tests.conftest import FIXTURES


@pytest.fixture
def spoken(tmp_path):
    folder = tmp_path / "src"
    tone = 0.3 * numpy.sin(2 * numpy.pi * 440 * numpy.arange(8000) / 16000)
    write_wav_atomic(folder / "wavs" / wav_name("DEV000001", "SPK011"), tone, 16000)
    write_fid2qid(folder / "fid2qid_dev.csv", [("DEV000001", "q1")])
    shutil.copy(FIXTURES / "squad_tiny.json", folder / "squad_dev.json")
    return folder / "fid2qid_dev.csv"


def line_of(model, instances, capsys, monkeypatch) -> str:
    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    with pytest.raises((ConfigurationError, RuntimeError)) as raised:
        model.forward_on_instances(instances)
    capsys.readouterr()
    cli_errors.excepthook(type(raised.value), raised.value, raised.value.__traceback__)
    return capsys.readouterr().err


def test_an_audio_question_given_to_a_text_model(tiny_archive, spoken, capsys, monkeypatch):
    archive = load_archive(str(tiny_archive))
    reader = SquadSrcReader(token_indexers=archive.validation_dataset_reader._token_indexers)
    instances = list(reader.read(str(spoken)))
    for instance in instances:
        instance.index_fields(archive.model.vocab)
    assert line_of(archive.model, instances, capsys, monkeypatch) == (
        "error: the model takes the question field as text (token keys token_characters, tokens), but the reader "
        "gives it as audio (mask, waveform): read this data with a text reader (the archive's own), or use a model "
        "whose question encoder takes audio\n")


def test_a_reader_without_the_models_token_indexers(tiny_archive, spoken, capsys, monkeypatch):
    archive = load_archive(str(tiny_archive))
    instances = list(SquadSrcReader().read(str(spoken)))  # the reader's default indexers: tokens only
    for instance in instances:
        instance.index_fields(archive.model.vocab)
    assert line_of(archive.model, instances, capsys, monkeypatch) == (
        "error: the model embeds the context field with the token keys token_characters, tokens, but the reader "
        "gives tokens: give the reader the token_indexers the model was trained with (the archive's "
        "dataset_reader)\n")
