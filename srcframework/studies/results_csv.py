"""A study's results as CSV (`results.csv`): one row per pair and group, full precision."""
import csv
import io
from typing import List, Optional

from srcframework.studies.cells import pair_index


CSV_COLUMNS = [
    "model", "set", "interface", "kind", "reference", "group_key", "group", "questions", "em", "f1", "em_drop",
    "f1_drop", "question_cer", "question_wer", "question_bleu", "em_low", "em_high", "f1_low", "f1_high",
    "em_drop_low", "em_drop_high", "em_drop_p", "f1_drop_low", "f1_drop_high", "f1_drop_p", "right_to_wrong",
    "wrong_to_right", "em_drop_p_holm", "f1_drop_p_holm",
]
BREAKDOWN_KEYS = {"by_question_type": "question_type", "by_length": "length", "by_wer_bucket": "wer_bucket"}


def _number(value: Optional[float]) -> str:
    return "" if value is None else f"{value:.4f}"


def _test_numbers(comparison: Optional[dict]) -> List[str]:
    """em_drop_low ... f1_drop_p of a paired comparison."""
    cells: List[str] = []
    for metric in ("em", "f1"):
        test = (comparison or {}).get(metric) or {}
        cells += [_number(test.get("low")), _number(test.get("high")), _number(test.get("p"))]
    return cells


def _holm_numbers(comparison: Optional[dict]) -> List[str]:
    """em_drop_p_holm, f1_drop_p_holm of a paired comparison."""
    return [_number(((comparison or {}).get(metric) or {}).get("p_holm")) for metric in ("em", "f1")]


def results_csv(results: dict) -> str:
    """One row per pair (`group_key` = `all`) and per pair and group: country, gender, speaker,
    question_type, length, wer_bucket; a `versus` row per two models on a set (`model` the
    second, `group` the first, the drops the first's score minus the second's); and a `cross` row
    per comparison across sets (`model` and `set` the second pair's, `group` the comparison's
    label, `questions` the shared ones, the drops the first pair's score minus the second's). The question
    CER/WER/BLEU columns are the test set's (a group row: that group's WER); `*_p` is a test's
    uncorrected p and `*_p_holm` its Holm-corrected one."""
    noise = {s["name"]: s.get("question_noise") or {} for s in results["test_sets"]}
    pairs = pair_index(results)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for pair in results["pairs"]:
        common = [pair["model"], pair["set"], pair["interface"], pair["kind"], pair["reference"] or ""]
        set_noise = noise[pair["set"]]
        flips = pair.get("flips") or {}
        writer.writerow(
            common + ["all", "all", pair["questions"], _number(pair["em"]), _number(pair["f1"]),
                      _number(pair["em_drop"]), _number(pair["f1_drop"]), _number(set_noise.get("cer")),
                      _number(set_noise.get("wer")), _number(set_noise.get("bleu")), _number(pair.get("em_low")),
                      _number(pair.get("em_high")), _number(pair.get("f1_low")), _number(pair.get("f1_high"))]
            + _test_numbers(pair.get("drop_test")) + [flips.get("right_to_wrong", ""), flips.get("wrong_to_right", "")]
            + _holm_numbers(pair.get("drop_test"))
        )
        blank = [""] * (len(CSV_COLUMNS) - 15)
        for key in ("country", "gender", "speaker"):
            group_wer = set_noise.get(f"by_{key}") or {}
            for group, scores in pair.get(f"by_{key}", {}).items():
                writer.writerow(
                    common + [key, group, scores["count"], _number(scores["em"]), _number(scores["f1"]), "", "", "",
                              _number(group_wer.get(group)), ""] + blank
                )
        for key, group_key in BREAKDOWN_KEYS.items():
            for group, scores in pair.get(key, {}).items():
                writer.writerow(
                    common + [group_key, group, scores["count"], _number(scores["em"]), _number(scores["f1"]), "", "",
                              "", "", "", "", "", _number(scores["f1_low"]), _number(scores["f1_high"])]
                    + [""] * (len(CSV_COLUMNS) - 19)
                )
    for comparison in results.get("comparisons", []):
        second = pairs[(comparison["second"], comparison["set"])]
        differences = [_number(comparison[m]["difference"]) if comparison[m] else "" for m in ("em", "f1")]
        writer.writerow(
            [second["model"], second["set"], second["interface"], second["kind"], "", "versus", comparison["first"],
             comparison["questions"], "", ""] + differences + [""] * 7 + _test_numbers(comparison) + ["", ""]
            + _holm_numbers(comparison)
        )
    for comparison in results.get("cross_comparisons", []):
        second = pairs[(comparison["second"]["model"], comparison["second"]["set"])]
        differences = [_number(comparison[m]["difference"]) if comparison[m] else "" for m in ("em", "f1")]
        writer.writerow(
            [second["model"], second["set"], second["interface"], second["kind"], "", "cross", comparison["label"],
             comparison["questions"], "", ""] + differences + [""] * 7 + _test_numbers(comparison) + ["", ""]
            + _holm_numbers(comparison)
        )
    return out.getvalue()
