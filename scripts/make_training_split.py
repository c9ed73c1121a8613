"""Write the CPU-scale training split: a SQuAD-format file minus the paragraphs whose questions
appear in another file (by default SQuAD v1.1 dev minus the 240 XQuAD paragraphs: 9,380 questions).

    python scripts/make_training_split.py [--squad ../shared/data/squad/dev-v1.1.json] \
        [--exclude ../shared/data/xquad/xquad.en.json] --output runs/data/squad_dev_minus_xquad.json \
        [--train runs/data/train_articles.json --validation runs/data/validation_articles.json]

The noisy copies of the training split (`allennlp noise`) are made from this file, so that their
question ids match what the `squad_v1` reader keeps with `exclude_question_ids_from`; they cover
the held-out articles too, which the configs' readers leave out of training (`articles: "train"`).
`--train` and `--validation` also write the two parts, whole articles, exactly as those readers
split them (`--held-out-share`, default 0.1, `--held-out-seed`, default 0): the validation part
is about 10% of the questions and never a test set.
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
    parser.add_argument("--train", help="also write the training articles here")
    parser.add_argument("--validation", help="also write the held-out (validation) articles here")
    parser.add_argument("--held-out-share", type=float, default=0.1)
    parser.add_argument("--held-out-seed", type=int, default=0)
    args = parser.parse_args()

    from srcframework.common.files import write_json_atomic
    from srcframework.data.article_split import article_key, held_out_titles
    from srcframework.data.squad_file import iter_questions, load_squad_json

    excluded = {q.qid for q in iter_questions(args.exclude)}
    result = split(load_squad_json(args.squad), excluded)
    parts = [(args.output, result)]
    if args.train or args.validation:
        try:
            held = held_out_titles(result, args.held_out_share, args.held_out_seed)
        except Exception as err:  # a ConfigurationError: a bad share, too few articles
            raise SystemExit(f"{args.squad}: {err}") from None
        for path, keep in ((args.train, False), (args.validation, True)):
            if path:
                data = [a for i, a in enumerate(result["data"]) if (article_key(i, a) in held) == keep]
                parts.append((path, dict(result, data=data)))
    for path, dataset in parts:
        count = sum(len(p["qas"]) for a in dataset["data"] for p in a["paragraphs"])
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        write_json_atomic(path, dataset)
        print(f"{path}: {count} questions in {len(dataset['data'])} articles ({len(excluded)} excluded ids)")


if __name__ == "__main__":
    main()
