"""The study comparing end to end and cascades on spoken XQuAD, and the configs of the small
SpeechT5 it uses, parse and name what they should."""
import json

import _jsonnet

from srcframework.config_defaults import DEFAULTS
from srcframework.studies.study import load_study
from tests.conftest import ROOT

RECIPE = ROOT / "recipes" / "e2e_cpu"


def evaluate(name: str, **overrides) -> dict:
    return json.loads(_jsonnet.evaluate_file(str(RECIPE / name), ext_vars=dict(DEFAULTS, **overrides)))


def test_study_parses_with_both_voice_groups_floor_and_ceiling(install_tiny):
    installed = install_tiny("bidaf-clean")
    study = load_study(str(RECIPE / "study.jsonnet"), ext_vars=dict(DEFAULTS), require_files=False)
    assert list(study.models) == ["bidaf", "e2e"]
    assert study.models["e2e"].input == "audio" and study.models["bidaf"].input == "text"
    groups = ("seen", "held_out")
    text_sets = {"typed", "blind"} | {f"cascade_{k}_{g}" for k in "abc" for g in groups}
    audio_sets = {f"spoken_{g}" for g in groups}
    assert set(study.test_sets) == text_sets | audio_sets
    assert set(study.pairs) == {("bidaf", s) for s in text_sets} | {("e2e", s) for s in audio_sets}
    for group, folder in (("seen", "runs/spoken_ctc/xquad_seen/"), ("held_out", "runs/spoken_ctc/xquad_heldout/")):
        assert study.test_sets[f"cascade_a_{group}"].data == folder + "transcripts_pocketsphinx.json"
        assert study.test_sets[f"cascade_b_{group}"].data == folder + "transcripts_speecht5_ctc.json"
        assert study.test_sets[f"cascade_c_{group}"].data == folder + "transcripts_speecht5_ctc_lm.json"
        assert study.test_sets[f"spoken_{group}"].data == folder + "fid2qid_dev.csv"
        assert study.test_sets[f"spoken_{group}"].wer_from == f"cascade_b_{group}"
        reader = study.test_sets[f"spoken_{group}"].dataset_reader
        assert reader["type"] == "squad_src" and reader["squad_file"] is None  # the folder's own questions
        assert study.reference_of(f"cascade_a_{group}") == "typed"
    assert study.test_sets["typed"].is_clean and study.test_sets["typed"].data.endswith("xquad/xquad.en.json")
    assert study.test_sets["blind"].original == study.test_sets["typed"].data
    # the text BiDAF the e2e model started from by card id; the e2e model by its seeds' runs
    assert study.models["bidaf"].archive == installed["bidaf-clean"]
    assert study.models["e2e"].archives == tuple(f"runs/e2e_speecht5_ctc_finetune_s{s}/model.tar.gz" for s in (1, 2))
    # paired tests across sets over the same questions: e2e against the three cascades in each group,
    # and seen against held-out voices
    pairs = {c.name: (c.first, c.second) for c in study.comparisons}
    assert pairs["e2e_vs_cascade_a_held_out"] == (("e2e", "spoken_held_out"), ("bidaf", "cascade_a_held_out"))
    assert pairs["e2e_vs_cascade_b_seen"] == (("e2e", "spoken_seen"), ("bidaf", "cascade_b_seen"))
    assert pairs["e2e_vs_cascade_c_held_out"] == (("e2e", "spoken_held_out"), ("bidaf", "cascade_c_held_out"))
    assert pairs["e2e_seen_vs_held_out"] == (("e2e", "spoken_seen"), ("e2e", "spoken_held_out"))
    assert len(pairs) == 8


def test_pretraining_config_reads_the_training_voices_perturbed_and_saves_the_encoder():
    config = evaluate("speecht5_ctc_pretrain.jsonnet")
    assert config["model"]["type"] == "speecht5_ctc"
    assert config["train_data_path"] == "runs/spoken_ctc/train9/fid2qid_train.csv"
    assert config["dataset_reader"]["squad_file"] == "runs/data/squad_dev_minus_xquad.json"
    # validation: held-out articles of the training split, never XQuAD
    assert config["validation_data_path"] == "runs/spoken_ctc/train9/fid2qid_heldout.csv"
    assert config["validation_dataset_reader"]["squad_file"] == "runs/data/squad_dev_minus_xquad.json"
    # speed, pitch and volume perturbed by the training reader only, tied to the epoch; not twice
    assert set(config["dataset_reader"]["audio_perturbation"]) == {"speed", "pitch", "gain_db"}
    assert "audio_perturbation" not in config["validation_dataset_reader"]
    assert {"type": "reader_epoch"} in config["trainer"]["callbacks"]
    assert config["model"]["speed_perturbation"] is None and config["model"]["volume_perturbation_db"] is None
    assert {"type": "save_speecht5_ctc"} in config["trainer"]["callbacks"]
    assert config["trainer"]["validation_metric"] == "-cer"
    assert config["data_loader"]["max_instances_in_memory"] > 0  # 28k waveforms would not fit at once
    encoder = config["model"]["encoder"]
    assert len(encoder["conv_dim"]) == len(encoder["conv_kernel"]) == len(encoder["conv_stride"])


