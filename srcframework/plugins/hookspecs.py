"""
The hooks through which a plugin contributes components. A plugin is a module (or any object)
named by an entry point of the `srcframework` group; it implements any of these hooks, as
functions of the same name decorated with `srcframework.plugins.hookimpl`:

```python
from srcframework.plugins import hookimpl

@hookimpl
def srcframework_noise_sources():
    return {"phonetic": PhoneticNoise}
```

Each hook returns `{name: class}`; the plugin manager registers every class in the AllenNLP
registry of its base class under that name, so configs use it as `"type": name`. Classes must
subclass the base, and names must not be taken by a built-in or another plugin. Plugin modules
must not register their classes themselves (with `Base.register`): the manager does it, which
is how it finds clashes and reports what each plugin added.
"""
from typing import Dict

import pluggy

PROJECT_NAME = "srcframework"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)


@hookspec
def srcframework_noise_sources() -> Dict[str, type]:
    """Noise sources: subclasses of `srcframework.noise.noise_source.NoiseSource`."""


@hookspec
def srcframework_field_encoders() -> Dict[str, type]:
    """Field encoders: subclasses of `srcframework.modules.field_encoders.field_encoder.FieldEncoder`."""


@hookspec
def srcframework_dataset_readers() -> Dict[str, type]:
    """Dataset readers: subclasses of `allennlp.data.DatasetReader`."""


@hookspec
def srcframework_speech_synthesizers() -> Dict[str, type]:
    """Text-to-speech engines: subclasses of `srcframework.speech.engines.SpeechSynthesizer`."""


@hookspec
def srcframework_speech_recognizers() -> Dict[str, type]:
    """Speech-to-text engines: subclasses of `srcframework.speech.engines.SpeechRecognizer`."""


@hookspec
def srcframework_translators() -> Dict[str, type]:
    """Machine translation engines: subclasses of `srcframework.speech.engines.Translator`."""


@hookspec
def srcframework_span_heads() -> Dict[str, type]:
    """Span heads: subclasses of `srcframework.modules.span_heads.span_head.SpanHead`."""
