import json
import shutil
from pathlib import Path

import pytest
from allennlp.common.checks import ConfigurationError

import srcframework.noise.keyboard  # noqa: F401
from srcframework.commands.noise_stats import set_statistics
from srcframework.data.squad_file import load_squad_json
from srcframework.data.squad_src_layout import SQUAD_SRC_SPEAKERS
from srcframework.metrics.squad import evaluate
from srcframework.jobs.challenge_set import make_challenge_set
from srcframework.studies import evaluation
from srcframework.studies.collection import collect_results
from srcframework.studies.runner import run_study
from srcframework.studies.study import StudyError, load_study, study_from_dict
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "squad_tiny.json")
TINY_KEYBOARD = str(FIXTURES / "squad_tiny_keyboard.json")  # `allennlp noise` of TINY, word_probability 0.5
# the fixture study's outputs: its sets have no speakers, so it has no f1_by_country.png
OUTPUTS = [
    "results.json", "results.md", "results.csv", "results.tex", "f1_vs_wer.png", "robustness_drop.png",
    "f1_intervals.png", "f1_by_wer_bucket.png", "report.html",
]
SPEAKERS = ["SPK001", "SPK002", "SPK005", "SPK009", "SPK012", "SPK013"]  # India, Thailand, US, UK


def noised(folder: Path, name: str, noise: dict, seed: int = 0, original: str = TINY) -> str:
    """A noisy set as a recipe step makes it (`allennlp noise ORIGINAL OUT --noise ...`)."""
    path = folder / f"{name}.json"
    make_challenge_set(original, str(path), noise, seed=seed, progress=False)
    return str(path)


def write_accented_set(folder: Path) -> Path:
    """The tiny set with keyboard typos, each question tagged with a SQuAD-SRC speaker, country
    and gender, as `allennlp transcribe` tags transcripts."""
    noised = folder / "accent_noised.json"
    make_challenge_set(TINY, str(noised), {"type": "keyboard", "word_probability": 0.4}, seed=1, progress=False)
    dataset = load_squad_json(noised)
    number = 0
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                speaker = SQUAD_SRC_SPEAKERS[SPEAKERS[number % len(SPEAKERS)]]
                qa.update(speaker=speaker.speaker, country=speaker.country, gender=speaker.gender)
                number += 1
    path = folder / "accent.json"
    path.write_text(json.dumps(dataset), encoding="utf-8")
    return path


def accent_study(archive, accented: Path) -> dict:
    """Two models (the same archive twice, as a second model) on clean, keyboard and accented sets."""
    return {
        "models": {"tiny": {"archive": str(archive), "batch_size": 4}, "twin": {"archive": str(archive), "batch_size": 5}},
        "test_sets": {
            "clean": {"data": TINY, "interface": "clean", "kind": "natural"},
            "keyboard": {"data": TINY_KEYBOARD, "original": TINY, "interface": "keyboard", "kind": "synthetic"},
            "accent": {"data": str(accented), "interface": "asr", "kind": "natural"},
            "accent_audio_like": {"data": str(accented), "interface": "accent", "kind": "natural", "wer_from": "accent"},
        },
        "pairs": [["tiny", "*"], ["twin", "clean"], ["twin", "accent"]],
    }


def run_accent_study(out_dir: Path, archive) -> dict:
    """Run the accent study into `out_dir` and return its results.json."""
    out_dir.mkdir(parents=True, exist_ok=True)
    study = study_from_dict(accent_study(archive, write_accented_set(out_dir)), "accent_study")
    run_study(study, str(out_dir), progress=False)
    return json.loads((out_dir / "results.json").read_text())


def tiny_study(archive):
    return load_study(str(FIXTURES / "study_tiny.jsonnet"), ext_vars={"TINY_ARCHIVE": str(archive)})


def output_bytes(out_dir: Path) -> dict:
    return {name: (out_dir / name).read_bytes() for name in OUTPUTS}


def pair_files(out_dir: Path) -> dict:
    return {
        str(path.relative_to(out_dir)): path.read_bytes()
        for path in sorted((out_dir / "pairs").rglob("*")) if path.is_file()
    }


@pytest.fixture(scope="module")
def reference_run(tiny_archive, tmp_path_factory):
    """One complete unsharded run of the fixture study, for comparisons."""
    out_dir = tmp_path_factory.mktemp("reference")
    summary = run_study(tiny_study(tiny_archive), str(out_dir), progress=False)
    return out_dir, summary


