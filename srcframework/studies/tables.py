"""A study's results as tables: Markdown (`results.md`), CSV (`results.csv`, one row per pair and
group, full precision) and LaTeX (`results.tex`, booktabs).

The tables, each written only when the study has rows for it:

- `em_f1`: EM and F1 per test set and model, and the F1 drop from the model's clean set
  (NoiseQA, Ravichander et al. 2021, Table 4);
- `robustness`: each model that names a clean-trained `twin`, one line per group of noisy sets
  (held-out generator first): the difference of mean drops (twin's minus the model's) with its
  interval and raw and Holm-corrected p, the relative reduction, and the change in clean F1 with
  its equivalence test (TOST) and verdict;
- `seed_tests`, `variance_components`, `set_groups`, `drop_by_set`, `power`, `validation_curves`:
  inference over training runs, declared groups of noisy sets, power and learning curves
  (`inference_tables.py`);
- `f1_by_seed`: each seed's EM, F1 and drop, for a model with several archives;
- `f1_by_country`: F1 per country of the speaker with the F1 range, best country minus worst
  (SQuAD-SRC, Tang et al. 2023, Table 3), and `f1_by_gender`;
- `question_noise`: CER, WER and BLEU of each set's questions against the clean ones;
- `wer_by_country`: the questions' WER per country (how hard each accent is for the recogniser);
- `drop_tests`: each model's clean set against each noisy set, paired by question id: the EM and
  F1 differences with their intervals, raw p-values and Holm-corrected ones; `model_comparisons`:
  the same for two models on one set; `cross_comparisons`: the study's named comparisons of one pair
  against another across sets (study key `comparisons`), over the question ids both hold;
- `flips`: questions right on the clean set and wrong on the noisy one, and the reverse;
- `f1_by_question_type`, `f1_by_length`, `f1_by_wer_bucket`: the error analysis.

Scores are percentages shown with one decimal, an interval as `value [low, high]`, `†` marking a
difference whose Holm-corrected p (over its table's family of tests) is below the significance level
(`metrics.statistics.LEVEL`, as the results record it); `-` marks a cell with no value.

The tables are built by `score_tables.py`, `test_tables.py` and `inference_tables.py` from the
cells of `cells.py` (with the notes of `captions.py`), and rendered by `results_markdown.py`,
`results_csv.py` and `results_tex.py`.
"""
from typing import List

from srcframework.studies.cells import Table
from srcframework.studies.inference_tables import inference_tables
from srcframework.studies.question_types import LENGTH_BUCKETS, QUESTION_TYPES, WER_BUCKETS
from srcframework.studies.score_tables import (
    breakdown_table, em_f1_table, flips_table, groups_table, question_noise_table, seeds_table, training_table,
    wer_by_country_table,
)
from srcframework.studies.test_tables import cross_comparisons_table, drop_tests_table, model_comparisons_table, robustness_table


def results_tables(results: dict) -> List[Table]:
    """Every table that has rows, in the order the reports show them."""
    tables = [
        em_f1_table(results),
        robustness_table(results),
        *inference_tables(results),
        seeds_table(results),
        training_table(results),
        drop_tests_table(results),
        model_comparisons_table(results),
        cross_comparisons_table(results),
        groups_table(results, "country", "f1_by_country", "F1 by country", with_range=True),
        groups_table(results, "gender", "f1_by_gender", "F1 by gender", with_range=False),
        groups_table(results, "speaker", "f1_by_speaker", "F1 by voice", with_range=True),
        question_noise_table(results),
        wer_by_country_table(results),
        flips_table(results),
        breakdown_table(results, "by_question_type", list(QUESTION_TYPES), "f1_by_question_type",
                         "F1 by question type", "Type of the clean question, from its first wh-word."),
        breakdown_table(results, "by_length", [label for label, _ in LENGTH_BUCKETS], "f1_by_length",
                         "F1 by question length", "Length of the clean question in words."),
        breakdown_table(results, "by_wer_bucket", [label for label, _ in WER_BUCKETS], "f1_by_wer_bucket",
                         "F1 by question WER", "WER (%) of each noisy question against its clean one; a bucket "
                         "a-b holds WER above a up to b."),
    ]
    return [table for table in tables if table.rows]
