"""One-line errors of the `allennlp` command line, and the traceback in debug mode. Most commands
run in this process (`run_allennlp` shows an error that ends them as the process's hook would); a
few run in a process of their own, for what only a process shows: its exit status and stderr
when the hook installed at start-up ends it, `--debug` taken off its argv, an empty stderr."""
import json

import pytest

from srcframework.commands import cli_errors
from srcframework.data.errors import DatasetError
from tests.conftest import FIXTURES, allennlp_process, run_allennlp


def allennlp(*arguments, debug_env=None):
    return run_allennlp(*arguments, env={cli_errors.DEBUG_ENV: debug_env})


@pytest.fixture
def bad_data(tmp_path):
    path = tmp_path / "bad.json"
    data = json.loads((FIXTURES / "squad_tiny.json").read_text())
    data["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["text"] = "   "
    path.write_text(json.dumps(data))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("where", ["process", "in_process"])
def test_a_dataset_error_is_one_line(bad_data, tmp_path, where):
    predictions = tmp_path / "p.json"
    predictions.write_text('{"q1": "1882"}')
    run = allennlp_process if where == "process" else allennlp
    done = run("squad-eval", str(bad_data), str(predictions))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == f"error: {bad_data} (question id 'q1'): empty answer text"
    assert "Traceback" not in done.stderr


def test_a_configuration_error_of_a_built_in_command_is_one_line(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"dataset_reader": {"type": "no_such_reader"}, "model": {"type": "span_qa"}}))
    done = allennlp("train", str(config), "-s", str(tmp_path / "run"))
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "no_such_reader" in last, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("how", ["flag in a process", "flag", "env"])
def test_debug_shows_the_traceback(bad_data, tmp_path, how):
    predictions = tmp_path / "p.json"
    predictions.write_text('{"q1": "1882"}')
    arguments = ["squad-eval", str(bad_data), str(predictions)]
    if how == "flag in a process":
        done = allennlp_process("--debug", *arguments)
    else:
        done = allennlp("--debug", *arguments) if how == "flag" else allennlp(*arguments, debug_env="1")
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("srcframework.data.errors.DatasetError: ")


def test_other_exceptions_keep_their_traceback(capsys):
    try:
        raise KeyError("x")
    except KeyError as error:
        cli_errors.excepthook(KeyError, error, error.__traceback__)
    assert "Traceback" in capsys.readouterr().err


def test_hook_in_process(capsys, monkeypatch):
    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    error = DatasetError("data.json", "first line\nsecond line", "q7")
    cli_errors.excepthook(DatasetError, error, None)
    assert capsys.readouterr().err == "error: data.json (question id 'q7'): first line second line\n"


def test_detects_the_command_line():
    assert cli_errors.subcommand(["/x/bin/allennlp", "--debug", "list-plugins", "--json"]) == "list-plugins"
    assert cli_errors.running_allennlp_cli(["/x/bin/allennlp", "evaluate"])
    assert not cli_errors.running_allennlp_cli(["/x/bin/pytest", "tests"])


def test_an_out_of_range_noise_parameter_is_one_line(tmp_path):
    done = allennlp("noise", str(FIXTURES / "squad_tiny.json"), str(tmp_path / "n.json"), "--no-progress",
                    "--noise", '{"type": "keyboard", "word_probability": 7}')
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == "error: keyboard noise: word_probability must be in [0, 1], got 7"
    assert "Traceback" not in done.stderr


BAD_COMPONENTS = [
    ("srcframework.noise.noise_source.NoiseSource", {"type": "keyboard", "word_probability": 7}, "word_probability"),
    ("srcframework.noise.noise_source.NoiseSource", {"type": "misspelling", "word_probability": -1}, "word_probability"),
    ("srcframework.noise.noise_source.NoiseSource", {"type": "misspelling", "path": "/no/such/list.txt"}, "not found"),
    ("srcframework.noise.noise_source.NoiseSource", {"type": "mix", "sources": [{"type": "keyboard"}], "keep_clean": 2},
     "keep_clean"),
    ("srcframework.noise.noise_source.NoiseSource", {"type": "mix", "sources": []}, "at least one"),
    ("srcframework.noise.noise_source.NoiseSource", {"type": "natural", "path": "x.json", "missing": "guess"},
     "missing must be one of"),
    ("srcframework.speech.engines.SpeechSynthesizer", {"type": "flite", "voice": "nosuch"}, "unknown flite voice"),
    ("srcframework.speech.engines.SpeechSynthesizer", {"type": "espeak_ng", "speed": 0}, "speed"),
    ("srcframework.speech.engines.SpeechRecognizer", {"type": "pocketsphinx", "preset": "nosuch"}, "preset"),
    ("srcframework.data.audio_indexers.audio_indexer.AudioIndexer", {"type": "waveform", "overflow": "x"}, "overflow"),
    # a reader's own check, raised by its constructor (ValueError): the line names the reader
    ("allennlp.data.DatasetReader", {"type": "squad_src", "speakers": {"SPK1": {"country": "US"}}},
     "SquadSrcReader: speakers"),
    # AllenNLP's own check of a config value's type
    ("allennlp.data.DatasetReader", {"type": "squad_src", "speakers": {"SPK1": 3}}, "config: Expected speakers.SPK1"),
]