def test_full_run_writes_every_output_with_official_scores(reference_run):
    out_dir, summary = reference_run
    assert summary == {"pairs": 2, "pairs_in_shard": 2, "pairs_run": 2, "pairs_cached": 0, "assembled": True}
    for name in OUTPUTS:
        assert (out_dir / name).stat().st_size > 0, name
    assert not (out_dir / "f1_by_country.png").exists()
    results = json.loads((out_dir / "results.json").read_text())
    generated = TINY_KEYBOARD
    sets = {s["name"]: s for s in results["test_sets"]}
    assert sets["keyboard"]["data"] == "tests/fixtures/squad_tiny_keyboard.json"
    # the noise configuration the set's file records (`allennlp noise` wrote it)
    assert sets["keyboard"]["noise_source"] == {"type": "keyboard", "word_probability": 0.5}
    assert sets["clean"]["noise_source"] is None and not (out_dir / "sets").exists()
    pairs = {pair["set"]: pair for pair in results["pairs"]}
    for name, data in (("clean", TINY), ("keyboard", str(generated))):
        lines = (out_dir / "pairs" / f"tiny__{name}" / "predictions.jsonl").read_text().splitlines()
        records = [json.loads(line) for line in lines]
        assert set(records[0]) == {"id", "prediction", "answers", "groups", "question", "original_question"}
        official = evaluate(load_squad_json(data)["data"], {r["id"]: r["prediction"] for r in records})
        assert pairs[name]["em"] == pytest.approx(official["exact_match"])
        assert pairs[name]["f1"] == pytest.approx(official["f1"])
        assert pairs[name]["questions"] == 9
    assert pairs["keyboard"]["f1_drop"] == pytest.approx(pairs["clean"]["f1"] - pairs["keyboard"]["f1"])
    assert pairs["keyboard"]["reference"] == "clean" and pairs["clean"]["f1_drop"] is None
    stats = set_statistics(str(generated))
    noise = sets["keyboard"]["question_noise"]
    for key in ("cer", "wer", "bleu", "questions", "changed"):
        assert noise[key] == pytest.approx(stats[key]), key
    clean = sets["clean"]["question_noise"]  # none, or none measured (a clean question as its own original)
    assert clean is None or (clean["changed"] == 0 and clean["wer"] == 0.0)


def test_rerun_does_no_work_and_rewrites_nothing(reference_run, tiny_archive, monkeypatch):
    out_dir, _ = reference_run
    before, times = output_bytes(out_dir), {name: (out_dir / name).stat().st_mtime_ns for name in OUTPUTS}

    def no_loading(*args):
        raise AssertionError("a rerun with nothing to do loaded a model")

    monkeypatch.setattr(evaluation, "load_model", no_loading)
    summary = run_study(tiny_study(tiny_archive), str(out_dir), progress=False)
    assert summary["pairs_run"] == 0 and summary["pairs_cached"] == 2
    assert output_bytes(out_dir) == before
    assert {name: (out_dir / name).stat().st_mtime_ns for name in OUTPUTS} == times


def test_killed_run_resumes_with_only_the_missing_pairs(reference_run, tiny_archive, tmp_path):
    reference_dir, _ = reference_run
    study = tiny_study(tiny_archive)
    first = run_study(study, str(tmp_path), shard=(1, 2), progress=False)  # as if killed after one pair
    assert first["pairs_run"] == 1 and not first["assembled"] and not (tmp_path / "results.json").exists()
    # a pair killed while writing: its predictions half written, its scores never
    (tmp_path / "pairs" / "tiny__clean").mkdir(parents=True)
    (tmp_path / "pairs" / "tiny__clean" / "predictions.jsonl").write_text('{"id": "q1", "predi')
    (tmp_path / "pairs" / "tiny__clean" / "predictions.jsonl.tmp-99").write_text("{")
    summary = run_study(study, str(tmp_path), progress=False)
    assert summary["pairs_run"] == 1 and summary["pairs_cached"] == 1 and summary["assembled"]
    assert output_bytes(tmp_path) == output_bytes(reference_dir)
    # a pair whose scores were lost is run again, alone
    (tmp_path / "pairs" / "tiny__keyboard" / "scores.json").unlink()
    assert run_study(study, str(tmp_path), progress=False)["pairs_run"] == 1
    assert output_bytes(tmp_path) == output_bytes(reference_dir)


