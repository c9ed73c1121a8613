"""The statistics `allennlp compare` adds to a study's results, all computed from the pairs' cached
per-question predictions (a rerun runs no model and gives the same numbers for the same seed):

- each pair: `em_low`/`em_high`, `f1_low`/`f1_high` (bootstrap intervals); for a noisy set,
  `drop_test` (its clean reference against it, paired by question id) and `flips`; and
  `by_question_type`, `by_length`, `by_wer_bucket` (error analysis);
- `robustness`: each model with a twin against it (`robustness.py`), over the generator groups and
  the study's declared `set_groups`; where the model and its twin have several seeds, paired by
  seed, the tests whose unit is the training run (`seed_inference.py`) and the seed and question
  variance components;
- `comparisons`: on each set, model against model;
- `cross_comparisons` (where the study names `comparisons`): one pair against another across sets,
  over the question ids both hold, one Holm family;
- each pair with two or more countries: the `p` of its `f1_range`, a permutation test of no
  difference between the countries (`significance.f1_range_test`: a bootstrap interval of a range
  runs high, and can lie above the range itself); each pair with two or more speakers (voices):
  `f1_range_by_speaker`, the best voice's F1 minus the worst's, with its test the same way;
- `examples`: up to `examples` flips of each direction for each noisy pair;
- `statistics`: how all of the above was computed.

The bootstrap resamples contexts (the questions of one paragraph together) unless the unit is
`question`, and each model's seeds where it has several. Each table's tests are one family,
Holm-corrected (`drop_tests`, `model_comparisons`, `robustness`); a family is tested with
`family_plan`'s method: randomisation with at least `permutations` rounds, or its normal
approximation where the family is too large for a corrected p to get small in 50,000 rounds.
"""
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple

from srcframework.metrics.statistics import BOOTSTRAP, CONFIDENCE, PERMUTATIONS, Resampler, family_plan
from srcframework.reports.accent import f1_range
from srcframework.studies.error_analysis import breakdowns, flip_examples, flips
from srcframework.studies.question_scores import PairScores
from srcframework.studies.robustness import declared_robustness, robustness
from srcframework.studies.seed_inference import add_seed_inference
from srcframework.studies.set_groups import add_by_set
from srcframework.studies.significance import (
    CORRECTION,
    SIGNIFICANCE_LEVEL,
    TEST_NAME,
    comparison_pairs,
    comparison_tests,
    correct,
    cross_comparisons,
    f1_range_test,
    model_comparisons,
    pair_intervals,
    paired_comparison,
)
from srcframework.studies.study import BOOTSTRAP_UNITS, EQUIVALENCE_MARGIN


@dataclass(frozen=True)
class AnalysisOptions:
    """
    # Parameters

    bootstrap : `int`, optional (default = `1000`)
        Bootstrap resamples for every interval.
    seed : `int`, optional (default = `0`)
    examples : `int`, optional (default = `5`)
        Example flips of each direction that report.html lists for each noisy pair.
    permutations : `int`, optional (default = `10000`)
        Randomisation rounds of every paired test (at least; a large family gets more).
    bootstrap_unit : `str`, optional
        `context` or `question`; None: the study's (`context` without a study).
    equivalence_margin : `float`, optional (default = `1.5`)
        F1 points within which a robust model's clean F1 counts as its twin's (TOST).
    """

    bootstrap: int = BOOTSTRAP
    seed: int = 0
    examples: int = 5
    permutations: int = PERMUTATIONS
    bootstrap_unit: Optional[str] = None
    equivalence_margin: float = EQUIVALENCE_MARGIN

    def __post_init__(self) -> None:
        if self.bootstrap < 1:
            raise ValueError(f"--bootstrap must be at least 1, got {self.bootstrap}")
        if self.examples < 0:
            raise ValueError(f"--examples must be at least 0, got {self.examples}")
        if self.permutations < 1:
            raise ValueError(f"--permutations must be at least 1, got {self.permutations}")
        if self.bootstrap_unit not in (None,) + BOOTSTRAP_UNITS:
            raise ValueError(f"--bootstrap-unit must be one of {', '.join(BOOTSTRAP_UNITS)}, got {self.bootstrap_unit!r}")
        if not self.equivalence_margin > 0:
            raise ValueError(f"the equivalence margin must be positive, got {self.equivalence_margin}")


def _family(tests: int, plan: Tuple[str, int]) -> dict:
    return {"tests": tests, "method": plan[0], "rounds": plan[1]}


