import json
import shutil

import pytest

from srcframework.data.squad_src_layout import SquadSrcFolder
from srcframework.jobs.decoder_tuning import tune_lexicon_decoder
from srcframework.jobs.transcription import transcribe_folder
from tests.conftest import FIXTURES
from tests.tiny_models import save_tiny_ctc_recognizer

TINY = str(FIXTURES / "squad_tiny.json")


@pytest.fixture(scope="module")
def spoken(spoken_tiny, tmp_path_factory):
    """(a folder of 4 questions read by flite, made once a session, a tiny speecht5_ctc folder)."""
    return str(spoken_tiny), save_tiny_ctc_recognizer(tmp_path_factory.mktemp("ctc"))


def test_each_setting_scores_as_the_transcription_job_would(spoken, squad_dev_lm, tmp_path):
    src, model = spoken
    result = tune_lexicon_decoder(SquadSrcFolder(src), model, squad_dev_lm, [0.5, 2.0], [-1.0, 1.0], beam_size=8, progress=False)
    assert result["recordings"] == 4 and result["fid2qid_file"].endswith("fid2qid_dev.csv")
    assert [(r["lm_weight"], r["word_score"]) for r in result["grid"]] == [(0.5, -1.0), (0.5, 1.0), (2.0, -1.0), (2.0, 1.0)]
    assert result["best"] == min(result["grid"], key=lambda r: r["wer"])
    greedy = transcribe_folder(src, str(tmp_path / "greedy.json"), {"type": "speecht5_ctc", "model_name": model}, progress=False)
    assert result["greedy_wer"] == pytest.approx(json.load(open(tmp_path / "greedy.json.wer.json"))["overall"]["wer"])
    assert greedy["questions"] == 4
    # the chosen decoder, in the recogniser's config, gives the WER the grid reported for it
    recognizer = {"type": "speecht5_ctc", "model_name": model, "decoder": result["decoder"]}
    transcribe_folder(src, str(tmp_path / "beam.json"), recognizer, progress=False)
    assert result["best"]["wer"] == pytest.approx(json.load(open(tmp_path / "beam.json.wer.json"))["overall"]["wer"])
    assert result["decoder"]["beam_size"] == 8


def test_a_drawn_subset_and_bad_settings(spoken, squad_dev_lm):
    src, model = spoken
    folder = SquadSrcFolder(src)
    first = tune_lexicon_decoder(folder, model, squad_dev_lm, [1.0], [0.0], limit=2, seed=3, progress=False)
    assert first["recordings"] == 2 and first["seed"] == 3
    assert tune_lexicon_decoder(folder, model, squad_dev_lm, [1.0], [0.0], limit=2, seed=3, progress=False) == first
    with pytest.raises(ValueError, match="at least one LM weight"):
        tune_lexicon_decoder(folder, model, squad_dev_lm, [], [0.0], progress=False)
    with pytest.raises(ValueError, match="limit must be at least 1"):
        tune_lexicon_decoder(folder, model, squad_dev_lm, [1.0], [0.0], limit=0, progress=False)


def test_a_question_read_by_several_voices_counts_each_recording(spoken, squad_dev_lm, tmp_path):
    src, model = spoken
    folder = tmp_path / "src"
    shutil.copytree(src, folder)
    fid2qid = folder / "fid2qid_dev.csv"
    lines = fid2qid.read_text().splitlines()
    fid, qid = lines[-1].split("\t")[:2]
    audio = next(p for p in (folder / "wavs").iterdir() if p.name.startswith(fid + "_"))
    shutil.copy(audio, audio.with_name(audio.name.replace(fid, "AGAIN" + fid, 1)))
    fid2qid.write_text("\n".join(lines + [f"AGAIN{fid}\t{qid}"]) + "\n")
    result = tune_lexicon_decoder(SquadSrcFolder(str(folder)), model, squad_dev_lm, [1.0], [0.0], progress=False)
    assert result["recordings"] == 5
