import math
from typing import Dict, List, Optional, Tuple

from allennlp.common.checks import ConfigurationError

from srcframework.data.errors import DatasetError
from srcframework.noise.natural import read_questions_by_id
from srcframework.noise.noise_source import NoiseSource, absolute_path, question_rng

CLEAN = "clean"


@NoiseSource.register("noisy_copies")
class NoisyCopies(NoiseSource):
    """
    Training augmentation from pre-generated noisy copies of the training file (challenge sets
    written by `allennlp noise`: ASR, keyboard, misspelling, back-translation...). Each question is
    drawn, by its id, either clean or as one of its noisy versions, with the given weights. The
    draw uses `question_rng(seed, id, "noisy_copies")`: it is the same for a given seed whatever
    the batching, order or sharding, and the reader passes `noise_seed + epoch` as the seed, so
    each epoch draws afresh. A question that a copy lacks cannot be drawn as that copy; its weight
    goes to the copies that have it (or to clean); so does a question the noise left empty.

    # Parameters

    copies : `Dict[str, str]`
        Name -> SQuAD-format file of noisy questions, matched to the training questions by id.
        The name `"clean"` is reserved. The files are read at the first draw (a missing or empty
        file is a `DatasetError` then), so an archive trained with them loads without them.
    weights : `Dict[str, float]`, optional (default = equal weights for `"clean"` and every copy)
        Name -> non-negative weight, for `"clean"` and each copy; names not given get weight 0.
    """

    def __init__(self, copies: Dict[str, str], weights: Optional[Dict[str, float]] = None) -> None:
        if not copies:
            raise ConfigurationError("noisy_copies: `copies` must name at least one noisy copy")
        if CLEAN in copies:
            raise ConfigurationError('noisy_copies: "clean" is reserved for the clean question; rename that copy')
        names = [CLEAN] + sorted(copies)
        if weights is None:
            weights = {name: 1.0 for name in names}
        unknown = sorted(set(weights) - set(names))
        if unknown:
            raise ConfigurationError(f"noisy_copies: weights name unknown copies {unknown}; known: {names}")
        values = {name: float(weights.get(name, 0.0)) for name in names}
        if any(not math.isfinite(w) or w < 0 for w in values.values()) or sum(values.values()) <= 0:
            raise ConfigurationError(f"noisy_copies: weights must be finite, non-negative and not all zero, got {weights}")
        self.copies = {name: str(path) for name, path in copies.items()}
        self.weights = values
        self.names = names
        self._questions: Optional[Dict[str, Dict[str, str]]] = None

    @property
    def questions(self) -> Dict[str, Dict[str, str]]:
        """Copy name -> (question id -> noisy question), read at the first draw, not when the
        source is built: a model archive trained with noisy copies then loads (to predict or
        evaluate) on a machine that does not have the copies' files."""
        if self._questions is None:
            questions = {}
            for name, path in sorted(self.copies.items()):
                # a question the noise left empty (an ASR that heard nothing) is not a usable version
                questions[name] = read_questions_by_id(path, skip_empty=True)
                if not questions[name]:
                    raise DatasetError(path, f"noisy copy {name!r} holds no non-empty question")
            self._questions = questions
        return self._questions

    def choose(self, qid: str, seed: int = 0) -> str:
        """The name of the version (`"clean"` or a copy) that question `qid` takes under `seed`."""
        names = [name for name in self.names if name == CLEAN or qid in self.questions[name]]
        weights = [self.weights[name] for name in names]
        if sum(weights) <= 0:
            return CLEAN
        return question_rng(seed, qid, "noisy_copies").choices(names, weights=weights)[0]

    def pick(self, qid: str, seed: int, weights: Dict[str, float]) -> Tuple[str, Optional[str]]:
        """For a question that a noise schedule gave a noisy version: the copy drawn by `weights`
        (copy names only) under `seed`, and its text, or None where that copy lacks the question.
        The draw does not look at which copies hold the question, so it is the same whatever the
        files' contents."""
        names = [name for name in sorted(self.copies) if weights.get(name, 0.0) > 0]
        if not names:
            raise ConfigurationError(f"noisy_copies: no copy has a positive weight in {weights}")
        name = question_rng(seed, str(qid), "noise_copy").choices(names, weights=[weights[n] for n in names])[0]
        return name, self.questions[name].get(str(qid))

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        if isinstance(questions, str):
            raise TypeError("noisy_copies: expected a list of questions, got a single string")
        if ids is None or len(ids) != len(questions):
            raise ValueError("noisy_copies draws by question id: pass one id per question (ids=[...])")
        noised = []
        for qid, question in zip(ids, questions):
            name = self.choose(str(qid), seed)
            noised.append(question if name == CLEAN else self.questions[name][str(qid)])
        return noised

    def describe(self) -> dict:
        copies = {name: absolute_path(path) for name, path in self.copies.items()}
        return {"type": "noisy_copies", "copies": copies, "weights": dict(self.weights)}