def test_shards_then_merge_equal_an_unsharded_run(reference_run, tiny_archive, tmp_path):
    reference_dir, _ = reference_run
    study = tiny_study(tiny_archive)
    with pytest.raises(StudyError, match="2 of 2 pairs are missing or out of date .*tiny__clean, tiny__keyboard"):
        run_study(study, str(tmp_path), merge=True, progress=False)
    assert run_study(study, str(tmp_path), shard=(0, 2), progress=False)["pairs_run"] == 1
    with pytest.raises(StudyError, match="1 of 2 pairs are missing or out of date .*tiny__keyboard"):
        run_study(study, str(tmp_path), merge=True, progress=False)
    assert run_study(study, str(tmp_path), shard=(1, 2), progress=False)["pairs_run"] == 1
    merged = run_study(study, str(tmp_path), merge=True, progress=False)
    assert merged["pairs_run"] == 0 and merged["assembled"]
    assert output_bytes(tmp_path) == output_bytes(reference_dir)
    assert pair_files(tmp_path) == pair_files(reference_dir)
    with pytest.raises(ValueError, match="--merge only assembles"):
        run_study(study, str(tmp_path), merge=True, shard=(0, 2))


@pytest.mark.slow
def test_changed_data_file_invalidates_its_pairs(tiny_archive, tmp_path):
    data = tmp_path / "data.json"
    shutil.copy(TINY, data)
    keyboard = tmp_path / "keyboard.json"
    shutil.copy(TINY_KEYBOARD, keyboard)
    raw = {
        "models": {"tiny": {"archive": str(tiny_archive)}},
        "test_sets": {
            "clean": {"data": str(data), "interface": "clean", "kind": "natural"},
            "keyboard": {"data": str(keyboard), "original": str(data), "interface": "keyboard", "kind": "synthetic"},
            "fixed": {"data": TINY, "original": TINY, "interface": "asr", "kind": "natural", "reference": "clean"},
        },
    }
    study = study_from_dict(raw, "study")
    out_dir = tmp_path / "out"
    assert run_study(study, str(out_dir), progress=False)["pairs_run"] == 3
    assert run_study(study, str(out_dir), progress=False)["pairs_run"] == 0
    dataset = json.loads(data.read_text())
    dataset["data"][0]["paragraphs"][0]["qas"][0]["question"] = "Who dredged the harbour of Velmont?"
    data.write_text(json.dumps(dataset))
    summary = run_study(study, str(out_dir), progress=False)
    assert summary["pairs_run"] == 2  # clean, and keyboard, whose original it is
    records = (out_dir / "pairs" / "tiny__clean" / "predictions.jsonl").read_text()
    assert "Who dredged the harbour of Velmont?" in records
    noisy = json.loads(keyboard.read_text())
    noisy["data"][0]["paragraphs"][0]["qas"][0]["question"] = "Who dredged teh harbour?"
    keyboard.write_text(json.dumps(noisy))  # the set made again
    assert run_study(study, str(out_dir), progress=False)["pairs_run"] == 1
    assert run_study(study, str(out_dir), force=True, progress=False)["pairs_run"] == 3


@pytest.mark.slow
def test_workers_give_the_same_outputs(reference_run, tiny_archive, tmp_path):
    reference_dir, _ = reference_run
    summary = run_study(tiny_study(tiny_archive), str(tmp_path), workers=2, progress=False)
    assert summary["pairs_run"] == 2
    assert output_bytes(tmp_path) == output_bytes(reference_dir)
    assert pair_files(tmp_path) == pair_files(reference_dir)


def test_groups_give_per_country_scores_and_question_wer(tiny_archive, tmp_path):
    results = run_accent_study(tmp_path, tiny_archive)
    pairs = {(p["model"], p["set"]): p for p in results["pairs"]}
    assert len(pairs) == 6
    accent = pairs[("tiny", "accent")]
    assert sorted(accent["by_country"]) == ["India", "Thailand", "UK", "US"]
    assert sum(group["count"] for group in accent["by_country"].values()) == 9
    assert sorted(accent["by_gender"]) == ["F", "M"] and len(accent["by_speaker"]) == len(SPEAKERS)
    f1s = [group["f1"] for group in accent["by_country"].values()]
    assert accent["f1_range"]["value"] == pytest.approx(max(f1s) - min(f1s))
    sets = {s["name"]: s for s in results["test_sets"]}
    noise = sets["accent"]["question_noise"]
    assert set(noise["by_country"]) == set(accent["by_country"]) and noise["measured_on"] == "accent"
    assert noise["wer"] == pytest.approx(set_statistics(str(tmp_path / "accent.json"))["wer"])
    assert sets["accent_audio_like"]["question_noise"] == noise  # taken from the set named by wer_from
    # the twin (same weights, another batch size) scores the same
    assert pairs[("twin", "accent")]["by_country"] == accent["by_country"]
    assert pairs[("twin", "accent")]["f1_drop"] == pytest.approx(accent["f1_drop"])


