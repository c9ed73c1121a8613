import json
import re

import pytest

from srcframework.studies.study import MODEL_KEYS, SET_KEYS, StudyError, load_study, study_from_dict
from tests.conftest import FIXTURES, ROOT, shared_file

TINY = str(FIXTURES / "squad_tiny.json")
KEYBOARD = str(FIXTURES / "squad_tiny_keyboard.json")  # `allennlp noise` of TINY
BIDAF_TINY = str(FIXTURES / "bidaf_tiny.jsonnet")


def minimal(**overrides) -> dict:
    raw = {
        "models": {"m": {"archive": BIDAF_TINY}},  # any existing file passes validation
        "test_sets": {
            "clean": {"data": TINY, "interface": "clean", "kind": "natural"},
            "kb": {"data": KEYBOARD, "original": TINY, "interface": "keyboard", "kind": "synthetic"},
        },
    }
    raw.update(overrides)
    return raw


def error(raw) -> str:
    with pytest.raises(StudyError) as info:
        study_from_dict(raw, "study.jsonnet")
    return str(info.value)


def test_fixture_study_loads_with_defaults(tmp_path):
    study = load_study(str(FIXTURES / "study_tiny.jsonnet"), ext_vars={"TINY_ARCHIVE": TINY})
    assert list(study.models) == ["tiny"]
    assert study.models["tiny"].batch_size == 4 and study.models["tiny"].cuda_device == -1
    assert list(study.test_sets) == ["clean", "keyboard"]
    keyboard = study.test_sets["keyboard"]
    assert keyboard.data == "tests/fixtures/squad_tiny_keyboard.json" and keyboard.original == "tests/fixtures/squad_tiny.json"
    assert keyboard.reference == "clean" and study.reference_of("clean") is None
    assert study.pairs == [("tiny", "clean"), ("tiny", "keyboard")]


def test_default_pairs_match_input_modality_and_rules_expand():
    raw = minimal()
    raw["models"]["speech"] = {"archive": BIDAF_TINY, "input": "audio"}
    raw["test_sets"]["spoken"] = {"data": TINY, "input": "audio", "interface": "accent", "kind": "natural",
                                  "wer_from": "kb"}
    study = study_from_dict(raw)
    assert study.pairs == [("m", "clean"), ("m", "kb"), ("speech", "spoken")]
    assert study.test_sets["spoken"].reference is None  # no clean audio set
    raw["pairs"] = [["*", "spoken"], ["m", "kb"]]
    assert study_from_dict(raw).pairs == [("m", "kb"), ("speech", "spoken")]


def test_order_puts_clean_sets_first_then_by_order_and_name():
    raw = minimal()
    raw["test_sets"]["a_noisy"] = {"data": TINY, "interface": "asr", "kind": "natural"}
    raw["test_sets"]["z_last"] = {"data": TINY, "interface": "asr", "kind": "natural", "order": -1}
    raw["models"]["b"] = {"archive": BIDAF_TINY, "order": -1}
    study = study_from_dict(raw)
    assert list(study.test_sets) == ["z_last", "clean", "a_noisy", "kb"]
    assert list(study.models) == ["b", "m"]
    assert study.pairs[0] == ("b", "z_last")


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda r: r["models"]["m"].update(archiv="x"), "models.m.archiv: unknown key"),
        (lambda r: r.update(model={}), "study.model: unknown key"),
        (lambda r: r["models"]["m"].update(archive="nowhere.tar.gz"), "models.m.archive: not found: nowhere.tar.gz"),
        (lambda r: r["models"]["m"].update(input="video"), "models.m.input: must be one of text, audio"),
        (lambda r: r["models"]["m"].update(batch_size=0), "models.m.batch_size: must be at least 1"),
        (lambda r: r["models"].update({"a b": {"archive": BIDAF_TINY}}), "models.a b: name 'a b'"),
        (lambda r: r["test_sets"]["clean"].update(kind="real"), "test_sets.clean.kind: must be one of synthetic, natural"),
        (lambda r: r["test_sets"]["clean"].pop("interface"), "test_sets.clean.interface: expected a non-empty string"),
        (lambda r: r["test_sets"]["clean"].update(data="missing.json"), "test_sets.clean.data: not found: missing.json"),
        (lambda r: r["test_sets"]["kb"].pop("data"), "test_sets.kb.data: expected a non-empty string"),
        (lambda r: r["test_sets"]["kb"].update(reference="nope"), "test_sets.kb.reference: no test set named 'nope'"),
        (lambda r: r["test_sets"]["kb"].update(reference="kb"), "test_sets.kb.reference: 'kb' is not a clean set"),
        (lambda r: r["test_sets"]["kb"].update(wer_from="kb"), "test_sets.kb.wer_from: must name a set"),
        (lambda r: r["test_sets"].update(clean2={"data": TINY, "interface": "clean", "kind": "natural"}),
         "test_sets.kb.reference: several clean text sets (clean, clean2): name one"),
        (lambda r: r.update(pairs=[["m", "nope"]]), "pairs[0]: no test set named 'nope'"),
        (lambda r: r.update(pairs=[["m"]]), "pairs[0]: expected [model, test set]"),
        (lambda r: r.update(pairs=[]), "pairs: expected a non-empty list"),
        (lambda r: r.update(test_sets={}), "test_sets: required"),
    ],
)
def test_bad_studies_name_the_key(change, expected):
    raw = minimal()
    change(raw)
    message = error(raw)
    assert message.startswith("study.jsonnet: ") and expected in message


