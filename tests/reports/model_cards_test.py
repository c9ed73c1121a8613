import json

import pytest

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.pretrained import model_card, model_cards
from srcframework.reports.model_cards import fill_metrics, headline, models_table, results_text, table_into
from tests.conftest import ROOT


def study_results(archives):
    """A study's results.json, as `allennlp compare` writes it, with one model of two seeds."""
    return {
        "study": "robust_training.jsonnet",
        "models": [{"name": "bidaf", "archive": "runs/b/model.tar.gz"},
                   {"name": "bidaf_augmented", "archive": archives[0], "archives": archives}],
        "pairs": [
            {"model": "bidaf", "set": "clean", "questions": 1190, "em": 40.0, "f1": 50.0, "f1_drop": None},
            {"model": "bidaf_augmented", "set": "clean", "interface": "clean", "questions": 1190, "em": 41.0, "f1": 51.0,
             "f1_drop": None,
             "seeds": [{"seed": 0, "archive": archives[0], "em": 42.04, "f1": 52.06, "f1_drop": None},
                       {"seed": 1, "archive": archives[1], "em": 40.0, "f1": 50.0, "f1_drop": None}]},
            {"model": "bidaf_augmented", "set": "noiseqa_asr", "interface": "asr", "questions": 1190, "em": 31.0, "f1": 41.0,
             "f1_drop": 10.0,
             "seeds": [{"seed": 0, "archive": archives[0], "em": 33.0, "f1": 44.0, "f1_drop": 8.06},
                       {"seed": 1, "archive": archives[1], "em": 29.0, "f1": 38.0, "f1_drop": 12.0}]},
        ],
    }


@pytest.fixture
def cards(tmp_path, monkeypatch):
    folder = tmp_path / "cards"
    folder.mkdir()
    for model_id in ("bidaf-noise-augmented", "bidaf-quickstart"):
        card = json.loads((ROOT / "srcframework" / "modelcards" / f"{model_id}.json").read_text())
        card.pop("quantitative_analyses", None)  # a card before its recipe's figures are in
        (folder / f"{model_id}.json").write_text(json.dumps(card, indent=2))
    monkeypatch.setenv("SRCFRAMEWORK_MODELCARDS", str(folder))
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "models"))
    return folder


def test_one_seed_of_a_study_fills_the_card(cards, tmp_path):
    results = tmp_path / "results.json"
    output = "runs/robust_training/bidaf_augmented_s1/model.tar.gz"  # the card's output
    results.write_text(json.dumps(study_results([output, "runs/robust_training/bidaf_augmented_s2/model.tar.gz"])))
    text = fill_metrics("bidaf-noise-augmented", str(results))
    assert text == (f"robust_training.jsonnet ({results}; model 'bidaf_augmented', archive 1 of 2): "
                    "clean F1 52.1 (EM 42.0, 1,190 questions); "
                    "noiseqa_asr F1 44.0 (EM 33.0, drop 8.1, 1,190 questions).")
    card = json.loads((cards / "bidaf-noise-augmented.json").read_text())
    assert card["quantitative_analyses"] == {"unitary_results": text}
    assert card["model_usage"]["results"] == str(results)
    assert model_card("bidaf-noise-augmented").quantitative_analyses.unitary_results == text
    # the rest of the card is as it was
    shipped = json.loads((ROOT / "srcframework" / "modelcards" / "bidaf-noise-augmented.json").read_text())
    shipped.pop("quantitative_analyses", None)
    card.pop("quantitative_analyses")
    card["model_usage"]["results"] = shipped["model_usage"]["results"]
    assert card == shipped


def test_a_model_named_by_card_id_and_evaluate_metrics(cards, tmp_path):
    results = tmp_path / "results.json"
    data = study_results(["a.tar.gz", "b.tar.gz"])
    data["models"][0]["name"] = "bidaf-noise-augmented"
    data["pairs"][0]["model"] = "bidaf-noise-augmented"
    results.write_text(json.dumps(data))
    assert results_text(model_card("bidaf-noise-augmented"), str(results)).endswith(
        "model 'bidaf-noise-augmented'): clean F1 50.0 (EM 40.0, 1,190 questions).")
    metrics = tmp_path / "metrics_dev.json"
    metrics.write_text(json.dumps({"em": 0.522, "f1": 0.5693, "loss": 3.2}))
    assert fill_metrics("bidaf-quickstart", str(metrics)) == f"allennlp evaluate ({metrics}): EM 52.2, F1 56.9."


