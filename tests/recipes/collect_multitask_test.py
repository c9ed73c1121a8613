"""recipes/e2e_voices/collect_multitask.py: stage 2's two arms read from their training folders and
the protocol's 1-point rule applied at the declared epoch."""
import importlib.util
import json

import pytest

from tests.conftest import ROOT

SPEC = importlib.util.spec_from_file_location("collect_multitask", ROOT / "recipes" / "e2e_voices" / "collect_multitask.py")
SCRIPT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(SCRIPT)


def training_folder(path, ctc_weight, f1s, seed=2):
    path.mkdir()
    (path / "config.json").write_text(json.dumps({"random_seed": seed, "validation_data_path": "dev.csv",
                                                  "model": {"question_encoder": {"ctc_weight": ctc_weight}}}))
    for epoch, f1 in enumerate(f1s):
        (path / f"metrics_epoch_{epoch}.json").write_text(json.dumps(
            {"validation_f1": f1, "validation_em": f1 / 2, "training_duration": "0:10:00"}))
    (path / "metrics.json").write_text(json.dumps({"declared_epoch": len(f1s)}))
    (path / "model.tar.gz").write_bytes(b"archive")
    return str(path)


@pytest.mark.parametrize("f1s, taken", [((0.15, 0.2013), False), ((0.15, 0.2127), True)])
def test_the_rule_is_applied_at_the_declared_epoch(tmp_path, capsys, f1s, taken):
    multitask = training_folder(tmp_path / "multitask", 0.3, f1s)
    twin = training_folder(tmp_path / "off", 0.0, (0.30, 0.2026))  # a better first epoch decides nothing
    out = tmp_path / "record.json"
    assert SCRIPT.main([multitask, twin, "-o", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["taken"] is taken
    assert record["difference_f1"] == pytest.approx(100 * f1s[-1] - 20.26)
    arms = record["arms"]
    assert [e["f1"] for e in arms["multitask_off"]["epochs"]] == pytest.approx([30.0, 20.26])
    assert arms["multitask"]["em"] == pytest.approx(50 * f1s[-1]) and arms["multitask"]["ctc_weight"] == 0.3
    assert json.loads(capsys.readouterr().out)["taken"] is taken


def test_swapped_or_unfinished_arms_are_one_line(tmp_path):
    multitask = training_folder(tmp_path / "multitask", 0.3, (0.1, 0.2))
    twin = training_folder(tmp_path / "off", 0.0, (0.1, 0.2))
    with pytest.raises(SystemExit, match="must train with a CTC weight above 0"):
        SCRIPT.main([twin, multitask, "-o", str(tmp_path / "r.json")])
    other_seed = training_folder(tmp_path / "seed3", 0.0, (0.1, 0.2), seed=3)
    with pytest.raises(SystemExit, match="not twins"):
        SCRIPT.main([multitask, other_seed, "-o", str(tmp_path / "r.json")])
    (tmp_path / "off" / "metrics.json").unlink()
    with pytest.raises(SystemExit, match=r"off/metrics.json: cannot read it"):
        SCRIPT.main([multitask, twin, "-o", str(tmp_path / "r.json")])
    assert not (tmp_path / "r.json").exists()
