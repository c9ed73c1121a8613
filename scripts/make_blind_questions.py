"""Write a question-blind copy of a SQuAD-format file: every question replaced by one neutral
token, so that a text QA model answers from the context alone (the floor of a comparison).

    python scripts/make_blind_questions.py ../shared/data/xquad/xquad.en.json runs/spoken_ctc/xquad_blind.json

The token is "?" (`--token`): SQuAD readers refuse empty questions (srcframework.data.squad_file
reports an "empty question" error), so an empty string cannot stand for "no question". Each
question keeps its text as `original_question`; ids, contexts and answers are unchanged.
"""
import argparse
import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def blind(dataset: dict, token: str = "?") -> dict:
    """A copy of `dataset` whose every question is `token`, the text kept as `original_question`."""
    if not token.strip():
        raise ValueError("the token must not be empty: SQuAD readers refuse empty questions")
    out = copy.deepcopy(dataset)
    for article in out["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                qa["original_question"] = qa["question"]
                qa["question"] = token
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("squad_file")
    parser.add_argument("output")
    parser.add_argument("--token", default="?", help='the question every entry gets (default "?")')
    args = parser.parse_args(argv)

    from srcframework.common.files import write_json_atomic

    with open(args.squad_file, encoding="utf-8") as handle:
        dataset = json.load(handle)
    result = blind(dataset, args.token)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.output, result)
    count = sum(len(p["qas"]) for a in result["data"] for p in a["paragraphs"])
    print(f"wrote {count} questions, each {args.token!r}, to {args.output}")


if __name__ == "__main__":
    main()