@pytest.mark.parametrize("base, params, expected", BAD_COMPONENTS, ids=[str(c[1]) for c in BAD_COMPONENTS])
def test_every_constructor_check_reaches_the_one_line_handler(base, params, expected, capsys, monkeypatch):
    import importlib

    from allennlp.common import Params

    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    module, name = base.rsplit(".", 1)
    cls = getattr(importlib.import_module(module), name)
    with pytest.raises(Exception) as caught:
        cls.from_params(Params(json.loads(json.dumps(params))))
    cli_errors.excepthook(caught.type, caught.value, caught.value.__traceback__)
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and expected in err, err
    assert "Traceback" not in err


def test_a_constructor_check_of_a_plain_class_keeps_its_traceback(capsys, monkeypatch):
    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)

    class Plain:
        def __init__(self):
            raise ValueError("a bug, not a parameter")

    with pytest.raises(ValueError) as caught:
        Plain()
    cli_errors.excepthook(caught.type, caught.value, caught.value.__traceback__)
    assert "Traceback" in capsys.readouterr().err


def test_an_importstr_of_a_whole_file_is_shown_as_a_short_excerpt(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("".join(f"user{k}:x:{k}:{k}:a line of a system file:/home/user{k}:/bin/sh\n" for k in range(200)))
    config = tmp_path / "config.jsonnet"
    config.write_text('{dataset_reader: {type: importstr "%s"}, model: {type: "span_qa"}}' % secret)
    done = allennlp("train", str(config), "-s", str(tmp_path / "run"))
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: unknown dataset_reader.type 'user0:x:0:0:") and " characters]: choices: " in last
    assert len(last) <= cli_errors.MAX_MESSAGE + 100
    assert "user100:" not in done.stderr  # neither the error line nor AllenNLP's log of the config
    assert "Traceback" not in done.stderr


def test_a_jsonnet_error_is_one_line_with_its_place(tmp_path):
    config = tmp_path / "broken.jsonnet"
    config.write_text("{dataset_reader: }")
    done = allennlp("train", str(config), "-s", str(tmp_path / "run"))
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == f'error: config file {config}:1:18: unexpected: "}}" while parsing terminal'
    assert "Traceback" not in done.stderr


def handled(error: BaseException, capsys) -> str:
    """The line the hook prints for `error` (raised, so that it has its traceback)."""
    cli_errors.excepthook(type(error), error, error.__traceback__)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


JSONNET_ERRORS = [
    ("{a: 1,\n b: }", "{config}:2:5: unexpected: \"}\" while parsing terminal"),
    ('{"a": 1 "b": 2}', "{config}:1:9-12: expected a comma before next field."),
    ('local x = error "no such speaker";\n{a: x}', "{config}:1:11-34: no such speaker"),
    ("{a: import 'missing.libsonnet'}", "{config}:1:5-31: couldn't open import \"missing.libsonnet\""),
]


@pytest.mark.parametrize("text, expected", JSONNET_ERRORS, ids=["static", "json", "runtime", "import"])
def test_a_jsonnet_error_names_file_line_and_column(text, expected, tmp_path, capsys, monkeypatch):
    from allennlp.common import Params

    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    config = tmp_path / "config.jsonnet"
    config.write_text(text)
    with pytest.raises(RuntimeError) as caught:
        Params.from_file(str(config))
    assert handled(caught.value, capsys).startswith("error: config file " + expected.replace("{config}", str(config)))


def test_a_study_file_jsonnet_error_names_its_place(tmp_path, capsys, monkeypatch):
    from srcframework.studies.study import StudyError, load_study

    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    study = tmp_path / "study.jsonnet"
    study.write_text("{models: }")
    with pytest.raises(StudyError) as caught:
        load_study(str(study))
    assert handled(caught.value, capsys) == (
        f'error: {study}: cannot evaluate the study file: {study}:1:10: unexpected: "}}" while parsing terminal'
    )


def build(base: str, params: dict, **extras):
    import importlib

    from allennlp.common import Params

    module, name = base.rsplit(".", 1)
    return getattr(importlib.import_module(module), name).from_params(Params(params), **extras)


def test_an_unknown_registered_name_says_did_you_mean_and_lists_the_choices(capsys, monkeypatch):
    from allennlp.data import Vocabulary

    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    with pytest.raises(Exception) as caught:
        build("srcframework.noise.noise_source.NoiseSource", {"type": "mix", "sources": [{"type": "keybord"}]})
    line = handled(caught.value, capsys)
    assert line.startswith("error: unknown sources.0.type 'keybord': did you mean keyboard? choices: asr, ")
    assert "--include-package" not in line
    with pytest.raises(Exception) as caught:
        build("allennlp.models.Model", {"type": "span_qq"}, vocab=Vocabulary())
    assert handled(caught.value, capsys).startswith("error: unknown type 'span_qq': did you mean span_qa? choices: ")
    with pytest.raises(Exception) as caught:
        build("allennlp.modules.Seq2SeqEncoder", {"type": "lsmt", "input_size": 2, "hidden_size": 2})
    line = handled(caught.value, capsys)
    assert line.startswith("error: unknown type 'lsmt': did you mean lstm? choices: ") and ", lstm, " in line
    with pytest.raises(Exception) as caught:
        from allennlp.models import Model

        Model.by_name("span_qq")
    assert handled(caught.value, capsys).startswith("error: unknown Model name 'span_qq': did you mean span_qa? ")


def test_an_unknown_parameter_names_the_valid_ones(capsys, monkeypatch):
    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    with pytest.raises(Exception) as caught:
        build("srcframework.noise.noise_source.NoiseSource", {"type": "keyboard", "word_prob": 0.1})
    assert handled(caught.value, capsys) == (
        "error: KeyboardNoise got an unknown parameter word_prob (did you mean word_probability?); "
        "its parameters: word_probability"
    )
    with pytest.raises(Exception) as caught:
        build("srcframework.noise.noise_source.NoiseSource",
              {"type": "mix", "sources": [{"type": "keyboard", "word_prob": 0.1, "colour": "red"}]})
    assert handled(caught.value, capsys) == (
        "error: KeyboardNoise got unknown parameters sources.0.word_prob (did you mean word_probability?), "
        "sources.0.colour; its parameters: word_probability"
    )


def test_an_unknown_noise_type_through_the_command_line(tmp_path):
    done = allennlp("noise", str(FIXTURES / "squad_tiny.json"), str(tmp_path / "n.json"), "--no-progress",
                    "--noise", '{"type": "keyboard", "word_prob": 0.1}')
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "error: KeyboardNoise got an unknown parameter word_prob (did you mean word_probability?); "
        "its parameters: word_probability"
    )


