"""srcframework-phonetic: an example third-party srcframework plugin (the `phonetic` noise source)."""
from setuptools import find_packages, setup

setup(
    name="srcframework-phonetic",
    version="0.1.0",
    description="Phonetic-confusion noise for srcframework, from the CMU pronouncing dictionary",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.10",
    packages=find_packages(include=["srcframework_phonetic", "srcframework_phonetic.*"]),
    install_requires=["srcframework", "pocketsphinx>=5"],
    extras_require={"dev": ["pytest"]},
    entry_points={"srcframework": ["phonetic = srcframework_phonetic.plugin"]},
)