def test_results_that_do_not_fit(cards, tmp_path):
    with pytest.raises(InputFileNotFound, match="'bidaf-quickstart': no results file .*absent.json; run its recipe"):
        fill_metrics("bidaf-quickstart", str(tmp_path / "absent.json"))
    other = tmp_path / "other.json"
    other.write_text(json.dumps(study_results(["x.tar.gz", "y.tar.gz"])))
    with pytest.raises(InputError, match="no model with bidaf-noise-augmented's archive .*; its models: bidaf, bidaf_augmented"):
        fill_metrics("bidaf-noise-augmented", str(other))
    other.write_text(json.dumps({"accuracy": 1}))
    with pytest.raises(InputError, match="neither a study's results.json"):
        fill_metrics("bidaf-noise-augmented", str(other))
    assert "quantitative_analyses" not in json.loads((cards / "bidaf-noise-augmented.json").read_text())


def test_a_card_finds_its_figures_by_the_card_id_the_study_recorded(cards, tmp_path):
    """A study that named the model by card id records the id: the card finds its archive's
    figures whatever the models folder, and its text names the results file as the card does."""
    results = json.loads((ROOT / "recipes/quickstart/results.json").read_text())
    results["models"][0]["archive"] = "/elsewhere/models/bidaf-quickstart.tar.gz"
    (tmp_path / "recipes" / "quickstart").mkdir(parents=True)
    (tmp_path / "recipes" / "quickstart" / "results.json").write_text(json.dumps(results))  # beside the cards folder
    text = fill_metrics("bidaf-quickstart")
    assert text.startswith("study.jsonnet (recipes/quickstart/results.json; model 'quickstart'): clean F1 ")
    assert json.loads((cards / "bidaf-quickstart.json").read_text())["model_usage"]["results"] == \
        "recipes/quickstart/results.json"


def test_models_table():
    table = models_table(model_cards())
    lines = table.splitlines()
    assert lines[0] == "| model | what it is | clean F1 | mean drop | made by | time here |"
    assert len(lines) == 2 + len(model_cards())
    row = next(line for line in lines if line.startswith("| `bidaf-noise-augmented` |"))
    assert row.endswith("| `allennlp recipe run robust_training bidaf_augmented_s1 --train-released` | "
                        "1 h 17 min measured for seed 1 on 2026-12-03 |")  # the time's details stay on the card
    assert all(line.count(" | ") == 5 for line in lines[2:])
    # the quickstart's committed results: clean F1, and the mean drop over its keyboard and misspelling sets
    results = json.loads((ROOT / "recipes/quickstart/results.json").read_text())
    pairs = {pair["set"]: pair for pair in results["pairs"]}
    drop = (pairs["keyboard"]["f1_drop"] + pairs["misspelling"]["f1_drop"]) / 2
    row = next(line for line in lines if line.startswith("| `bidaf-quickstart` |"))
    assert f"| {pairs['clean']['f1']:.1f} | {drop:.1f} (2 sets) |" in row


