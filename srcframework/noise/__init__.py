from srcframework.noise.noise_source import NoiseSource, question_rng
from srcframework.noise.keyboard import KeyboardNoise
from srcframework.noise.misspelling import MisspellingNoise
from srcframework.noise.natural import NaturalNoise
from srcframework.noise.noisy_copies import NoisyCopies
from srcframework.noise.blank import BlankQuestion
from srcframework.noise.mix import NoiseMix
from srcframework.noise.asr import AsrNoise
from srcframework.noise.back_translation import BackTranslationNoise
from srcframework.noise.preset import NoisePreset
