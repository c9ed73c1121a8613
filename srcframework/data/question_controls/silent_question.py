from typing import List

import numpy
from allennlp.common.checks import ConfigurationError
from allennlp.data import Instance
from allennlp.data.fields import TextField
from allennlp.data.tokenizers import Token

from srcframework.data.fields.audio_field import AudioField
from srcframework.data.question_controls.question_control import QuestionControl, check_question_fields, with_question


@QuestionControl.register("silent_question")
class SilentQuestion(QuestionControl):
    """
    Each question's input says nothing: a spoken question becomes digital silence of the same
    length (all-zero samples, so the model sees the same number of frames and padding), a text
    question the one neutral token `token` (the readers and BiDAF's encoders need a non-empty
    question; the `blank` noise source makes the same text set). The model's F1 here is its own
    question-blind floor. No question is left out.

    # Parameters

    token : `str`, optional (default = `"?"`)
        What a text question becomes.
    """

    def __init__(self, token: str = "?") -> None:
        if not isinstance(token, str) or not token.strip() or len(token.split()) != 1:
            raise ConfigurationError(f"silent_question: token must be one non-empty word, got {token!r}")
        self.token = token
        self.last_left_out = 0

    def apply(self, instances: List[Instance]) -> List[Instance]:
        check_question_fields(instances, "silent_question")
        out = []
        for instance in instances:
            field = instance["question"]
            if isinstance(field, AudioField):
                silent = AudioField(numpy.zeros(len(field), dtype=numpy.float32), field.sample_rate, source=None)
                out.append(with_question(instance, silent, {"type": "silent_question"}))
            elif isinstance(field, TextField):
                silent = TextField([Token(self.token)], field._token_indexers)
                out.append(with_question(instance, silent, {"type": "silent_question"}, self.token))
            else:
                raise ConfigurationError(
                    f"silent_question: cannot silence a question field of type {type(field).__name__} "
                    "(an AudioField or a TextField)"
                )
        return out

    def describe(self) -> dict:
        return {"type": "silent_question", "token": self.token}