def test_explicit_pair_of_other_modality_is_an_error_but_a_rule_skips_it():
    raw = minimal()
    raw["models"]["speech"] = {"archive": BIDAF_TINY, "input": "audio"}
    raw["pairs"] = [["speech", "clean"]]
    assert "pairs[0]: model 'speech' takes audio questions but test set 'clean' has text" in error(raw)
    raw["pairs"] = [["speech", "*"]]
    assert "pairs: no model takes the input of any test set" in error(raw)


@pytest.mark.parametrize("change, expected", [
    (lambda r: r["models"].update(fresh={"config": BIDAF_TINY, "serialization_dir": "runs/x"}),
     "study.jsonnet: models.fresh: a study only evaluates; train the model with a recipe training (`trainings` of "
     "recipes/NAME/recipe.jsonnet, `allennlp recipe run NAME`) and give its `archive` or card id (`model`)"),
    (lambda r: r["models"]["m"].update(config=BIDAF_TINY), "study.jsonnet: models.m: a study only evaluates; train"),
    (lambda r: r["test_sets"].update(blind={"original": TINY, "noise": {"type": "blank"}, "interface": "blind",
                                            "kind": "synthetic"}),
     "study.jsonnet: test_sets.blind: a study only evaluates; make the set with a recipe step (`allennlp noise "
     "ORIGINAL OUT --noise ...`) and give its file as `data`"),
    (lambda r: r["test_sets"]["kb"].update(seed=1), "study.jsonnet: test_sets.kb: a study only evaluates; make the set"),
])
def test_a_model_to_train_or_a_set_to_generate_names_the_recipe_step_in_one_line(change, expected):
    raw = minimal()
    change(raw)
    message = error(raw)
    assert message.startswith(expected) and "\n" not in message


def test_study_file_errors_name_the_file(tmp_path):
    with pytest.raises(StudyError, match="study file not found"):
        load_study(str(tmp_path / "none.jsonnet"))
    broken = tmp_path / "broken.jsonnet"
    broken.write_text("{ models: ")
    with pytest.raises(StudyError, match="broken.jsonnet: cannot evaluate the study file"):
        load_study(str(broken))
    unset = tmp_path / "unset.jsonnet"
    unset.write_text("{ models: { m: { archive: std.extVar('NO_SUCH_VARIABLE_SET') } } }")
    with pytest.raises(StudyError, match="NO_SUCH_VARIABLE_SET"):
        load_study(str(unset))
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(minimal()))
    assert load_study(str(plain)).pairs == [("m", "clean"), ("m", "kb")]