def test_a_missing_archive_is_a_clear_error(tmp_path):
    archive = tmp_path / "model.tar.gz"
    archive.write_bytes(b"x")
    study = study_from_dict(
        {"models": {"m": {"archive": str(archive)}},
         "test_sets": {"clean": {"data": TINY, "interface": "clean", "kind": "natural"}}}, "s.jsonnet"
    )
    archive.unlink()
    with pytest.raises(StudyError, match=f"s.jsonnet: models.m.archive: not found: {archive}"):
        run_study(study, str(tmp_path / "out"), progress=False)


def test_noisy_set_without_originals_needs_the_clean_file(tiny_archive, tmp_path):
    noised = tmp_path / "noised.json"
    make_challenge_set(TINY, str(noised), {"type": "keyboard", "word_probability": 0.5}, seed=2, progress=False)
    dataset = json.loads(noised.read_text())
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                del qa["original_question"]  # as NoiseQA's files come
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(dataset))
    raw = {
        "models": {"tiny": {"archive": str(tiny_archive)}},
        "test_sets": {"bare": {"data": str(bare), "interface": "keyboard", "kind": "synthetic"}},
    }
    with pytest.raises(StudyError, match="s.json: test_sets.bare.original: required: .*bare.json has no original_question"):
        run_study(study_from_dict(raw, "s.json"), str(tmp_path / "out"), progress=False)
    raw["test_sets"]["bare"]["original"] = TINY
    run_study(study_from_dict(raw, "s.json"), str(tmp_path / "out"), progress=False)
    noise = json.loads((tmp_path / "out" / "results.json").read_text())["test_sets"][0]["question_noise"]
    expected = set_statistics(str(bare), TINY)
    assert noise["wer"] == pytest.approx(expected["wer"]) and noise["changed"] == expected["changed"] > 0


def test_results_carry_intervals_tests_and_error_analysis_from_the_predictions(reference_run):
    from srcframework.metrics.statistics import Resampler, percentile_interval
    from srcframework.studies.contexts import squad_contexts
    from srcframework.studies.question_scores import load_pair_scores
    from tests.metrics.statistics_test import loop_cluster_means

    out_dir, _ = reference_run
    results = json.loads((out_dir / "results.json").read_text())
    statistics = results["statistics"]
    assert statistics["bootstrap"] == 1000 and statistics["seed"] == 0 and statistics["bootstrap_unit"] == "context"
    assert (statistics["questions"], statistics["contexts"], statistics["questions_without_context"]) == (9, 3, 0)
    scores = {name: load_pair_scores(str(out_dir / "pairs" / f"tiny__{name}" / "predictions.jsonl"), "tiny", name, name)
              for name in ("clean", "keyboard")}
    contexts = squad_contexts(TINY)  # the tiny file's three paragraphs, resampled with their questions
    pairs = {pair["set"]: pair for pair in results["pairs"]}
    for name, pair in pairs.items():
        for metric in ("em", "f1"):
            means = loop_cluster_means(scores[name].ids, contexts, getattr(scores[name], metric), 1000, 0)
            assert (pair[f"{metric}_low"], pair[f"{metric}_high"]) == pytest.approx(percentile_interval(means))
        assert pair["f1_low"] <= pair["f1"] <= pair["f1_high"]
        assert sum(group["count"] for group in pair["by_question_type"].values()) == 9
        assert sum(group["count"] for group in pair["by_length"].values()) == 9
    drop = pairs["keyboard"]["drop_test"]
    expected = Resampler(1000, 0, clusters=contexts).test(scores["clean"].ids, scores["clean"].f1, scores["keyboard"].f1)
    expected.pop("draws")
    assert drop["questions"] == 9 and {k: drop["f1"][k] for k in expected} == pytest.approx(expected)
    assert drop["f1"]["significant"] == (drop["f1"]["p_holm"] < 0.05) and drop["f1"]["p_holm"] >= drop["f1"]["p"]
    assert drop["f1"]["difference"] == pytest.approx(pairs["keyboard"]["f1_drop"])
    flips = pairs["keyboard"]["flips"]
    right = {n: {q for q, em in zip(scores[n].ids, scores[n].em) if em} for n in scores}
    assert flips == {"questions": 9, "right_to_wrong": len(right["clean"] - right["keyboard"]),
                     "wrong_to_right": len(right["keyboard"] - right["clean"])}
    assert sum(group["count"] for group in pairs["keyboard"]["by_wer_bucket"].values()) == 9
    assert pairs["clean"]["by_wer_bucket"] == {} and pairs["clean"]["drop_test"] is None
    assert results["comparisons"] == []  # one model
    markdown = (out_dir / "results.md").read_text()
    assert f"{pairs['keyboard']['f1']:.1f} [{pairs['keyboard']['f1_low']:.1f}, {pairs['keyboard']['f1_high']:.1f}]" in markdown
    assert "1000 resamples of the contexts (paragraphs), each with all its questions," in markdown
    assert "paired approximate randomisation test (10000 rounds, contexts flipped together)" in markdown
    assert "Holm-Bonferroni-corrected over this table's 2 tests" in markdown and "## F1 by question type" in markdown
    assert "Right: exact match 1 (EM = 1)" in markdown


