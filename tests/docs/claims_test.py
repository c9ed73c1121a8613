"""Every figure stated in prose about a study is generated from its results.json or matched
against it (srcframework/studies/claims.py, docs/claims.json), and a stale one fails the suite."""
import json
import shutil

import pytest

from srcframework.common.errors import InputError
from srcframework.studies.claims import FIGURE, check, formatted, lookup, main, render_summary, write_summaries
from tests.conftest import ROOT

CHECKED = ["README.md", "docs/claims.json", "docs/results/*.md", "recipes/*/README.md", "recipes/*/summary.md",
           "recipes/*/results.json", "srcframework/modelcards/*.json"]


def copy_of_the_repository(tmp_path):
    """The files the check reads, copied under `tmp_path` (the repository is never written)."""
    for pattern in CHECKED:
        for path in ROOT.glob(pattern):
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
    for claim in json.loads((ROOT / "docs" / "claims.json").read_text(encoding="utf-8"))["claims"]:
        target = tmp_path / claim["results"]  # a results file a claim reads beside a study's results.json
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / claim["results"], target)
    return tmp_path


def test_the_repository_states_every_figure_as_its_results_give_it():
    assert check() == []


def test_a_planted_stale_figure_in_a_claimed_sentence_fails_with_file_line_and_the_figure(tmp_path):
    root = copy_of_the_repository(tmp_path)
    readme = root / "recipes" / "e2e_cpu" / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert "paired) is met, by 10.0 F1" in text
    readme.write_text(text.replace("paired) is met, by 10.0 F1", "paired) is met, by 12.5 F1"), encoding="utf-8")
    line = text[:text.index("paired) is met, by 10.0")].count("\n") + 1
    assert check(root) == [f"recipes/e2e_cpu/README.md:{line}: says 12.5, recipes/e2e_cpu/results.json#cross_comparisons/"
                           "label=end to end against cascade B, held-out voices/f1/difference gives 10.0"]


def test_a_figure_typed_into_a_generated_summary_fails(tmp_path):
    root = copy_of_the_repository(tmp_path)
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8")
    stale = text.replace("(Holm p 0.100; 0.075 in", "(Holm p 0.100; 0.045 in", 1)
    assert stale != text
    readme.write_text(stale, encoding="utf-8")
    [problem] = check(root)
    assert problem.startswith("README.md:") and "summary block 'robust_training' is not what" in problem
    assert "python -m srcframework.studies.claims --write" in problem
    write_summaries(readme, root)
    assert readme.read_text(encoding="utf-8") == text and check(root) == []


def test_new_results_make_the_summary_stale_until_it_is_written_again(tmp_path):
    root = copy_of_the_repository(tmp_path)
    path = root / "recipes" / "robust_training" / "results.json"
    results = json.loads(path.read_text(encoding="utf-8"))
    row = lookup(results, "robustness/model=bidaf_augmented/set_groups/group=same_family/seed_test", "test")
    row["p_holm"] = 0.01  # a rerun that shows it over seeds
    path.write_text(json.dumps(results), encoding="utf-8")
    problems = check(root)
    assert {problem.split(": ")[1].split(" is not")[0] for problem in problems} == {"summary block 'robust_training'"}
    assert len(problems) == 2  # README.md and docs/results/index.md
    text = render_summary("robust_training", root / "README.md", root)
    assert "families,\nshown over seeds (Holm p 0.010;" in text


def test_a_figure_neither_generated_claimed_nor_declared_fails(tmp_path):
    root = copy_of_the_repository(tmp_path)
    page = root / "docs" / "results" / "e2e_cpu.md"
    text = page.read_text(encoding="utf-8")
    planted = text.replace("**What else the tables show:**", "**What else the tables show:** about 2.1 times as well.", 1)
    page.write_text(planted, encoding="utf-8")
    line = planted[:planted.index("2.1 times")].count("\n") + 1
    assert check(root) == [f"docs/results/e2e_cpu.md:{line}: 2.1 stands outside a generated block and is neither "
                           "claimed nor declared in docs/claims.json"]