def test_headline_figures_of_a_study_leave_out_question_blind_floors(cards, tmp_path):
    results = tmp_path / "results.json"
    data = study_results(["runs/robust_training/bidaf_augmented_s1/model.tar.gz", "b.tar.gz"])
    data["test_sets"] = [{"name": "clean", "interface": "clean"}, {"name": "noiseqa_asr", "interface": "asr"},
                         {"name": "blank", "interface": "blind"}, {"name": "keyboard", "interface": "keyboard"}]
    seeds = lambda f1, drop: [{"em": 0.0, "f1": f1, "f1_drop": drop}, {"em": 0.0, "f1": 0.0, "f1_drop": 0.0}]
    data["pairs"] += [  # interfaces from test_sets where a pair has none
        {"model": "bidaf_augmented", "set": "blank", "em": 0.0, "f1": 5.0, "f1_drop": 45.0, "seeds": seeds(5.0, 47.06)},
        {"model": "bidaf_augmented", "set": "keyboard", "em": 0.0, "f1": 40.0, "f1_drop": 11.0, "seeds": seeds(40.0, 12.06)},
    ]
    results.write_text(json.dumps(data))
    card = json.loads((cards / "bidaf-noise-augmented.json").read_text())
    card["model_usage"]["results"] = str(results)
    (cards / "bidaf-noise-augmented.json").write_text(json.dumps(card))
    # seed 1's figures: clean 52.06; drops 8.06 (asr) and 12.06 (keyboard), not the floor's 47.06
    assert headline(model_card("bidaf-noise-augmented")) == ("52.1", "10.1 (2 sets)")
    # a study that left the model out (an optional model): no figures, and no error
    data["models"] = data["models"][:1]
    results.write_text(json.dumps(data))
    assert headline(model_card("bidaf-noise-augmented")) == ("-", "-")
    card["model_usage"]["results"] = str(tmp_path / "absent.json")
    (cards / "bidaf-noise-augmented.json").write_text(json.dumps(card))
    assert headline(model_card("bidaf-noise-augmented")) == ("not run yet", "not run yet")
    metrics = tmp_path / "metrics.json"
    metrics.write_text(json.dumps({"em": 0.5, "f1": 0.6234}))
    card["model_usage"]["results"] = str(metrics)
    (cards / "bidaf-noise-augmented.json").write_text(json.dumps(card))
    assert headline(model_card("bidaf-noise-augmented")) == ("62.3", "-")
    spoken = study_results(["runs/robust_training/bidaf_augmented_s1/model.tar.gz", "b.tar.gz"])
    spoken["test_sets"] = [{"name": "spoken_held_out", "interface": "speech"}]
    spoken["pairs"] = [{"model": "bidaf_augmented", "set": "spoken_held_out", "interface": "speech", "questions": 1190,
                        "em": 10.0, "f1": 17.0, "f1_drop": None,
                        "seeds": [{"em": 10.0, "f1": 17.0, "f1_drop": None}, {"em": 11.0, "f1": 18.0, "f1_drop": None}]}]
    results.write_text(json.dumps(spoken))
    card["model_usage"]["results"] = str(results)
    (cards / "bidaf-noise-augmented.json").write_text(json.dumps(card))
    # a model of spoken questions only: no typed set, which the cell says rather than a bare "-"
    assert headline(model_card("bidaf-noise-augmented")) == ("no typed set (spoken questions: its card)", "-")
    del card["model_usage"]["results"]  # a card with no results file (a recogniser): no figures to wait for
    (cards / "bidaf-noise-augmented.json").write_text(json.dumps(card))
    assert headline(model_card("bidaf-noise-augmented")) == ("-", "-")


def test_the_table_goes_between_its_markers(cards, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n<!-- models table -->\nold rows\n<!-- /models table -->\n\nafter\n")
    table = table_into(str(page), model_cards())
    assert page.read_text() == f"# Page\n\n<!-- models table -->\n{table}<!-- /models table -->\n\nafter\n"
    assert table_into(str(page), model_cards()) == table and page.read_text().count("| model |") == 1
    page.write_text("# no markers\n")
    with pytest.raises(InputError, match="no <!-- models table --> ... <!-- /models table --> lines"):
        table_into(str(page), model_cards())
    with pytest.raises(InputFileNotFound):
        table_into(str(tmp_path / "absent.md"), model_cards())


def test_the_readme_table_is_the_cards_table():
    """The README's Models table is `allennlp models table --into README.md`'s, never edited by hand."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text[text.index("<!-- models table -->\n") + len("<!-- models table -->\n"):text.index("<!-- /models table -->")]
    assert block == models_table(model_cards()), "run `allennlp models table --into README.md`"