def test_plugin_announcements_are_debug_only(caplog):
    import logging

    record = logging.LogRecord("allennlp.common.plugins", logging.INFO, __file__, 1, "Plugin %s available",
                               ("srcframework",), None)
    failed = logging.LogRecord("allennlp.common.plugins", logging.ERROR, __file__, 1, "Plugin x could not be loaded",
                               (), None)
    root = logging.getLogger()
    level = root.level
    try:
        root.setLevel(logging.INFO)
        assert not cli_errors.PluginAnnouncementFilter().filter(record)
        assert cli_errors.PluginAnnouncementFilter().filter(failed)
        root.setLevel(logging.DEBUG)
        assert cli_errors.PluginAnnouncementFilter().filter(record)
    finally:
        root.setLevel(level)


@pytest.mark.slow
def test_help_prints_nothing_on_stderr():
    done = allennlp_process("noise", "--help")
    assert done.returncode == 0 and "usage: allennlp noise" in done.stdout
    assert done.stderr == ""


def test_excerpt_keeps_short_messages_and_says_what_it_cut():
    assert cli_errors.excerpt("short\nmessage") == "short message"
    long_quoted = "unknown voice '" + "x" * 2000 + "'; known voices: a, b"
    cut = cli_errors.excerpt(long_quoted)
    assert cut.startswith("unknown voice 'xxx") and "[2,000 characters]" in cut and cut.endswith("known voices: a, b")
    one_blob = "y" * 5000
    assert "characters left out" in cli_errors.excerpt(one_blob) and len(cli_errors.excerpt(one_blob)) < 900
