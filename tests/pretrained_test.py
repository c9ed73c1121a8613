"""Model cards → archives: the cards of modelcards/, and a tiny archive found by card id in a models folder."""
import json
import shutil
from pathlib import Path

import pytest
from allennlp.common.model_card import ModelCard

from srcframework.common.errors import InputError
from srcframework.pretrained import (
    CARDS_FOLDER, ModelArchiveNotFound, RecipeUsage, archive_path, archive_status, cards_folder, declared_by,
    install, installed_path, load_archive, load_predictor, model_card, model_cards, read_card,
)
from srcframework.store.paths import installed_dir
from tests.conftest import FIXTURES, ROOT
from tests.recipes.recipe_variables import recipe_variables

REQUIRED = {"bidaf-clean", "bidaf-noise-augmented", "minilm-qa-clean", "minilm-qa-noise-augmented", "speecht5-ctc-small",
            "e2e-speecht5-ctc", "bidaf-quickstart"}
CONTEXT = json.loads((FIXTURES / "squad_tiny.json").read_text())["data"][0]["paragraphs"][0]["context"]


def tiny_card(folder: Path, model_id: str, output: str, **usage) -> Path:
    """A card like the shipped ones, for an archive that a test makes."""
    card = json.loads((ROOT / "srcframework" / "modelcards" / "bidaf-quickstart.json").read_text())
    card["id"] = model_id
    card.pop("quantitative_analyses", None)  # a test's model has no figures until it fills them
    for released in ("archive_file", "sha256", "size", "float16", "download"):  # nor a released archive
        card["model_usage"].pop(released, None)
    card["model_usage"].update(output=output, command=f"make {model_id}", time_here="a second", **usage)
    path = folder / f"{model_id}.json"
    path.write_text(json.dumps(card, indent=2))
    return path


@pytest.fixture
def places(tmp_path, monkeypatch):
    """An empty models folder and a cards folder, through the environment variables."""
    models, cards = tmp_path / "models", tmp_path / "cards"
    cards.mkdir()
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(models))
    monkeypatch.setenv("SRCFRAMEWORK_MODELCARDS", str(cards))
    return models, cards


def test_the_shipped_cards():
    cards = model_cards()
    assert REQUIRED <= set(cards)
    for model_id, card in cards.items():
        assert isinstance(card, ModelCard) and card.id == model_id
        usage = card.model_usage
        assert isinstance(usage, RecipeUsage)
        assert (ROOT / usage.training_config).is_file(), f"{model_id}: {usage.training_config}"
        assert usage.command and usage.output and usage.time_here and usage.declared_checkpoint and usage.recipe
        assert card.model_details.short_description and card.model_details.description
        assert card.intended_use.primary_uses and card.training_data.dataset.name
        assert card.model_caveats_and_recommendations.caveats_and_recommendations
        # figures come only from a results file, through `allennlp models metrics`
        analyses = card.quantitative_analyses
        assert analyses is None or not analyses.unitary_results or usage.results
        # nothing is hosted: an archive is released in the repository, with its sha256 and size, or not at all
        assert usage.archive_file is None or (
            usage.archive_file == f"models/{model_id}.tar.gz" and len(usage.sha256) == 64 and usage.size > 0)
    assert cards["bidaf-noise-augmented"].model_usage.output == "runs/robust_training/bidaf_augmented_s1/model.tar.gz"
    assert cards["bidaf-noise-augmented"].registered_predictor_name == "span_qa"
    assert cards["speecht5-ctc-small"].registered_predictor_name is None


def test_folders_default_and_follow_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("SRCFRAMEWORK_MODELS", raising=False)
    monkeypatch.delenv("SRCFRAMEWORK_MODELCARDS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert installed_dir() == str(tmp_path / "cache" / "srcframework" / "models")
    assert cards_folder() == CARDS_FOLDER == str(ROOT / "srcframework" / "modelcards")
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "mine"))
    assert installed_path("bidaf-noise-augmented") == str(tmp_path / "mine" / "bidaf-noise-augmented.tar.gz")