def test_noiseqa_xquad_study_names_its_models_by_card_id(install_tiny):
    shared_file("noiseqa/synthetic/xquad-asr-synthetic.json")
    shared_file("xquad/xquad.en.json")
    study_file = str(ROOT / "recipes/noiseqa_xquad/study.jsonnet")
    with pytest.raises(StudyError, match=r"models.bidaf.model: model 'bidaf-cpu-scale' has no archive in the models "
                                         r"folder .*"):
        load_study(study_file)
    installed = install_tiny("bidaf-cpu-scale", "minilm-qa-cpu-scale")
    study = load_study(study_file, require_files=False)  # its own sets are the recipe's noise_* steps' outputs
    assert list(study.models) == ["bidaf"] and study.models["bidaf"].archive == installed["bidaf-cpu-scale"]
    assert list(study.test_sets) == [
        "clean", "noiseqa_asr", "noiseqa_keyboard", "noiseqa_translation", "ours_back_translation", "ours_keyboard",
    ]
    assert all(study.reference_of(name) == "clean" for name in list(study.test_sets)[1:])
    assert study.test_sets["ours_back_translation"].data == "runs/noiseqa_xquad/sets/ours_back_translation.json"
    # study_full: MiniLM QA and our ASR set too
    study = load_study(str(ROOT / "recipes/noiseqa_xquad/study_full.jsonnet"), require_files=False, runs="elsewhere")
    assert list(study.models) == ["bidaf", "transformer"]
    assert study.test_sets["ours_asr"].data == "elsewhere/noiseqa_xquad/sets/ours_asr.json"
    assert study.models["transformer"].archive == installed["minilm-qa-cpu-scale"]
    assert len(study.pairs) == 14


def test_squad_src_study_pairs_cascaded_and_end_to_end(install_tiny):
    installed = install_tiny("bidaf-squad", "e2e-speecht5-squad-src", "e2e-speecht5-text-squad-src")
    variables = {"SRC_DEV": "src/fid2qid_dev.csv", "SRC_TRANSCRIPTS": "transcripts.json"}
    study = load_study(str(ROOT / "recipes/squad_src_paper/study.jsonnet"), ext_vars=variables, require_files=False)
    assert list(study.models) == ["text", "text_twin", "e2e"]
    assert study.models["text"].archive == installed["bidaf-squad"]
    assert study.models["text_twin"].archive == installed["e2e-speecht5-text-squad-src"]
    assert study.models["e2e"].archive == installed["e2e-speecht5-squad-src"] and study.models["e2e"].input == "audio"
    assert sorted(study.pairs) == [("e2e", "spoken"), ("text", "cascaded"), ("text", "clean"), ("text_twin", "cascaded"), ("text_twin", "clean")]
    assert study.test_sets["cascaded"].reference == "clean"
    assert study.test_sets["spoken"].wer_from == "cascaded" and study.test_sets["spoken"].input == "audio"
    assert study.test_sets["spoken"].data == "src/fid2qid_dev.csv"


@pytest.mark.parametrize("section, name", [("models", "m"), ("test_sets", "clean")])
def test_models_and_test_sets_are_checked_alike(section, name):
    raw = minimal()
    raw[section][name]["colour"] = "red"
    assert error(raw) == f"study.jsonnet: {section}.{name}.colour: unknown key; the keys are " + ", ".join(
        sorted(MODEL_KEYS if section == "models" else SET_KEYS)
    )
    raw = minimal()
    raw[section][name] = ["not", "an", "object"]
    assert error(raw) == f"study.jsonnet: {section}.{name}: expected an object, got list"
    raw = minimal()
    raw[section]["bad/name"] = raw[section].pop(name)
    assert error(raw).startswith(f"study.jsonnet: {section}.bad/name: name 'bad/name' must be letters")


def test_statistics_keys_seeds_and_generators():
    raw = minimal(bootstrap_unit="question", equivalence_margin=2)
    raw["models"]["m"] = {"archives": [BIDAF_TINY, TINY], "trained_on_noise": ["keyboard", "asr"]}
    raw["test_sets"]["kb"]["generator"] = "keyboard"
    study = study_from_dict(raw)
    assert study.bootstrap_unit == "question" and study.equivalence_margin == 2.0
    model = study.models["m"]
    assert model.archives == (BIDAF_TINY, TINY) and model.archive == BIDAF_TINY
    assert model.trained_on_noise == ("keyboard", "asr") and study.test_sets["kb"].generator == "keyboard"
    assert study.runs == [("m", "clean", 0), ("m", "clean", 1), ("m", "kb", 0), ("m", "kb", 1)]


