"""recipes/e2e_voices/e2e.jsonnet and e2e_finetune.jsonnet: the study's end-to-end model, the first
study's two stages on this study's recogniser, validated on the development voices, and the second
stage starting from the first stage of its own seed."""
import json

import _jsonnet
import torch

from srcframework.recipes.recipe import load_recipe
from tests.conftest import ROOT
from tests.recipes.configs_build_test import inputs  # noqa: F401 (the tiny files, a fixture)
from tests.recipes.recipe_variables import recipe_variables
from tests.recipes.two_stages import first_then_second

FOLDER = ROOT / "recipes"


def render(path, seed):
    return json.loads(_jsonnet.evaluate_file(str(path), ext_vars=recipe_variables(path, SEED=str(seed))))


def study(name, seed):
    return render(FOLDER / "e2e_voices" / f"{name}.jsonnet", seed)


def first_study(name, seed):
    return render(FOLDER / "e2e_cpu" / f"{name}.jsonnet", seed)


def test_each_stage_is_the_first_studys_on_the_new_recogniser_validated_on_the_development_voices():
    for name, twin in (("e2e", "e2e_speecht5_ctc"), ("e2e_finetune", "e2e_speecht5_ctc_finetune")):
        for seed in (1, 4):
            ours, theirs = study(name, seed), first_study(twin, seed)
            assert ours.pop("validation_data_path") == "runs/spoken_voices/development/fid2qid_heldout.csv"
            assert ours.pop("validation_dataset_reader")["squad_file"] is None  # the folder's own SQuAD file
            assert ours["model"]["question_encoder"].pop("model_name") == "runs/e2e_voices/recogniser/speecht5_ctc"
            theirs.pop("validation_data_path")
            theirs.pop("validation_dataset_reader")
            theirs["model"]["question_encoder"].pop("model_name")
            if name == "e2e_finetune":  # from this study's first stage, not the first study's (the test below)
                for config in (ours, theirs):
                    config.pop("vocabulary")
                    config["model"].pop("initializer")
            # the first stage starts from bidaf-clean's weights and vocabulary, as the first study's did
            assert ours == theirs
            # the same seed, the stopping rule and the declared best epoch
            assert ours["random_seed"] == ours["pytorch_seed"] == seed
            assert ours["trainer"]["patience"] == 3 and ours["trainer"]["num_epochs"] == 15
            assert {"type": "declared_checkpoint", "epoch": "best"} in ours["trainer"]["callbacks"]


def test_the_second_stage_reads_the_first_stage_of_its_own_seed():
    for seed in (1, 2, 3, 4):
        config = study("e2e_finetune", seed)
        assert config["vocabulary"]["directory"] == f"runs/e2e_voices/e2e_s{seed}/vocabulary"
        assert config["model"]["initializer"]["regexes"] == [[".*", {"type": "pretrained", "weights_file_path": f"runs/e2e_voices/e2e_s{seed}/best.th"}]]
        assert config["model"]["question_encoder"]["freeze"] is False
        assert study("e2e", seed)["model"]["question_encoder"]["freeze"] is True


def test_the_recipe_trains_four_seeds_after_the_recogniser():
    recipe = load_recipe("e2e_voices")
    for seed in (1, 2, 3, 4):
        first, second = recipe.step(f"e2e_s{seed}"), recipe.step(f"e2e_finetune_s{seed}")
        assert {"recogniser", "text_bidaf", "speech_development"} <= set(first.needs)
        assert second.needs == (f"e2e_s{seed}",) and first.seed == second.seed == seed
        assert first.folder.endswith(f"e2e_voices/e2e_s{seed}") and second.folder.endswith(f"e2e_voices/e2e_finetune_s{seed}")
    study = recipe.groups["study"]
    assert {"recogniser", "text_bidaf", "speech_development"} <= set(study)
    assert {f"{training}_s{seed}" for training in ("e2e", "e2e_finetune") for seed in (1, 2, 3, 4)} <= set(study)
    # every step a picked step needs is picked too, so the group runs on a runs folder of its own
    for name in ("study", "cascades"):
        picked = set(recipe.groups[name])
        assert all(set(recipe.step(step).needs) <= picked for step in picked if step != "e2e_cpu_inputs"), name


def test_the_second_stage_starts_from_every_weight_of_the_first(inputs, tmp_path):  # noqa: F811
    first, second = first_then_second(study("e2e", 3), study("e2e_finetune", 3), inputs, tmp_path)
    state, saved = second.state_dict(), first.state_dict()
    assert set(state) == set(saved)
    assert all(torch.equal(state[key], value) for key, value in saved.items())


def test_cascade_cs_decoder_is_chosen_on_the_development_set_for_the_studys_recogniser():
    recipe = load_recipe("e2e_voices")
    tune = recipe.step("tune_decoder")
    command = list(tune.command)
    assert command[:3] == ["allennlp", "tune-ctc-decoder", "runs/spoken_voices/development"]
    assert command[command.index("--split") + 1] == "heldout" and "--limit" not in command
    assert command[command.index("--model") + 1] == "runs/e2e_voices/recogniser/speecht5_ctc"
    assert {"recogniser", "lm", "speech_development"} <= set(tune.needs)
    assert command[command.index("--language-model") + 1] in recipe.step("lm").outputs
    assert not any("xquad" in part for part in command)


