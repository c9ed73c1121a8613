"""The import path of the `NoiseSource` base class that noise sources and plugins use. The class
lives in `srcframework.data.noise_source`, where the readers (a layer below the noise sources)
receive it, like a tokenizer."""
from srcframework.data.noise_source import NoiseSource, absolute_path, question_rng, registered_config  # noqa: F401
