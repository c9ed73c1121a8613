"""The robust-training configs and study parse and name what they should."""
import json

import _jsonnet
import pytest

from srcframework.config_defaults import DEFAULTS
from srcframework.studies.study import load_study
from tests.conftest import FIXTURES, ROOT, shared_file

CONFIGS = ROOT / "training_configs"


def evaluate(name: str, **overrides) -> dict:
    variables = dict(DEFAULTS, **overrides)
    return json.loads(_jsonnet.evaluate_file(str(CONFIGS / name), ext_vars=variables))


def test_robust_training_study_parses_with_every_model_and_set():
    shared_file("noiseqa/synthetic/xquad-asr-synthetic.json")
    tiny = str(FIXTURES / "squad_tiny.json")
    variables = {"BIDAF_ARCHIVE": tiny, "BIDAF_AUGMENTED_ARCHIVE": tiny, "BIDAF_TRANSCRIPTS_ARCHIVE": tiny,
                 "TRANSFORMER_ARCHIVE": tiny, "TRANSFORMER_AUGMENTED_ARCHIVE": tiny, "NOISY_XQUAD": "runs/noisy",
                 "STUDY_WITH_ASR": "1", "SPOKEN_CASCADE": "1"}
    study = load_study(str(CONFIGS / "studies/robust_training.jsonnet"), ext_vars=variables, require_files=False)
    assert list(study.models) == ["bidaf", "bidaf_augmented", "bidaf_transcripts", "transformer", "transformer_augmented"]
    assert set(study.test_sets) == {
        "clean", "noiseqa_asr", "noiseqa_keyboard", "noiseqa_translation",
        "ours_keyboard", "ours_back_translation", "ours_asr", "spoken_cascade_rms",
    }
    assert all(study.reference_of(name) == "clean" for name in study.test_sets if name != "clean")
    assert study.test_sets["spoken_cascade_rms"].data == "runs/noisy/xquad_asr_rms.json"
    assert len(study.pairs) == 5 * 8
    assert study.models["bidaf_augmented"].twin == "bidaf" and study.models["transformer_augmented"].twin == "transformer"
    without = dict(variables, TRANSFORMER_ARCHIVE="", TRANSFORMER_AUGMENTED_ARCHIVE="", STUDY_WITH_ASR="0")
    study = load_study(str(CONFIGS / "studies/robust_training.jsonnet"), ext_vars=without, require_files=False)
    assert list(study.models) == ["bidaf", "bidaf_augmented", "bidaf_transcripts"]
    assert "ours_asr" not in study.test_sets and len(study.pairs) == 3 * 7
    text_only = dict(without, SPOKEN_CASCADE="0")
    study = load_study(str(CONFIGS / "studies/robust_training.jsonnet"), ext_vars=text_only, require_files=False)
    assert "spoken_cascade_rms" not in study.test_sets and len(study.pairs) == 3 * 6


def test_augmented_configs_mix_the_four_copies_and_validate_clean():
    bidaf = evaluate("bidaf_cpu_scale_augmented.jsonnet", NOISY_TRAIN="copies")
    reader = bidaf["dataset_reader"]
    assert reader["noisy_copies"] == {name: f"copies/train_{name}.json"
                                      for name in ("asr", "keyboard", "misspelling", "back_translation")}
    assert abs(sum(reader["noisy_copy_weights"].values()) - 1.0) < 1e-9
    assert "noisy_copies" not in bidaf["validation_dataset_reader"]
    assert bidaf["validation_data_path"].endswith("xquad/xquad.en.json")
    assert bidaf["data_loader"]["max_instances_in_memory"] > 0  # re-read (fresh draws) each epoch
    minilm = evaluate("transformer_qa_cpu_scale_augmented.jsonnet", NOISY_TRAIN="copies")
    assert minilm["dataset_reader"]["noisy_copies"] == reader["noisy_copies"]
    assert "noisy_copies" not in minilm["validation_dataset_reader"]


def test_transcript_config_trains_on_transcripts_and_validates_on_clean_xquad():
    config = evaluate("bidaf_cpu_scale_asr_transcripts.jsonnet", ASR_TRAIN="t.json")
    assert config["train_data_path"] == "t.json"
    assert config["validation_data_path"].endswith("xquad/xquad.en.json")
    assert config["dataset_reader"]["skip_invalid"] is True


