"""srcframework-phonetic: an example srcframework plugin adding the `phonetic` noise source.

Installing the distribution is enough: its `srcframework` entry point names
`srcframework_phonetic.plugin`, whose hook the plugin manager calls.
"""
# srcframework first: importing it loads the plugins, this one included, so a program that
# imports `srcframework_phonetic.phonetic` before srcframework does not meet a half-imported module.
import srcframework  # noqa: F401

__version__ = "0.1.0"