def test_card_to_archive_to_predictor(places, tiny_archive, tmp_path):
    models, cards = places
    tiny_card(cards, "tiny-bidaf", str(tiny_archive))
    # built by its recipe but not installed: the error says how to install it, in one line
    with pytest.raises(ModelArchiveNotFound) as missing:
        load_predictor("tiny-bidaf")
    message = str(missing.value)
    assert "\n" not in message
    assert message == (f"model 'tiny-bidaf' has no archive in the models folder ({models}/tiny-bidaf.tar.gz; "
                       f"$SRCFRAMEWORK_MODELS) and no hosted copy: {tiny_archive} is built: "
                       "`allennlp models install tiny-bidaf` copies it there")
    assert archive_status(model_card("tiny-bidaf")) == ("built", str(tiny_archive))
    # the recipe installs what it trained; then the card id is enough
    assert install("tiny-bidaf") == str(models / "tiny-bidaf.tar.gz")
    assert (models / "tiny-bidaf.tar.gz").read_bytes() == Path(tiny_archive).read_bytes()
    assert archive_path("tiny-bidaf") == str(models / "tiny-bidaf.tar.gz")
    assert archive_status(model_card("tiny-bidaf")) == ("installed", str(models / "tiny-bidaf.tar.gz"))
    predictor = load_predictor("tiny-bidaf")
    answer = predictor.predict_json({"context": CONTEXT, "question": "When was the harbour of Velmont dredged?"})
    assert answer["best_span_str"] and answer["best_span_str"] in CONTEXT
    assert load_archive("tiny-bidaf").model.__class__.__name__ == "SpanQA"


def test_missing_archive_names_the_command_that_makes_it(places):
    _, cards = places
    tiny_card(cards, "unmade", "runs/nowhere/model.tar.gz")
    with pytest.raises(ModelArchiveNotFound, match=r"no hosted copy: it is made by `make unmade` \(a second\), "
                                                   r"which writes runs/nowhere/model.tar.gz$"):
        archive_path("unmade")
    assert archive_status(model_card("unmade")) == ("to train", "`make unmade` (a second)")
    with pytest.raises(InputError, match="no archive at runs/nowhere/model.tar.gz; it is made by `make unmade`"):
        install("unmade")


def test_a_hosted_copy_is_fetched_through_cached_path(places, tiny_archive, tmp_path):
    _, cards = places
    hosted = tmp_path / "hosted.tar.gz"
    shutil.copy(tiny_archive, hosted)
    tiny_card(cards, "hosted", "runs/nowhere/model.tar.gz", archive_file=str(hosted))
    assert archive_status(model_card("hosted")) == ("hosted", str(hosted))
    assert archive_path("hosted") == str(hosted)  # cached_path gives a local file as it is
    hosted.unlink()
    with pytest.raises(ModelArchiveNotFound, match=f"'hosted': its hosted copy {hosted} cannot be fetched: "):
        archive_path("hosted")


def test_an_archive_released_in_the_repository_is_found_from_any_folder(places, tiny_archive, tmp_path, monkeypatch):
    cards = tmp_path / "repo" / "modelcards"  # its parent stands for the repository root
    cards.mkdir(parents=True)
    monkeypatch.setenv("SRCFRAMEWORK_MODELCARDS", str(cards))
    released = tmp_path / "repo" / "models" / "released.tar.gz"
    tiny_card(cards, "released", "runs/nowhere/model.tar.gz", archive_file="models/released.tar.gz")
    assert archive_status(model_card("released"))[0] == "missing"
    with pytest.raises(ModelArchiveNotFound, match="'released'"):
        archive_path("released")
    released.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(tiny_archive, released)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert archive_status(model_card("released")) == ("released", str(released))
    assert archive_path("released") == str(released)
    answer = load_predictor("released").predict_json({"context": CONTEXT, "question": "When was the harbour of Velmont dredged?"})
    assert answer["best_span_str"]


