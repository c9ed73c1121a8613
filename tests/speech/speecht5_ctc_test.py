import json

import numpy
import pytest
import torch
from allennlp.common import Params

from srcframework.common.audio import resample
from srcframework.speech.engines import SpeechRecognizer
from srcframework.speech.flite import FliteSynthesizer
from srcframework.speech.speecht5_ctc import SpeechT5CtcRecognizer
from srcframework.speech.speecht5_ctc_network import CHARACTERS, SpeechT5CtcNetwork, pad_rows
from tests.conftest import FIXTURES
from tests.tiny_models import save_tiny_ctc_recognizer


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return save_tiny_ctc_recognizer(tmp_path_factory.mktemp("speecht5_ctc"))


@pytest.fixture(scope="module")
def utterances():
    """Two synthesized questions: flite kal16 (16 kHz) and slt."""
    return [FliteSynthesizer("kal16").synthesize("What is the capital of France?"),
            FliteSynthesizer("slt").synthesize("Who wrote the book in 1984?")]


def test_decodes_vocabulary_characters_deterministically(checkpoint, utterances):
    recognizer = SpeechRecognizer.from_params(Params({"type": "speecht5_ctc", "model_name": checkpoint, "batch_size": 2}))
    assert isinstance(recognizer, SpeechT5CtcRecognizer)
    (waveform, rate), (other, other_rate) = utterances
    other = resample(other, other_rate, rate)
    first = recognizer.transcribe([waveform, other], rate)
    assert len(first) == 2 and all(isinstance(t, str) and t for t in first)
    assert all(set(t) <= set(CHARACTERS[1:]) for t in first)
    assert all(t == " ".join(t.split()) for t in first)
    assert recognizer.transcribe([waveform, other], rate) == first
    alone = SpeechT5CtcRecognizer(checkpoint, batch_size=1)
    assert alone.transcribe([other], rate) + alone.transcribe([waveform], rate) == first[::-1]


def test_transcripts_are_the_networks_greedy_decoding(checkpoint, utterances):
    waveform, rate = utterances[0]
    network = SpeechT5CtcNetwork.from_pretrained(checkpoint).eval()
    samples = resample(waveform, rate, 16000)
    samples = (samples - samples.mean()) / numpy.sqrt(samples.var() + 1e-7)
    batch, lengths = pad_rows([torch.from_numpy(samples)])
    with torch.no_grad():
        logits, mask = network(batch, lengths)
    best = logits.argmax(-1)[0].tolist()
    assert len(set(best)) > 1
    collapsed = [c for i, c in enumerate(best) if c != 0 and (i == 0 or best[i - 1] != c)]
    expected = " ".join("".join(CHARACTERS[c] for c in collapsed).split())
    # the recognizer resamples 8 kHz or 16 kHz input itself
    assert SpeechT5CtcRecognizer(checkpoint).transcribe([waveform], rate) == [expected]
    eight_k = resample(waveform, rate, 8000)
    assert isinstance(SpeechT5CtcRecognizer(checkpoint).transcribe([eight_k], 8000)[0], str)


def test_empty_waveform_and_bad_folder(checkpoint, utterances, tmp_path):
    waveform, rate = utterances[0]
    recognizer = SpeechT5CtcRecognizer(checkpoint)
    out = recognizer.transcribe([numpy.zeros(0, dtype=numpy.float32), waveform], rate)
    assert out[0] == "" and out[1] == recognizer.transcribe([waveform], rate)[0]
    with pytest.raises(FileNotFoundError, match="no config.json"):
        SpeechT5CtcRecognizer(str(tmp_path))
    (tmp_path / "config.json").write_text(open(f"{checkpoint}/config.json").read())
    with pytest.raises(FileNotFoundError, match="no ctc_head.safetensors"):
        SpeechT5CtcRecognizer(str(tmp_path))
    with pytest.raises(ValueError, match="batch_size"):
        SpeechT5CtcRecognizer(checkpoint, batch_size=0)


def test_serves_the_transcription_job(checkpoint, tmp_path):
    from srcframework.jobs.synthesis import synthesize_questions
    from srcframework.jobs.transcription import parse_recognizer, transcribe_folder

    tiny = str(FIXTURES / "squad_tiny.json")
    folder = tmp_path / "src"
    synthesize_questions(tiny, str(folder), "flite:kal16,flite:awb", limit=3, progress=False)
    params = parse_recognizer(json.dumps({"type": "speecht5_ctc", "model_name": checkpoint}))
    out = tmp_path / "transcripts.json"
    summary = transcribe_folder(str(folder), str(out), params, squad_path=tiny, batch_size=2, progress=False)
    assert summary["questions"] == 3
    questions = [qa for a in json.loads(out.read_text())["data"] for p in a["paragraphs"] for qa in p["qas"]]
    assert len(questions) == 3 and all(set(qa["question"]) <= set(CHARACTERS[1:]) for qa in questions)


def test_serves_the_asr_noise_source(checkpoint):
    from srcframework.noise.noise_source import NoiseSource

    noise = NoiseSource.from_params(Params({
        "type": "asr",
        "synthesizer": {"type": "flite", "voice": "kal16"},
        "recognizer": {"type": "speecht5_ctc", "model_name": checkpoint},
    }))
    noisy = noise.noise(["What is the capital of France?"], seed=0)
    assert len(noisy) == 1 and isinstance(noisy[0], str) and set(noisy[0]) <= set(CHARACTERS[1:])


def test_decodes_with_a_word_lm_from_its_config(checkpoint, utterances, squad_dev_lm):
    from srcframework.speech.ctc_lexicon_decoder import LexiconBeamCtcDecoder
    from srcframework.speech.word_lm import arpa_words

    recognizer = SpeechRecognizer.from_params(Params({
        "type": "speecht5_ctc", "model_name": checkpoint,
        "decoder": {"type": "lexicon_beam", "language_model": squad_dev_lm, "lm_weight": 2.0, "word_score": 1.0},
    }))
    assert isinstance(recognizer.decoder, LexiconBeamCtcDecoder)
    waveform, rate = utterances[0]
    scores = recognizer.log_probs([waveform, numpy.zeros(0, dtype=numpy.float32)], rate)
    assert scores[0].size(1) == len(CHARACTERS) and scores[1].shape == (0, len(CHARACTERS))
    assert torch.allclose(scores[0].exp().sum(-1), torch.ones(scores[0].size(0)), atol=1e-4)
    transcripts = recognizer.transcribe([waveform, numpy.zeros(0, dtype=numpy.float32)], rate)
    assert transcripts[1] == "" and transcripts[0].split()
    assert set(transcripts[0].split()) <= set(arpa_words(squad_dev_lm))
    assert transcripts == recognizer.decoder.decode(scores, CHARACTERS)