@pytest.mark.parametrize("change, message", [
    ({"bootstrap_unit": "paragraph"}, "bootstrap_unit: must be one of context, question; got 'paragraph'"),
    ({"equivalence_margin": 0}, "equivalence_margin: expected a positive number, got 0"),
    ({"models": {"m": {"archives": []}}}, r"models.m.archives: expected a list of at least one non-empty string"),
    ({"models": {"m": {"archives": [BIDAF_TINY, BIDAF_TINY]}}}, "models.m.archives: lists an entry twice"),
    ({"models": {"m": {"archives": [BIDAF_TINY], "archive": BIDAF_TINY}}}, "models.m.archives: give either"),
    ({"models": {"m": {"archives": [BIDAF_TINY, "missing.tar.gz"]}}}, r"models.m.archives\[1\]: not found: missing"),
    ({"models": {"m": {"archive": BIDAF_TINY, "trained_on_noise": "keyboard"}}}, "models.m.trained_on_noise: expected a list"),
])
def test_bad_statistics_and_seed_keys_are_named(change, message):
    assert re.search(message, error(minimal(**change)))


def test_a_clean_set_has_no_generator():
    raw = minimal()
    raw["test_sets"]["clean"]["generator"] = "keyboard"
    assert "test_sets.clean.generator: a clean set has no noise generator" in error(raw)


def two_models(**overrides) -> dict:
    raw = minimal(**overrides)
    raw["models"]["n"] = {"archive": BIDAF_TINY}
    return raw


def side(model, test_set):
    return {"model": model, "set": test_set}


def test_comparisons_across_sets_load_as_a_list_or_named_entries():
    listed = study_from_dict(two_models(comparisons=[{"first": side("m", "kb"), "second": side("n", "clean")}]))
    [only] = listed.comparisons
    assert (only.first, only.second, only.label) == (("m", "kb"), ("n", "clean"), "m on kb vs n on clean")
    named = study_from_dict(two_models(comparisons={
        "typos": {"first": side("m", "kb"), "second": side("m", "clean")},
        "models": {"first": side("m", "kb"), "second": side("n", "kb"), "label": "m against n on typos"},
    }))
    assert [(c.name, c.label) for c in named.comparisons] == [("typos", "typos"), ("models", "m against n on typos")]
    assert study_from_dict(minimal()).comparisons == ()


@pytest.mark.parametrize("comparisons, message", [
    ([{"first": side("x", "kb"), "second": side("m", "clean")}], r"comparisons\[0\].first.model: no model named 'x'$"),
    ([{"first": side("m", "kb"), "second": side("m", "nope")}], r"comparisons\[0\].second.set: no test set named 'nope'$"),
    ({"self": {"first": side("m", "kb"), "second": side("m", "kb")}},
     r"comparisons.self: compares model 'm' on test set 'kb' with itself$"),
    ([{"first": side("m", "kb")}], r"comparisons\[0\].second: required"),
    ([{"first": side("m", "kb"), "second": side("m", "clean"), "third": 1}], r"comparisons\[0\].third: unknown key"),
    ([{"first": {"model": "m"}, "second": side("m", "clean")}], r"comparisons\[0\].first.set: expected a non-empty"),
    ("m vs n", r"comparisons: expected a list or an object"),
    ([{"first": side("m", "kb"), "second": side("n", "clean")}] * 2, r"comparisons\[1\]: a second comparison labelled"),
])
def test_bad_comparisons_are_one_line_errors(comparisons, message):
    found = error(two_models(comparisons=comparisons))
    assert "\n" not in found and re.search(message, found), found


def test_a_comparison_needs_pairs_the_study_runs_and_shared_question_ids(tmp_path):
    raw = two_models(pairs=[["m", "*"], ["n", "clean"]], comparisons=[{"first": side("n", "kb"), "second": side("m", "kb")}])
    assert re.search(r"comparisons\[0\].first: the study does not run model 'n' on test set 'kb'; add the pair",
                     error(raw))
    dataset = json.loads(open(TINY, encoding="utf-8").read())
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                qa["id"] = "other-" + qa["id"]
    other = tmp_path / "other.json"
    other.write_text(json.dumps(dataset), encoding="utf-8")
    raw = two_models(comparisons=[{"first": side("m", "kb"), "second": side("n", "other")}])
    raw["test_sets"]["other"] = {"data": str(other), "interface": "asr", "kind": "natural"}
    assert re.search(r"comparisons\[0\]: test sets 'kb' and 'other' share no question id", error(raw))
    # an audio set's ids are not known before the run: the comparison loads (the table says so later)
    raw["test_sets"]["other"]["input"] = "audio"
    raw["models"]["n"]["input"] = "audio"
    assert len(study_from_dict(raw, "study.jsonnet").comparisons) == 1