def test_install_by_the_archive_a_card_declares(places, tiny_archive, tmp_path):
    models, cards = places
    tiny_card(cards, "tiny-bidaf", str(tiny_archive))
    assert declared_by(str(tiny_archive)) == "tiny-bidaf"
    assert install(archive=str(tiny_archive)) == str(models / "tiny-bidaf.tar.gz")
    with pytest.raises(InputError, match="declares .*other.tar.gz as its output"):
        install(archive=str(tmp_path / "other.tar.gz"))


def test_bad_cards_are_one_line_errors(places):
    _, cards = places
    with pytest.raises(InputError, match=r"no model card 'nope' in .*cards; cards: none"):
        archive_path("nope")
    path = tiny_card(cards, "typo", "x")
    card = json.loads(path.read_text())
    card["model_usage"]["outptu"] = "y"
    path.write_text(json.dumps(card))
    with pytest.raises(InputError, match="typo.json: model_usage has no field 'outptu'"):
        read_card(str(path))
    card["model_usage"].pop("outptu")
    card["model_detials"] = {}
    path.write_text(json.dumps(card))
    with pytest.raises(InputError, match="typo.json: .*model_detials"):
        read_card(str(path))
    card.pop("model_detials")
    card["id"] = "other"
    path.write_text(json.dumps(card))
    with pytest.raises(InputError, match="its id is 'other', not its file name 'typo'"):
        read_card(str(path))


def test_a_card_without_a_predictor(places):
    _, cards = places
    shutil.copy(ROOT / "srcframework" / "modelcards" / "speecht5-ctc-small.json", cards)
    with pytest.raises(InputError, match="'speecht5-ctc-small' names no predictor"):
        load_predictor("speecht5-ctc-small")


def test_a_study_names_a_model_by_its_card_id(places, tiny_archive, tmp_path):
    from srcframework.studies.study import StudyError, study_from_dict

    models, cards = places
    tiny_card(cards, "tiny-bidaf", str(tiny_archive))
    raw = {"models": {"m": {"model": "tiny-bidaf"}}, "test_sets": {"clean": {"data": str(tiny_archive), "interface": "clean", "kind": "natural"}}}
    with pytest.raises(StudyError, match=r"models.m.model: model 'tiny-bidaf' has no archive in the models folder"):
        study_from_dict(raw, "study")
    install("tiny-bidaf")
    assert study_from_dict(raw, "study").models["m"].archive == str(models / "tiny-bidaf.tar.gz")
    with pytest.raises(StudyError, match="models.m.model: .*nobody"):
        study_from_dict({**raw, "models": {"m": {"model": "nobody"}}}, "study")
    with pytest.raises(StudyError, match="not both"):
        study_from_dict({**raw, "models": {"m": {"model": "tiny-bidaf", "archive": "x"}}}, "study")


@pytest.mark.parametrize("model_id", ["bidaf-noise-augmented", "minilm-qa-noise-augmented"])
def test_a_noise_augmented_models_reader_builds_without_the_noisy_training_copies(model_id, tmp_path, monkeypatch):
    """The archive's config names the noisy copies under runs/noisy; loading it (to predict or
    evaluate) must not need them, and training without them must say which file is missing."""
    from allennlp.common import Params
    from allennlp.data import DatasetReader

    from srcframework.data.errors import DatasetError

    config = str(ROOT / model_card(model_id).model_usage.training_config)
    monkeypatch.chdir(tmp_path)  # a machine that never made runs/noisy
    # rendered as its recipe renders it (NOISY_TRAIN is the recipe's `env`: runs/noisy)
    reader = DatasetReader.from_params(Params.from_file(config, ext_vars=recipe_variables(config)).pop("dataset_reader"))
    with pytest.raises(DatasetError, match="runs/noisy"):
        reader.question_noise.questions