def test_the_analysis_inputs_are_the_first_studys_test_sets_and_this_studys_recogniser_on_them():
    recipe = load_recipe("e2e_voices")
    first = load_recipe("e2e_cpu")
    test_sets = recipe.step("test_sets")
    command = list(test_sets.command)
    assert command[:4] == ["allennlp", "recipe", "run", "e2e_cpu"]
    made = {output for step in command[4:command.index("--runs")] for output in first.step(step).outputs}
    assert set(test_sets.outputs) <= made  # what it lists as made, the e2e_cpu steps it runs make
    for group, folder in (("seen", "runs/spoken_ctc/xquad_seen"), ("held_out", "runs/spoken_ctc/xquad_heldout")):
        assert f"{folder}/fid2qid_dev.csv" in test_sets.outputs
        for cascade in ("b", "c"):
            step = recipe.step(f"test_transcripts_{cascade}_{group}")
            job = dict(step.job)
            assert job["folder"] == folder and job.get("split", "dev") == "dev"
            assert job["recognizer"]["model_name"] == "runs/e2e_voices/recogniser/speecht5_ctc"
            assert {"test_sets", "recogniser"} <= set(step.needs)
            # cascade C decodes with the weights chosen on the development voices, B greedily
            assert (job.get("decoder_from") == recipe.step("tune_decoder").outputs[0]) == (cascade == "c")
            assert ("tune_decoder" in step.needs) == (cascade == "c")
            assert step.outputs == (job["output"],) or list(step.outputs) == [job["output"]]
    picked = set(recipe.groups["analysis_inputs"])
    assert all(set(recipe.step(step).needs) <= picked for step in picked if step != "e2e_cpu_inputs")
    assert {f"test_transcripts_{c}_{g}" for c in "bc" for g in ("seen", "held_out")} <= picked


def test_the_stage_3_study_reads_what_the_recipe_makes_and_declares_seventeen_comparisons(install_tiny):
    from srcframework.config_defaults import DEFAULTS
    from srcframework.studies.study import load_study

    installed = install_tiny("bidaf-clean")
    study = load_study(str(FOLDER / "e2e_voices" / "study_stage3.jsonnet"), ext_vars=dict(DEFAULTS), require_files=False)
    recipe = load_recipe("e2e_voices")
    made = {output for name in ["test_sets"] + [f"test_transcripts_{c}_{g}" for c in "bc" for g in ("seen", "held_out")]
            for output in recipe.step(name).outputs}
    assert study.models["bidaf"].archive == installed["bidaf-clean"]
    # the end-to-end model: this study's second stage, every seed
    assert study.models["e2e"].archives == tuple(f"runs/e2e_voices/e2e_finetune_s{s}/model.tar.gz" for s in (1, 2, 3, 4))
    assert study.models["e2e"].input == "audio"
    for group in ("seen", "held_out"):
        for cascade in "abc":
            for name in (f"cascade_{cascade}_{group}", f"cascade_{cascade}_{group}_swapped"):
                assert study.test_sets[name].data in made  # the recipe's analysis_inputs make every file read
            assert study.reference_of(f"cascade_{cascade}_{group}") == "typed"
        assert study.test_sets[f"cascade_b_{group}"].data.startswith("runs/e2e_voices/test_transcripts/")
        for name in (f"spoken_{group}", f"spoken_{group}_swapped", f"spoken_{group}_silent"):
            assert study.test_sets[name].data in made and study.test_sets[name].input == "audio"
        assert study.test_sets[f"spoken_{group}"].wer_from == f"cascade_b_{group}"
    assert study.test_sets["blind"].data in made and study.test_sets["blind"].original == study.test_sets["typed"].data
    # nothing here reads the development voices, which chose the study's epochs and decoder weights
    assert not any("spoken_voices/development" in s.data for s in study.test_sets.values())
    pairs = {c.name: (c.first, c.second) for c in study.comparisons}
    assert len(pairs) == 17
    assert pairs["e2e_vs_cascade_c_held_out"] == (("e2e", "spoken_held_out"), ("bidaf", "cascade_c_held_out"))
    assert pairs["e2e_listening_held_out"] == (("e2e", "spoken_held_out"), ("e2e", "spoken_held_out_swapped"))
    assert pairs["e2e_silence_seen"] == (("e2e", "spoken_seen"), ("e2e", "spoken_seen_silent"))
    assert pairs["typed_listening"] == (("bidaf", "typed"), ("bidaf", "typed_swapped"))
    analysis = recipe.step("analysis")
    assert dict(analysis.job)["study"] == "recipes/e2e_voices/study_stage3.jsonnet"
    assert {"test_sets"} | {f"e2e_finetune_s{s}" for s in (1, 2, 3, 4)} <= set(analysis.needs)
    seed_test = recipe.step("seed_test")
    assert seed_test.needs == ("analysis",) or list(seed_test.needs) == ["analysis"]
    assert analysis.outputs[0] in seed_test.command and "recipes/e2e_voices/seed_test.py" in seed_test.command