def test_seed_and_bootstrap_change_only_the_statistics(reference_run, tiny_archive, tmp_path):
    from srcframework.studies.analysis import AnalysisOptions

    reference_dir, _ = reference_run
    shutil.copytree(reference_dir / "pairs", tmp_path / "pairs")
    study = tiny_study(tiny_archive)
    summary = run_study(study, str(tmp_path), progress=False, analysis=AnalysisOptions(bootstrap=200, seed=5, examples=1))
    assert summary["pairs_run"] == 0
    results = json.loads((tmp_path / "results.json").read_text())
    reference = json.loads((reference_dir / "results.json").read_text())
    assert results["statistics"]["bootstrap"] == 200 and results["statistics"]["seed"] == 5
    for mine, theirs in zip(results["pairs"], reference["pairs"]):
        assert (mine["em"], mine["f1"], mine["flips"]) == (theirs["em"], theirs["f1"], theirs["flips"])
    assert all(len(entry[key]) <= 1 for entry in results["examples"] for key in ("right_to_wrong", "wrong_to_right"))
    run_study(study, str(tmp_path), progress=False)  # the defaults again: the reference's bytes
    assert output_bytes(tmp_path) == output_bytes(reference_dir)


def test_outputs_are_written_once_all_are_complete(reference_run, tiny_archive, tmp_path, monkeypatch):
    from srcframework.studies import plots
    from srcframework.studies.analysis import AnalysisOptions

    reference_dir, _ = reference_run
    shutil.copytree(reference_dir / "pairs", tmp_path / "pairs")
    study = tiny_study(tiny_archive)
    run_study(study, str(tmp_path), progress=False)
    before = output_bytes(tmp_path)

    def broken(results):
        raise RuntimeError("rendering failed")

    monkeypatch.setattr(plots, "render_plots", broken)
    with pytest.raises(RuntimeError, match="rendering failed"):  # new statistics, but a figure fails
        run_study(study, str(tmp_path), progress=False, analysis=AnalysisOptions(seed=9))
    assert output_bytes(tmp_path) == before  # results.json was not written ahead of the figures
    assert not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_duplicate_question_ids_fail_naming_the_id_and_the_file(tiny_archive, tmp_path):
    dataset = json.loads(Path(TINY).read_text())
    qas = dataset["data"][0]["paragraphs"][0]["qas"]
    qas.append(dict(qas[0], question="Who else dredged the harbour?"))
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps(dataset))
    raw = {"models": {"tiny": {"archive": str(tiny_archive)}},
           "test_sets": {"clean": {"data": str(twice), "interface": "clean", "kind": "natural"}}}
    qid = qas[0]["id"]
    with pytest.raises(StudyError, match=f"s.json: test_sets.clean.data: question id '{qid}' occurs more than once in {twice}"):
        run_study(study_from_dict(raw, "s.json"), str(tmp_path / "out"), progress=False)
    raw["test_sets"]["clean"]["data"] = TINY
    raw["test_sets"]["keyboard"] = {"data": TINY_KEYBOARD, "original": str(twice), "interface": "keyboard",
                                    "kind": "synthetic"}
    with pytest.raises(StudyError, match=f"test_sets.keyboard.original: question id '{qid}' occurs more than once"):
        run_study(study_from_dict(raw, "s.json"), str(tmp_path / "out"), progress=False)
    # pairs cached before the check: assembling them names the id and the set's file
    run_study(study_from_dict({**raw, "test_sets": {"clean": raw["test_sets"]["clean"]}}, "s.json"), str(tmp_path / "ok"),
              progress=False)
    predictions = tmp_path / "ok" / "pairs" / "tiny__clean" / "predictions.jsonl"
    lines = predictions.read_text().splitlines()
    predictions.write_text("\n".join(lines + lines[:1]) + "\n")
    with pytest.raises(StudyError, match=f"test set clean \\({TINY}\\): question id '{json.loads(lines[0])['id']}' occurs"):
        collect_results(study_from_dict({**raw, "test_sets": {"clean": raw["test_sets"]["clean"]}}, "s.json"),
                               str(tmp_path / "ok"))


