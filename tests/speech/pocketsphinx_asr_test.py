import pickle
import shutil

import jiwer
import numpy
import pytest
from allennlp.common import Params

from srcframework.common.audio import resample
from srcframework.speech.engines import SpeechRecognizer
from srcframework.speech.pocketsphinx_asr import PocketsphinxRecognizer

pytest.importorskip("pocketsphinx")
pytestmark = pytest.mark.skipif(
    shutil.which("flite") is None, reason="flite is not installed (apt-get install -y flite)"
)

QUESTION = "what is the capital of france"


@pytest.fixture(scope="module")
def speech():
    from srcframework.speech.flite import FliteSynthesizer

    return FliteSynthesizer(voice="kal16").synthesize(QUESTION)


@pytest.fixture(scope="module")
def recognizer():
    return PocketsphinxRecognizer()


@pytest.fixture(scope="module")
def transcript(speech, recognizer):
    waveform, rate = speech
    [transcript] = recognizer.transcribe([waveform], rate)
    return transcript


def test_recognises_synthesised_question(transcript):
    assert isinstance(transcript, str) and transcript == transcript.lower()
    assert jiwer.wer(QUESTION, transcript) < 0.5


def test_other_rate_and_stereo_are_resampled_and_downmixed(speech, recognizer):
    waveform, rate = speech
    at_44k = resample(waveform, rate, 44100)
    stereo = numpy.stack([at_44k, at_44k], axis=1)
    int16_8k = (resample(waveform, rate, 8000) * 32767).astype(numpy.int16)
    transcripts = recognizer.transcribe([stereo], 44100) + recognizer.transcribe([int16_8k], 8000)
    for transcript in transcripts:
        assert jiwer.wer(QUESTION, transcript) < 0.5


def test_silence_and_empty_input_give_empty_string(recognizer):
    # Quiet background noise, not digital zeros: PocketSphinx hallucinates words in exact silence.
    hiss = (numpy.random.default_rng(0).normal(size=16000) * 0.001).astype(numpy.float32)
    inputs = [numpy.zeros(0, numpy.float32), numpy.zeros(400, numpy.float32), hiss]
    assert recognizer.transcribe(inputs, 16000) == ["", "", ""]
    assert recognizer.transcribe([], 16000) == []


def test_transcripts_do_not_depend_on_order(speech, recognizer, transcript):
    waveform, rate = speech
    other = waveform[: len(waveform) // 2]
    [other_transcript] = recognizer.transcribe([other], rate)
    fresh = PocketsphinxRecognizer()
    assert fresh.transcribe([other, waveform], rate) == [other_transcript, transcript]


def test_pickles_without_its_decoder(speech, recognizer, transcript):
    assert recognizer._decoder is not None  # created by the `transcript` fixture
    copy = pickle.loads(pickle.dumps(recognizer))
    assert copy._decoder is None and copy.hmm is None
    waveform, rate = speech
    assert copy.transcribe([waveform], rate) == [transcript]


def test_from_params_with_explicit_bundled_model():
    import os

    from pocketsphinx import get_model_path

    model = os.path.join(get_model_path(), "en-us")
    recognizer = SpeechRecognizer.from_params(
        Params(
            {
                "type": "pocketsphinx",
                "hmm": os.path.join(model, "en-us"),
                "lm": os.path.join(model, "en-us.lm.bin"),
                "dict": os.path.join(model, "cmudict-en-us.dict"),
            }
        )
    )
    assert isinstance(recognizer, PocketsphinxRecognizer)
    assert recognizer.dict.endswith("cmudict-en-us.dict")
    assert recognizer.decoder() is not None


def test_bad_model_path_fails():
    with pytest.raises(Exception):
        PocketsphinxRecognizer(hmm="/nonexistent/acoustic-model").decoder()


@pytest.mark.slow
def test_transcript_does_not_depend_on_earlier_utterances():
    """A decoder reused without re-initialising changed 2 of these 7 transcripts (the 2nd and the
    7th; 3 of the first 16)."""
    import json

    from srcframework.noise.asr import AsrNoise
    from tests.conftest import shared_file

    data = json.load(open(shared_file("xquad/xquad.en.json"), encoding="utf-8"))
    questions = [qa["question"] for p in data["data"][0]["paragraphs"][:3] for qa in p["qas"]][:7]
    source = AsrNoise()
    waves = [source.speak(q) for q in questions]
    in_sequence = PocketsphinxRecognizer().transcribe(waves, 16000)
    one_by_one = [PocketsphinxRecognizer().transcribe([w], 16000)[0] for w in waves]
    assert in_sequence == one_by_one


def test_fast_preset_decodes_a_real_utterance_with_fewer_passes(speech):
    waveform, rate = speech
    fast = SpeechRecognizer.from_params(Params({"type": "pocketsphinx", "preset": "fast"}))
    options = fast.decoder_options()
    assert options["fwdflat"] is False and options["bestpath"] is False and options["topn"] == 2
    [transcript] = fast.transcribe([waveform], rate)
    assert jiwer.wer(QUESTION, transcript) < 0.5
    assert fast.decoder().get_config()["fwdflat"] is False  # the options reached the decoder


def test_options_override_the_preset_and_bad_presets_are_refused():
    from allennlp.common.checks import ConfigurationError

    recognizer = PocketsphinxRecognizer(preset="fast", options={"topn": 3})
    assert recognizer.decoder_options()["topn"] == 3
    assert PocketsphinxRecognizer().decoder_options() == {}
    with pytest.raises(ConfigurationError, match="unknown pocketsphinx preset 'turbo'"):
        PocketsphinxRecognizer(preset="turbo")
    with pytest.raises(ConfigurationError, match="JSON object"):
        PocketsphinxRecognizer(options=["ds", 2])


def test_forked_decoding_gives_the_transcripts_of_a_reinitialised_decoder(speech):
    import os

    if not hasattr(os, "fork"):
        pytest.skip("this system has no fork")
    waveform, rate = speech
    other = waveform[: len(waveform) // 2]
    forked, reinitialised = PocketsphinxRecognizer(preset="fast"), PocketsphinxRecognizer(preset="fast")
    reinitialised.pristine = "reinit"
    waves = [waveform, other, waveform]
    assert forked.transcribe(waves, rate) == reinitialised.transcribe(waves, rate)
    assert forked.transcribe(waves, rate)[0] == forked.transcribe(waves, rate)[2]