def add_analysis(
    results: dict,
    scores: Dict[Tuple[str, str], PairScores],
    options: AnalysisOptions,
    contexts: Optional[Mapping[str, str]] = None,
    comparisons: Sequence[Tuple[str, Tuple[str, str], Tuple[str, str]]] = (),
    set_groups: Sequence[dict] = (),
) -> dict:
    """Add the intervals, tests, robustness rows and error analysis to `results` (as
    `collect_results` builds it, with `scores` for each of its pairs) and return it. `contexts`
    maps question ids to their context; a question it lacks is resampled alone. `comparisons`:
    `(label, (model, set), (model, set))` of the study's comparisons across sets; `set_groups`:
    `{"name", "sets", "label", "declared"}` of the study's declared groups of noisy sets."""
    unit = options.bootstrap_unit or "context"
    clusters = dict(contexts or {}) if unit == "context" else None
    resampler = Resampler(options.bootstrap, options.seed, CONFIDENCE, clusters, options.permutations)
    sets = {test_set["name"]: test_set for test_set in results["test_sets"]}
    examples = []
    wer_cache: dict = {}
    noisy_pairs = [pair for pair in results["pairs"] if pair["reference"]]
    drop_plan = family_plan(2 * len(noisy_pairs), options.permutations, SIGNIFICANCE_LEVEL)
    for pair in results["pairs"]:
        mine = scores[(pair["model"], pair["set"])]
        pair.update(pair_intervals(mine, resampler))
        test = f1_range_test(mine, "country", options.permutations, options.seed) if pair.get("f1_range") else None
        if test is not None:
            pair["f1_range"] = dict(pair["f1_range"], **test)
        voices = f1_range(pair.get("by_speaker") or {})
        if voices is not None:
            test = f1_range_test(mine, "speaker", options.permutations, options.seed)
            pair["f1_range_by_speaker"] = voices if test is None else dict(voices, **test)
        reference = pair["reference"]
        if reference:
            clean = scores[(pair["model"], reference)]
            pair["drop_test"] = paired_comparison(clean, mine, resampler, drop_plan)
            pair["flips"] = flips(clean, mine)
            examples.append({"model": pair["model"], "set": pair["set"], "reference": reference,
                             **flip_examples(clean, mine, options.examples)})
        else:
            pair["drop_test"] = pair["flips"] = None
        test_set = sets[pair["set"]]
        with_wer = test_set["input"] == "text" and test_set["interface"] != "clean"
        pair.update(breakdowns(mine, resampler, with_wer, wer_cache))
    correct(comparison_tests([pair["drop_test"] for pair in noisy_pairs]))
    results["robustness"], robustness_family = robustness(results, scores, resampler, options.equivalence_margin,
                                                          options.permutations, SIGNIFICANCE_LEVEL)
    declared_family = declared_robustness(results, scores, resampler, set_groups, options.permutations,
                                          SIGNIFICANCE_LEVEL)
    models = [model["name"] for model in results["models"]]
    comparison_plan = family_plan(2 * len(comparison_pairs(scores, models, list(sets))), options.permutations,
                                SIGNIFICANCE_LEVEL)
    results["comparisons"] = model_comparisons(scores, models, list(sets), resampler, comparison_plan)
    cross_plan = family_plan(2 * len(comparisons), options.permutations, SIGNIFICANCE_LEVEL)
    if comparisons:
        results["cross_comparisons"] = cross_comparisons(comparisons, scores, resampler, cross_plan)
    results["examples"] = examples
    scored = {qid for pair_scores in scores.values() for qid in pair_scores.ids}
    results["statistics"] = {
        "bootstrap": options.bootstrap,
        "seed": options.seed,
        "confidence": CONFIDENCE,
        "bootstrap_unit": unit,
        "questions": len(scored),
        "contexts": len({clusters.get(qid, qid) for qid in scored}) if clusters is not None else None,
        "questions_without_context": sum(qid not in clusters for qid in scored) if clusters is not None else None,
        "test": TEST_NAME,
        "permutations": options.permutations,
        "correction": CORRECTION,
        "families": {
            "drop_tests": _family(2 * len(noisy_pairs), drop_plan),
            "model_comparisons": _family(2 * len(results["comparisons"]), comparison_plan),
            "robustness": robustness_family,
            **({"set_groups": declared_family} if declared_family else {}),
            **({"cross_comparisons": _family(2 * len(comparisons), cross_plan)} if comparisons else {}),
        },
        "significance_level": SIGNIFICANCE_LEVEL,
        "equivalence_margin": options.equivalence_margin,
        "right": "exact match 1",
        "examples": options.examples,
    }
    add_by_set(results)
    add_seed_inference(results, SIGNIFICANCE_LEVEL)
    return results