@pytest.mark.parametrize("options, message", [
    ({"shard": (2, 2)}, "shard must be i/n with 0 <= i < n, got 2/2"),
    ({"workers": 0}, "workers must be at least 1, got 0"),
])
def test_bad_run_options_are_configuration_errors_before_any_work(tmp_path, options, message):
    study = tiny_study(TINY)  # never loaded: the options are checked first
    with pytest.raises(ConfigurationError, match=message):
        run_study(study, str(tmp_path / "out"), progress=False, **options)
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_model_with_several_archives_runs_each_and_shows_each_seed(tiny_archive, tmp_path):
    second = tmp_path / "seed1.tar.gz"
    shutil.copy(tiny_archive, second)
    typos = {"original": TINY, "interface": "keyboard", "kind": "synthetic"}
    other = noised(tmp_path, "typos", {"type": "keyboard", "word_probability": 0.3}, seed=3)
    raw = {
        "models": {
            "plain": {"archive": str(tiny_archive), "batch_size": 4},
            "robust": {"archives": [str(tiny_archive), str(second)], "batch_size": 4, "twin": "plain",
                       "trained_on_noise": ["keyboard"]},
        },
        "test_sets": {
            "clean": {"data": TINY, "interface": "clean", "kind": "natural"},
            "keyboard": dict(typos, data=TINY_KEYBOARD, generator="keyboard"),
            "typos": dict(typos, data=other, generator="other_typos"),
        },
        "equivalence_margin": 2.0,
    }
    out_dir = tmp_path / "out"
    summary = run_study(study_from_dict(raw, "seeds.json"), str(out_dir), progress=False)
    assert summary["pairs"] == summary["pairs_run"] == 9  # three sets x three archives
    assert (out_dir / "pairs" / "robust__typos" / "seed1" / "predictions.jsonl").is_file()
    results = json.loads((out_dir / "results.json").read_text())
    robust = next(p for p in results["pairs"] if p["model"] == "robust" and p["set"] == "typos")
    assert [s["archive"] for s in robust["seeds"]] == [str(tiny_archive), str(second)]
    assert robust["f1"] == pytest.approx(sum(s["f1"] for s in robust["seeds"]) / 2)
    assert robust["f1_drop"] == pytest.approx(sum(s["f1_drop"] for s in robust["seeds"]) / 2)
    [row] = results["robustness"]
    assert [(g["group"], g["noisy_sets"]) for g in row["groups"]] == [
        ("held_out", ["typos"]), ("seen", ["keyboard"]), ("all", ["keyboard", "typos"])]
    assert len(row["groups"][0]["seeds"]) == 2 and row["groups"][0]["drop_difference"] == pytest.approx(0.0)
    assert row["clean"]["change"] == 0.0 and row["clean"]["verdict"] == "equivalent"  # the same weights
    assert results["statistics"]["equivalence_margin"] == 2.0
    markdown = (out_dir / "results.md").read_text()
    assert "## Scores of each seed" in markdown and "held-out generator (primary): typos" in markdown
    assert "+-2 F1 points" in markdown
    page = (out_dir / "report.html").read_text()
    assert '<table id="robustness">' in page and '<table id="f1_by_seed">' in page and ">equivalent</td>" in page
    assert run_study(study_from_dict(raw, "seeds.json"), str(out_dir), progress=False)["pairs_run"] == 0
    second.unlink()
    with pytest.raises(StudyError, match=r"seeds.json: models.robust.archives\[1\]: not found"):
        run_study(study_from_dict(raw, "seeds.json", require_files=False), str(out_dir), progress=False)


