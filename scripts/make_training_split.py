"""Write the CPU-scale training split: a SQuAD-format file minus the paragraphs whose questions
appear in another file (by default SQuAD v1.1 dev minus the 240 XQuAD paragraphs: 9,380 questions).

    python scripts/make_training_split.py [--squad ../shared/data/squad/dev-v1.1.json] \
        [--exclude ../shared/data/xquad/xquad.en.json] --output runs/data/squad_dev_minus_xquad.json

The noisy copies of the training split (`allennlp noise`) are made from this file, so that their
question ids match what the `squad_v1` reader keeps with `exclude_question_ids_from`.
"""
import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))


def split(squad: dict, excluded: set) -> dict:
    """`squad` without the paragraphs that hold an excluded question id (and without empty articles)."""
    data = []
    for article in squad["data"]:
        paragraphs = [p for p in article["paragraphs"] if not any(qa["id"] in excluded for qa in p["qas"])]
        if paragraphs:
            data.append(dict(article, paragraphs=paragraphs))
    return {"version": squad.get("version", "1.1"), "data": data}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--squad", default=str(DATA / "squad" / "dev-v1.1.json"))
    parser.add_argument("--exclude", default=str(DATA / "xquad" / "xquad.en.json"))
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    from srcframework.common.files import write_json_atomic
    from srcframework.data.squad_file import iter_questions, load_squad_json

    excluded = {q.qid for q in iter_questions(args.exclude)}
    result = split(load_squad_json(args.squad), excluded)
    count = sum(len(p["qas"]) for a in result["data"] for p in a["paragraphs"])
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    write_json_atomic(args.output, result)
    print(f"{args.output}: {count} questions ({len(excluded)} excluded ids)")


if __name__ == "__main__":
    main()
