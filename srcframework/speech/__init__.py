from srcframework.speech.engines import EngineNotFound, SpeechRecognizer, SpeechSynthesizer, Translator
from srcframework.speech import apertium, espeak_ng, festival, flite, hibari, marian, piper, pocketsphinx_asr, wav2vec2_ctc  # noqa: F401
from srcframework.speech import ctc_decoder, ctc_lexicon_decoder, speecht5_ctc  # noqa: F401