def test_comparisons_across_sets_and_the_f1_range_test_reach_the_results_and_markdown(tiny_archive, tmp_path):
    from srcframework.metrics.statistics import holm
    from srcframework.studies.markdown_into import markdown_into
    from srcframework.studies.question_scores import load_pair_scores

    second = tmp_path / "seed1.tar.gz"
    shutil.copy(tiny_archive, second)
    accented = write_accented_set(tmp_path)
    raw = {
        "models": {"tiny": {"archive": str(tiny_archive), "batch_size": 4},
                   "seeds": {"archives": [str(tiny_archive), str(second)], "batch_size": 4}},
        "test_sets": {"clean": {"data": TINY, "interface": "clean", "kind": "natural"},
                      "accent": {"data": str(accented), "interface": "asr", "kind": "natural"}},
        "comparisons": {
            "spoken_vs_text": {"first": {"model": "seeds", "set": "accent"}, "second": {"model": "tiny", "set": "clean"},
                               "label": "seeds on accent against tiny on clean"},
            "same_model": {"first": {"model": "tiny", "set": "accent"}, "second": {"model": "tiny", "set": "clean"}},
        },
    }
    out_dir = tmp_path / "out"
    run_study(study_from_dict(raw, "cross.json"), str(out_dir), progress=False)
    results = json.loads((out_dir / "results.json").read_text())
    spoken, same = results["cross_comparisons"]
    assert spoken["label"] == "seeds on accent against tiny on clean" and same["label"] == "same_model"
    assert spoken["first"] == {"model": "seeds", "set": "accent"} and spoken["second"] == {"model": "tiny", "set": "clean"}
    accent = load_pair_scores(str(out_dir / "pairs" / "tiny__accent" / "predictions.jsonl"), "tiny", "accent", "a")
    clean = load_pair_scores(str(out_dir / "pairs" / "tiny__clean" / "predictions.jsonl"), "tiny", "clean", "c")
    shared = sorted(set(accent.ids) & set(clean.ids))
    assert spoken["questions"] == same["questions"] == len(shared) == 9
    by_hand = sum(accent.f1[accent.ids.index(q)] - clean.f1[clean.ids.index(q)] for q in shared) / len(shared)
    assert spoken["f1"]["difference"] == pytest.approx(by_hand)  # both seeds are the same weights
    # the same model on the two sets is its drop test the other way round (the same draws and flips)
    drop = next(p for p in results["pairs"] if (p["model"], p["set"]) == ("tiny", "accent"))["drop_test"]
    for metric in ("em", "f1"):
        assert same[metric]["difference"] == pytest.approx(-drop[metric]["difference"])
        assert (same[metric]["low"], same[metric]["high"]) == pytest.approx((-drop[metric]["high"], -drop[metric]["low"]))
        assert same[metric]["p"] == drop[metric]["p"]
    family = [c[m]["p"] for c in (spoken, same) for m in ("em", "f1")]
    assert [c[m]["p_holm"] for c in (spoken, same) for m in ("em", "f1")] == pytest.approx(holm(family))
    assert results["statistics"]["families"]["cross_comparisons"]["tests"] == 4
    pairs = {(p["model"], p["set"]): p for p in results["pairs"]}
    for model in ("tiny", "seeds"):
        spread = pairs[(model, "accent")]["f1_range"]
        assert 0 < spread["p"] <= 1 and "low" not in spread
        assert pairs[(model, "clean")]["f1_range"] is None  # no speakers: no countries
    assert "## Comparisons across test sets" in (out_dir / "results.md").read_text()
    readme = tmp_path / "README.md"
    readme.write_text("# R\n\n<!-- results:study tables=cross_comparisons,f1_by_country -->\n<!-- /results:study -->\n")
    markdown_into(str(out_dir / "results.json"), str(readme))
    text = readme.read_text()
    assert "**Comparisons across test sets**" in text and "**F1 by country**" in text
    assert "| seeds on accent against tiny on clean | seeds on accent | tiny on clean | 9 |" in text
    assert text.index("Comparisons across test sets") < text.index("F1 by country")
