"""The hook implementations of srcframework-phonetic (the module its entry point names)."""
from typing import Dict

from srcframework.plugins import hookimpl
from srcframework_phonetic.phonetic import PhoneticNoise


@hookimpl
def srcframework_noise_sources() -> Dict[str, type]:
    return {"phonetic": PhoneticNoise}
