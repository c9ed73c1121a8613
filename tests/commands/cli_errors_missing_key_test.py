"""A misspelled required key is reported as the misspelling, beside AllenNLP's "key X is required"
(AllenNLP stops at the missing key and never reaches the unknown one)."""
import sys

import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data.samplers import BatchSampler

from srcframework.commands import cli_errors


def one_line_of(error, capsys, monkeypatch) -> str:
    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    capsys.readouterr()
    cli_errors.excepthook(type(error), error, error.__traceback__)
    return capsys.readouterr().err


def test_a_misspelled_key_is_named_beside_the_missing_one(capsys, monkeypatch):
    params = Params({"type": "bucket", "batchsize": 32, "sorting_keys": ["context"]},
                    history="data_loader.batch_sampler.")
    with pytest.raises(ConfigurationError) as raised:
        BatchSampler.from_params(params)
    assert one_line_of(raised.value, capsys, monkeypatch) == (
        'error: key "batch_size" is required at location "data_loader.batch_sampler.": '
        "the block has the unknown key batchsize: did you mean batch_size?\n")


def test_a_missing_key_without_a_look_alike_keeps_allennlps_message(capsys, monkeypatch):
    params = Params({"type": "bucket", "sorting_keys": ["context"]}, history="data_loader.batch_sampler.")
    with pytest.raises(ConfigurationError) as raised:
        BatchSampler.from_params(params)
    assert one_line_of(raised.value, capsys, monkeypatch) == (
        'error: key "batch_size" is required at location "data_loader.batch_sampler."\n')
