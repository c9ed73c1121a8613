"""`allennlp noise-stats SET.json ... [--original CLEAN.json]`: how far noised questions are from
the clean ones, as CER, WER and BLEU (NoiseQA Table 3)."""
import argparse
import json
from pathlib import Path
from typing import Dict, List, Optional

from allennlp.commands import Subcommand

from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import load_squad_json
from srcframework.metrics.text_noise import question_noise_statistics


def question_map(path: str, field: str = "question") -> Dict[str, Optional[str]]:
    dataset = load_squad_json(path)
    return {
        qa["id"]: qa.get(field)
        for article in dataset["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    }


def set_statistics(path: str, original: Optional[str] = None) -> dict:
    """CER/WER/BLEU (0-100) of one challenge set's questions against their clean originals, taken
    from `original_question` in the set or, by question id, from an `original` SQuAD file."""
    noised = question_map(path)
    if original is not None:
        clean = question_map(original)
        missing = [qid for qid in noised if qid not in clean]
        if missing:
            raise DatasetError(path, f"{len(missing)} question ids not in {original}", missing[0])
    else:
        clean = question_map(path, "original_question")
        missing = [qid for qid, text in clean.items() if text is None]
        if missing:
            raise DatasetError(path, "no original_question; give the clean file with --original", missing[0])
    ids = sorted(noised)
    refs: List[str] = [clean[i] for i in ids]
    hyps: List[str] = [noised[i] for i in ids]
    return {"set": Path(path).name, **question_noise_statistics(refs, hyps)}


def markdown_table(rows: List[dict]) -> str:
    lines = ["| set | questions | changed | CER | WER | BLEU |", "|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(
            f"| {row['set']} | {row['questions']} | {row['changed']} | {row['cer']:.1f} | {row['wer']:.1f} | {row['bleu']:.1f} |"
        )
    return "\n".join(lines)


@Subcommand.register("noise-stats")
class NoiseStats(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "CER, WER and BLEU of challenge sets against their clean questions. Text is lowercased, "
            "punctuation removed and whitespace collapsed before CER/WER; BLEU is sacrebleu's "
            "uncased corpus BLEU. Prints a Markdown table."
        )
        subparser = parser.add_parser(
            self.name, description=description, help="Measure the question noise of challenge sets."
        )
        subparser.add_argument("sets", nargs="+", help="SQuAD-format challenge sets")
        subparser.add_argument("--original", help="clean SQuAD file, for sets without original_question")
        subparser.add_argument("--output-file", help="also write the rows as JSON here")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> List[dict]:
    rows = [set_statistics(path, args.original) for path in args.sets]
    print(markdown_table(rows))
    if args.output_file:
        Path(args.output_file).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return rows
