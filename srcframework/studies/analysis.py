"""The statistics `allennlp compare` adds to a study's results, all computed from the pairs' cached
per-question predictions (a rerun runs no model and gives the same numbers for the same seed):

- each pair: `em_low`/`em_high`, `f1_low`/`f1_high` (bootstrap intervals); for a noisy set,
  `drop_test` (its clean reference against it, paired by question id) and `flips`; and
  `by_question_type`, `by_length`, `by_wer_bucket` (error analysis);
- each `robustness` row: `drop_reduction_low`/`drop_reduction_high` (bootstrap interval);
- `comparisons`: on each set, model against model;
- `examples`: up to `examples` flips of each direction for each noisy pair;
- `statistics`: how all of the above was computed.
"""
from dataclasses import dataclass
from typing import Dict, Tuple

from srcframework.metrics.statistics import CONFIDENCE, Resampler
from srcframework.studies.error_analysis import breakdowns, flip_examples, flips
from srcframework.studies.question_scores import PairScores
from srcframework.studies.robustness import reduction_interval
from srcframework.studies.significance import SIGNIFICANCE_LEVEL, TEST_NAME, model_comparisons, pair_intervals, paired_comparison


@dataclass(frozen=True)
class AnalysisOptions:
    """
    # Parameters

    bootstrap : `int`, optional (default = `1000`)
        Bootstrap resamples of the questions for every interval, and randomisation trials for
        every test.
    seed : `int`, optional (default = `0`)
    examples : `int`, optional (default = `5`)
        Example flips of each direction that report.html lists for each noisy pair.
    """

    bootstrap: int = 1000
    seed: int = 0
    examples: int = 5

    def __post_init__(self) -> None:
        if self.bootstrap < 1:
            raise ValueError(f"--bootstrap must be at least 1, got {self.bootstrap}")
        if self.examples < 0:
            raise ValueError(f"--examples must be at least 0, got {self.examples}")


def add_analysis(results: dict, scores: Dict[Tuple[str, str], PairScores], options: AnalysisOptions) -> dict:
    """Add the intervals, tests and error analysis to `results` (as `collect_results` builds it,
    with `scores` for each of its pairs) and return it."""
    resampler = Resampler(options.bootstrap, options.seed, CONFIDENCE)
    sets = {test_set["name"]: test_set for test_set in results["test_sets"]}
    examples = []
    wer_cache: dict = {}
    for pair in results["pairs"]:
        mine = scores[(pair["model"], pair["set"])]
        pair.update(pair_intervals(mine, resampler))
        reference = pair["reference"]
        if reference:
            clean = scores[(pair["model"], reference)]
            pair["drop_test"] = paired_comparison(clean, mine, resampler)
            pair["flips"] = flips(clean, mine)
            examples.append({"model": pair["model"], "set": pair["set"], "reference": reference,
                             **flip_examples(clean, mine, options.examples)})
        else:
            pair["drop_test"] = pair["flips"] = None
        test_set = sets[pair["set"]]
        with_wer = test_set["input"] == "text" and test_set["interface"] != "clean"
        pair.update(breakdowns(mine, resampler, with_wer, wer_cache))
    for row in results.get("robustness", []):
        row.update(reduction_interval(results, row, scores, resampler))
    models = [model["name"] for model in results["models"]]
    results["comparisons"] = model_comparisons(scores, models, list(sets), resampler)
    results["examples"] = examples
    results["statistics"] = {
        "bootstrap": options.bootstrap,
        "seed": options.seed,
        "confidence": CONFIDENCE,
        "test": TEST_NAME,
        "significance_level": SIGNIFICANCE_LEVEL,
        "right": "exact match 1",
        "examples": options.examples,
    }
    return results
