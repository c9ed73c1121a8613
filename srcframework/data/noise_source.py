import hashlib
import inspect
import json
import os
import random
from typing import List

from allennlp.common import Registrable


def question_rng(seed: int, question: str, salt: str = "") -> random.Random:
    """A random generator that depends only on (seed, question text, salt): the same question gets
    the same noise whatever the batching, order, sharding or number of workers."""
    digest = hashlib.sha256(f"{seed}\x1f{salt}\x1f{question}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def absolute_path(path: str) -> str:
    """A local path made absolute; a URL (`scheme://...`) as it is."""
    return str(path) if "://" in str(path) else os.path.abspath(path)


def registered_config(component: Registrable, base: type) -> dict:
    """
    `{"type": registered name, argument: value...}` of a component registered under `base`, read
    from the attributes named like its constructor arguments (the house style), so that
    `base.from_params(Params(registered_config(component, base)))` builds it again.
    """
    names = [name for name, (cls, _) in Registrable._registry[base].items() if cls is type(component)]
    config = {"type": names[0] if names else type(component).__name__}
    for name in list(inspect.signature(type(component).__init__).parameters)[1:]:
        if hasattr(component, name) and not name.startswith("_"):
            config[name] = getattr(component, name)
    return config


def _is_json(value) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


class NoiseSource(Registrable):
    """
    Turns clean questions into noised ones, as an interface (keyboard, ASR, machine translation)
    would. `noise(questions, seed)` returns one noised question per input, in order, and is
    deterministic given the seed: each question's randomness comes from `question_rng(seed,
    question)`, so results do not depend on how the questions are batched. Sources whose engine
    works in batches (ASR, MT) process the list together.

    `ids` (optional, same length as `questions`) lets sources that look noise up by question id
    (`natural`) find it; others ignore it.

    `batch_size` is how many questions `allennlp noise` gives one call unless `--batch-size` says
    otherwise: 16, where a call's cost is its questions'; a source whose every call pays a fixed
    start-up (an engine process) gives a larger one.
    """

    default_implementation = None
    batch_size: int = 16

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        raise NotImplementedError

    def describe(self) -> dict:
        """
        The source's configuration as it was built: defaults filled in and local paths absolute.
        `make_challenge_set` records it in every challenge set beside the config it was given.

        This default gives the registered name and the JSON values of the attributes named like
        the constructor's arguments; a source whose settings are not all such attributes says
        what it is itself.
        """
        config = registered_config(self, NoiseSource)
        return {key: value for key, value in config.items() if _is_json(value)}
