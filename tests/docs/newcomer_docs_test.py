"""What the docs tell a newcomer matches what the tour does: no override the tour says is not
needed, and a tour time that says on what machine and under what load."""
import re

from tests.conftest import ROOT


def test_the_models_page_evaluates_without_the_override_the_tour_drops():
    text = (ROOT / "docs" / "models.md").read_text()
    command = re.search(r"allennlp evaluate \$\(allennlp models path [^)]*\)[^`]*", text).group(0)
    assert "--overrides" not in command and "-o " not in command
    assert "validation_dataset_reader.articles" not in text


def test_the_readme_gives_the_tours_time_on_an_idle_machine_and_names_it():
    text = (ROOT / "README.md").read_text()
    intro = text[text.index("## Quick tour"):text.index("**1. ")]
    assert re.search(r"about \d+ minutes on an idle machine of 2 x86_64 cores", " ".join(intro.split()))
