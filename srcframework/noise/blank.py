from typing import List

from allennlp.common.checks import ConfigurationError

from srcframework.noise.noise_source import NoiseSource


@NoiseSource.register("blank")
class BlankQuestion(NoiseSource):
    """
    A question-blind set: every question becomes one neutral token, so that a text QA model answers
    from the context alone (the floor of a comparison). The readers refuse empty questions, so an
    empty string cannot stand for "no question". Deterministic; `seed` and `ids` are not used.

    # Parameters

    token : `str`, optional (default = `"?"`)
        What every question becomes; must not be empty or whitespace.
    """

    def __init__(self, token: str = "?") -> None:
        if not isinstance(token, str) or not token.strip():
            raise ConfigurationError(f"blank noise: token must be a non-empty string, got {token!r}")
        self.token = token

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        if isinstance(questions, str):
            raise TypeError("blank noise: expected a list of questions, got a single string")
        return [self.token for _ in questions]

    def describe(self) -> dict:
        return {"type": "blank", "token": self.token}
