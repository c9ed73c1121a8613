"""srcframework beside allennlp-models: AllenNLP imports `allennlp_models` into every command
wherever it is importable, so no name srcframework registers may be one allennlp-models uses."""
import json
import subprocess
import sys

import pytest

from tests.bench_site import bench_env
from tests.conftest import FIXTURES, ROOT

BOTH = """
import json
from allennlp.common.util import import_module_and_submodules
import_module_and_submodules("allennlp_models")
import srcframework
from allennlp.data import DatasetReader
from allennlp.models import Model
names = {
    "transformer_qa": Model.resolve_class_name("transformer_qa")[0].__module__,
    "transformer_squad": DatasetReader.resolve_class_name("transformer_squad")[0].__module__,
    "src_transformer_qa": Model.resolve_class_name("src_transformer_qa")[0].__module__,
    "src_transformer_squad": DatasetReader.resolve_class_name("src_transformer_squad")[0].__module__,
}
print(json.dumps(names))
"""


@pytest.mark.slow
def test_srcframework_and_allennlp_models_import_together():
    done = subprocess.run([sys.executable, "-c", BOTH], cwd=ROOT, env=bench_env(), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    names = json.loads(done.stdout.strip().splitlines()[-1])
    assert names["transformer_qa"].startswith("allennlp_models.")
    assert names["transformer_squad"].startswith("allennlp_models.")
    assert names["src_transformer_qa"] == "srcframework.models.transformer_qa"
    assert names["src_transformer_squad"] == "srcframework.data.dataset_readers.transformer_squad"


@pytest.mark.slow
def test_an_allennlp_command_runs_with_allennlp_models_importable(tmp_path):
    """From the repository root `.allennlp_plugins` loads srcframework after AllenNLP's default
    plugin allennlp_models; a srcframework subcommand must then work."""
    predictions = tmp_path / "p.json"
    predictions.write_text(json.dumps({"q1": "nothing right"}))
    done = subprocess.run(
        [sys.executable, "-m", "allennlp", "squad-eval", str(FIXTURES / "squad_tiny.json"), str(predictions)],
        # AllenNLP's announcement of each plugin is logged at DEBUG level only
        cwd=ROOT, env=dict(bench_env(), ALLENNLP_LOG_LEVEL="DEBUG"), capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Plugin allennlp_models available" in done.stderr
    assert "Plugin srcframework.allennlp_plugin available" in done.stderr
    assert set(json.loads(done.stdout.strip().splitlines()[-1])) >= {"exact_match", "f1"}
