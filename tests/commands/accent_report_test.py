import argparse
import json
import sys
from collections import Counter

import matplotlib.image
import pytest
from allennlp.commands import main
from allennlp.common.checks import ConfigurationError

from srcframework.commands.accent_report import parse_group_keys
from tests.conftest import FIXTURES

READERS = [("SPK001", "US", "F"), ("SPK002", "IN", "M"), ("SPK003", "GB", "F")]


def allennlp(monkeypatch, *arguments):
    monkeypatch.setattr(sys, "argv", ["allennlp", *map(str, arguments)])
    main(prog="allennlp")


def spoken_squad(path):
    """squad_tiny.json with a reader on each question (each id once: a SQuAD file may not repeat
    one), q9 with no reader, and q2 transcribed with one word wrong. Returns the question counts
    per country and per gender."""
    dataset = json.loads((FIXTURES / "squad_tiny.json").read_text())
    countries, genders = Counter(), Counter()
    index = 0
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            read = []
            for qa in paragraph["qas"]:
                if qa["id"] == "q9":
                    read.append(qa)
                    continue
                if qa["id"] == "q2":
                    qa = dict(qa, question="who dredge the harbour", original_question=qa["question"])
                for speaker, country, gender in READERS[index % 3 : index % 3 + 1]:
                    read.append(dict(qa, speaker=speaker, country=country, gender=gender))
                    countries[country] += 1
                    genders[gender] += 1
                index += 1
            paragraph["qas"] = read
    path.write_text(json.dumps(dataset))
    return countries, genders


def test_predict_then_accent_report(tiny_archive, tmp_path, monkeypatch, capsys):
    data = tmp_path / "spoken.json"
    expected, genders = spoken_squad(data)
    predictions = tmp_path / "predictions.jsonl"
    allennlp(monkeypatch, "predict", tiny_archive, data, "--use-dataset-reader", "--predictor", "span_qa",
             "--silent", "--output-file", predictions)
    lines = [json.loads(line) for line in predictions.read_text().splitlines()]
    assert len(lines) == sum(expected.values()) + 1
    capsys.readouterr()

    out_dir = tmp_path / "report"
    allennlp(monkeypatch, "accent-report", predictions, "-o", out_dir, "--title", "Tiny spoken SQuAD")
    printed = capsys.readouterr().out
    report = json.loads((out_dir / "report.json").read_text())
    assert {name: s["count"] for name, s in report["by_country"].items()} == dict(expected)
    assert {name: s["count"] for name, s in report["by_gender"].items()} == dict(genders)
    assert sorted(report["by_speaker"]) == ["SPK001", "SPK002", "SPK003"]
    assert report["overall"]["count"] == len(lines)
    f1s = {name: s["f1"] for name, s in report["by_country"].items()}
    assert report["f1_range"]["value"] == pytest.approx(max(f1s.values()) - min(f1s.values()))
    # WER covers only the questions with an original (q2, "dredge" for "dredged": 1 error in 4 words)
    assert report["overall"]["wer"] == pytest.approx(25.0)
    assert report["by_speaker"]["SPK002"]["wer"] == pytest.approx(25.0)
    assert "wer" not in report["by_country"]["US"]
    assert printed == (out_dir / "report.md").read_text()
    assert printed.startswith("# Tiny spoken SQuAD")
    for country, count in expected.items():
        assert f"| {country} | " in printed and f" | {count} | " in printed
    assert matplotlib.image.imread(out_dir / "f1_by_country.png").ndim == 3
    assert report["intervals"] == {"bootstrap": 1000, "seed": 0, "confidence": 0.95}
    for scores in report["by_country"].values():
        assert scores["f1_low"] <= scores["f1"] <= scores["f1_high"]
    assert 0 < report["f1_range"]["p"] <= 1 and report["f1_range"]["rounds"] == 1000 and "low" not in report["f1_range"]

    allennlp(monkeypatch, "accent-report", predictions, "-o", tmp_path / "plain", "--bootstrap", "0")
    plain = json.loads((tmp_path / "plain" / "report.json").read_text())
    assert "intervals" not in plain and "p" not in plain["f1_range"]
    capsys.readouterr()

    # several files are pooled; --group-keys picks the tables
    allennlp(monkeypatch, "accent-report", predictions, predictions, "-o", tmp_path / "twice",
             "--group-keys", "country, gender")
    twice = json.loads((tmp_path / "twice" / "report.json").read_text())
    assert set(twice) == {"overall", "by_country", "by_gender", "f1_range", "intervals"}
    assert twice["overall"]["count"] == 2 * len(lines)
    assert twice["overall"]["f1"] == pytest.approx(report["overall"]["f1"])


def test_malformed_predictions_file_names_it(tmp_path, monkeypatch):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1", "best_span_str": "a", "answers": ["a"]}\n{"id": "q2"}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl: line 2: missing key"):
        allennlp(monkeypatch, "accent-report", bad, "-o", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_parse_group_keys():
    assert parse_group_keys("country, speaker") == ["country", "speaker"]
    with pytest.raises(argparse.ArgumentTypeError):
        parse_group_keys(" , ")


def test_a_negative_bootstrap_is_a_configuration_error_before_anything_is_read(tmp_path, monkeypatch):
    with pytest.raises(ConfigurationError, match="--bootstrap must be 0"):
        allennlp(monkeypatch, "accent-report", tmp_path / "absent.jsonl", "-o", tmp_path / "out", "--bootstrap", "-1")
    assert not (tmp_path / "out").exists()
