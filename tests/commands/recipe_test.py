"""`allennlp recipe`: `list` names each recipe and its steps; an unknown recipe, step, override or
thread count, and a step whose need has not finished, end the command with one line."""
from tests.conftest import run_allennlp


def test_unknown_recipes_steps_and_overrides_are_one_line(tmp_path):
    for arguments, line in [
        (("recipe", "run", "quickstrat"), "error: no recipe 'quickstrat'; did you mean quickstart? (recipes: "),
        (("recipe", "run", "quickstart", "studdy"), "error: recipe quickstart: no step 'studdy'; did you mean study?"),
        (("recipe", "run", "quickstart", "-o", "{trainer"), "error: -o: not a JSON object:"),
        (("recipe", "run", "quickstart", "status"), "error: recipe quickstart: status is not a step; run `allennlp recipe status quickstart`"),
        (("recipe", "run", "quickstart", "--threads", "0"), "error: --threads must be at least 1, not 0"),
        (("recipe", "run", "quickstart", "report", "--runs", tmp_path),
         "error: recipe quickstart: report needs study, which has not finished; run `allennlp recipe run quickstart study` first"),
    ]:
        ran = run_allennlp(*arguments)
        assert ran.returncode == 1 and ran.stderr.strip().splitlines()[-1].startswith(line), ran.stderr[-1000:]


def test_list_names_every_recipe_and_its_steps():
    ran = run_allennlp("recipe", "list")
    assert ran.returncode == 0
    assert "quickstart: a small BiDAF on the embedded data" in ran.stdout and "  steps: keyboard misspelling quickstart study\n  when named: release report\n" in ran.stdout