def test_pretraining_runs_until_the_held_out_cer_stops_improving():
    trainer = evaluate("speecht5_ctc_pretrain.jsonnet")["trainer"]
    assert trainer["validation_metric"] == "-cer" and trainer["patience"] >= 2
    passes = trainer["num_epochs"] / 3  # an epoch is a third of the training utterances
    assert passes >= 10  # a cap, not a plan: the patience stop ends the run
    # a schedule with no planned end, a checkpoint to --recover from, the best epoch archived
    assert trainer["learning_rate_scheduler"]["type"] == "noam"
    assert trainer["checkpointer"]["keep_most_recent_by_count"] >= 1
    assert {"type": "declared_checkpoint", "epoch": "best"} in trainer["callbacks"]
    assert {"type": "torch_threads", "threads": 1} in trainer["callbacks"]


def test_e2e_config_loads_the_pretrained_folder_frozen_and_stops_on_validation():
    config = evaluate("e2e_speecht5_ctc.jsonnet")
    question = config["model"]["question_encoder"]
    assert question == dict(question, type="speecht5", model_name="runs/speecht5_ctc/speecht5_ctc", freeze=True)
    assert config["model"]["span_head"]["type"] == "bi_attention"
    assert config["model"]["context_encoder"]["type"] == "text"
    assert config["train_data_path"] == "runs/spoken_ctc/train9/fid2qid_train.csv"
    assert config["validation_data_path"] == "runs/spoken_ctc/train9/fid2qid_heldout.csv"
    assert config["dataset_reader"]["several_recordings"] and "audio_perturbation" in config["dataset_reader"]
    assert "audio_perturbation" not in config["validation_dataset_reader"]
    trainer = config["trainer"]
    assert trainer["patience"] >= 2 and trainer["validation_metric"] == "+f1"
    assert {"type": "declared_checkpoint", "epoch": "best"} in trainer["callbacks"]
    assert {"type": "reader_epoch"} in trainer["callbacks"]
    assert {"type": "torch_threads", "threads": 1} in trainer["callbacks"]
    # the context side and the head start from the text BiDAF's last epoch, with its vocabulary
    assert config["vocabulary"] == {"type": "from_files", "directory": "runs/e2e_cpu/text_bidaf/vocabulary"}
    [[regex, init]] = config["model"]["initializer"]["regexes"]
    assert init == {"type": "pretrained", "weights_file_path": "runs/e2e_cpu/text_bidaf/weights.th"}
    import re

    assert re.fullmatch(regex, "span_head.similarity.weight") and re.fullmatch(regex, "context_encoder.highway._layers.0.bias")
    assert not re.fullmatch(regex, "question_encoder.projection.weight")


def test_e2e_stages_are_seeded_by_seed():
    for name in ("e2e_speecht5_ctc.jsonnet", "e2e_speecht5_ctc_finetune.jsonnet"):
        one, two = evaluate(name, SEED="1"), evaluate(name, SEED="2")
        assert [two[k] for k in ("random_seed", "numpy_seed", "pytorch_seed")] == [2, 2, 2]
        assert one["dataset_reader"]["noise_seed"] != two["dataset_reader"]["noise_seed"]
    frozen, tuned = evaluate("e2e_speecht5_ctc.jsonnet", SEED="2"), evaluate("e2e_speecht5_ctc_finetune.jsonnet", SEED="2")
    assert frozen["dataset_reader"]["noise_seed"] != tuned["dataset_reader"]["noise_seed"]
    # the second stage starts from the first stage of its own seed unless told otherwise
    [[_, init]] = tuned["model"]["initializer"]["regexes"]
    assert init["weights_file_path"] == "runs/e2e_speecht5_ctc_s2/best.th"


def test_finetune_config_unfreezes_the_encoder_from_the_frozen_runs_archived_epoch():
    frozen = evaluate("e2e_speecht5_ctc.jsonnet")
    config = evaluate("e2e_speecht5_ctc_finetune.jsonnet", SEED="1")
    assert config["model"]["question_encoder"] == dict(frozen["model"]["question_encoder"], freeze=False)
    assert config["model"]["initializer"]["regexes"] == [[".*", {"type": "pretrained", "weights_file_path": "runs/e2e_speecht5_ctc_s1/best.th"}]]
    assert config["trainer"]["patience"] >= 2
    assert {"type": "declared_checkpoint", "epoch": "best"} in config["trainer"]["callbacks"]
    assert config["vocabulary"]["directory"] == "runs/e2e_speecht5_ctc_s1/vocabulary"
    assert config["trainer"]["optimizer"]["lr"] == frozen["trainer"]["optimizer"]["lr"] / 2