def test_a_stale_figure_in_a_model_card_names_the_card_and_its_field(tmp_path):
    root = copy_of_the_repository(tmp_path)
    card = root / "srcframework" / "modelcards" / "speecht5-ctc-small.json"
    card.write_text(card.read_text(encoding="utf-8").replace("and 93.5% on the four", "and 91.5% on the four"), encoding="utf-8")
    assert check(root) == ["srcframework/modelcards/speecht5-ctc-small.json#model_caveats_and_recommendations."
                           "caveats_and_recommendations: says 91.5%, recipes/e2e_cpu/results.json#test_sets/"
                           "name=cascade_b_held_out/question_noise/wer gives 93.5%"]


def test_a_claim_whose_text_is_gone_fails(tmp_path):
    root = copy_of_the_repository(tmp_path)
    claims = json.loads((root / "docs" / "claims.json").read_text(encoding="utf-8"))
    claims["claims"].append({"file": "README.md", "after": "no such sentence ", "results": "recipes/e2e_cpu/results.json",
                             "keys": ["pairs/0/f1"]})
    (root / "docs" / "claims.json").write_text(json.dumps(claims), encoding="utf-8")
    assert check(root) == ["README.md: docs/claims.json claims figures after a text that is not there: 'no such sentence '"]


def test_keys_and_formats():
    results = {"pairs": [{"model": "a", "set": "x", "f1": 1.25}, {"model": "a", "set": "y", "f1": -0.04}], "seeds": [1, 2]}
    assert lookup(results, "pairs/model=a&set=y/f1", "t") == -0.04
    assert lookup(results, "pairs/1/f1", "t") == -0.04
    assert formatted(-0.04, ".1f", "t") == "0.0" and formatted(93.45, "%", "t") == "93.5%"
    assert formatted([1, 2], "count", "t") == "2"
    with pytest.raises(InputError, match="^t: key 'pairs/model=b/f1': no element with model=b$"):
        lookup(results, "pairs/model=b/f1", "t")
    with pytest.raises(InputError, match="no step 'em'"):
        lookup(results, "pairs/0/em", "t")
    with pytest.raises(InputError, match="not a number"):
        formatted("x", ".1f", "t")


def test_figures_are_decimals_and_percentages_not_dates_versions_or_integers():
    text = "On 2026-12-06, torch 2.14.1 and 9,380 questions: F1 17.4, −3.8 and 44.8% (at 30 %). It was 0.222."
    assert FIGURE.findall(text) == ["17.4", "−3.8", "44.8%", "30 %", "0.222"]


def test_the_command_prints_the_problems_and_fails(tmp_path, monkeypatch, capsys):
    import srcframework.studies.claims as claims

    root = copy_of_the_repository(tmp_path)
    card = root / "srcframework" / "modelcards" / "speecht5-ctc-small.json"
    card.write_text(card.read_text(encoding="utf-8").replace("and 93.5% on the four", "and 91.5% on the four"), encoding="utf-8")
    monkeypatch.setattr(claims, "ROOT", root)
    assert main([]) == 1
    assert "says 91.5%" in capsys.readouterr().out


def test_transcribed_curves_shown_without_saying_so_fail(tmp_path):
    root = copy_of_the_repository(tmp_path)
    page = root / "docs" / "results" / "robust_training.md"
    text = page.read_text(encoding="utf-8")
    marked = "  *Transcribed, not generated:*"
    assert marked in text
    page.write_text(text.replace(marked, "  *Copied:*"), encoding="utf-8")
    [problem] = check(root)
    assert problem.startswith("docs/results/robust_training.md:") and "results block 'curves' shows validation curves" in problem
    assert "holds as transcribed by hand (bidaf_augmented, bidaf_clean, minilm_augmented, minilm_clean)" in problem