def test_augmented_config_adds_noise_and_the_mix_variant_replaces():
    added = evaluate("bidaf_cpu_scale_augmented.jsonnet", NOISY_TRAIN="copies")["dataset_reader"]
    mixed = evaluate("bidaf_cpu_scale_augmented_mix.jsonnet", NOISY_TRAIN="copies")["dataset_reader"]
    assert added["keep_clean"] is True and "keep_clean" not in mixed
    assert added["noisy_copies"] == mixed["noisy_copies"]
    minilm = evaluate("transformer_qa_cpu_scale_augmented.jsonnet", NOISY_TRAIN="copies")["dataset_reader"]
    assert minilm["keep_clean"] is True and minilm["noisy_copy_weights"] == added["noisy_copy_weights"]


def test_the_mix_variant_and_the_epoch_2_checkpoint_join_the_study_when_named():
    tiny = str(FIXTURES / "squad_tiny.json")
    variables = {"BIDAF_ARCHIVE": tiny, "BIDAF_AUGMENTED_ARCHIVE": tiny, "BIDAF_TRANSCRIPTS_ARCHIVE": tiny,
                 "BIDAF_AUGMENTED_MIX_ARCHIVE": tiny, "BIDAF_AUGMENTED_E2_ARCHIVE": tiny, "SPOKEN_CASCADE": "0"}
    study = load_study(str(CONFIGS / "studies/robust_training.jsonnet"), ext_vars=variables, require_files=False)
    assert list(study.models) == ["bidaf", "bidaf_augmented", "bidaf_augmented_e2", "bidaf_augmented_mix", "bidaf_transcripts"]
    assert study.models["bidaf_augmented_mix"].twin == "bidaf" and study.models["bidaf_augmented_e2"].twin == "bidaf"


@pytest.mark.parametrize("clean, augmented", [("bidaf_long", "bidaf_augmented_long"), ("bidaf_long10", "bidaf_augmented_grow")])
def test_the_trained_on_twins_join_the_study_paired_with_each_other(clean, augmented):
    tiny = str(FIXTURES / "squad_tiny.json")
    variables = {"BIDAF_ARCHIVE": tiny, "BIDAF_AUGMENTED_ARCHIVE": tiny, "BIDAF_TRANSCRIPTS_ARCHIVE": tiny,
                 f"{clean.upper()}_ARCHIVE": tiny, f"{augmented.upper()}_ARCHIVE": tiny, "SPOKEN_CASCADE": "0"}
    study = load_study(str(CONFIGS / "studies/robust_training.jsonnet"), ext_vars=variables, require_files=False)
    assert study.models[augmented].twin == clean and study.models[clean].twin is None
    [other] = {"bidaf_long", "bidaf_long10"} - {clean}
    assert other not in study.models
    alone = dict(variables, **{f"{clean.upper()}_ARCHIVE": ""})
    study = load_study(str(CONFIGS / "studies/robust_training.jsonnet"), ext_vars=alone, require_files=False)
    assert study.models[augmented].twin is None and clean not in study.models


def test_the_long_configs_differ_from_the_3_epoch_ones_only_in_epochs_and_checkpoints():
    for short, long in [("bidaf_cpu_scale", "bidaf_cpu_scale_long"), ("bidaf_cpu_scale_augmented", "bidaf_cpu_scale_augmented_long")]:
        a, b = evaluate(short + ".jsonnet", NOISY_TRAIN="copies"), evaluate(long + ".jsonnet", NOISY_TRAIN="copies")
        assert b["trainer"].pop("num_epochs") == 8 and b["trainer"].pop("checkpointer") == {"keep_most_recent_by_count": 8}
        a["trainer"].pop("num_epochs")
        assert a == b


def test_the_grow_config_reads_every_noisy_copy_with_the_8_epoch_vocabulary():
    long = evaluate("bidaf_cpu_scale_augmented_long.jsonnet", NOISY_TRAIN="copies")
    grow = evaluate("bidaf_cpu_scale_augmented_grow.jsonnet", NOISY_TRAIN="copies")
    weights = grow["dataset_reader"].pop("noisy_copy_weights")
    assert weights["clean"] == 0 and sum(weights.values()) == 1
    assert grow.pop("vocabulary") == {"type": "from_files", "directory": "runs/bidaf_cpu_scale_augmented_long/vocabulary"}
    assert grow["trainer"].pop("num_epochs") == 10 and long["trainer"].pop("num_epochs") == 8
    grow["trainer"].pop("checkpointer"), long["trainer"].pop("checkpointer"), long["dataset_reader"].pop("noisy_copy_weights")
    assert grow == long
    clean10 = evaluate("bidaf_cpu_scale_long10.jsonnet")
    assert clean10["trainer"]["num_epochs"] == 10 and "noisy_copies" not in clean10["dataset_reader"]
