"""The pilot's seen-voice cost in one committed file: each lever's recogniser (and the released one
it continued from) evaluated by `allennlp evaluate` on the training voices' reading of the held-out
articles (the first study's validation set), its greedy WER and CER in percent:

    python recipes/e2e_voices/collect_seen.py runs/e2e_voices/seen_voices_{start,control,voices,augmentation}.json \
        -o recipes/e2e_voices/seen_voices.json

Each input is named `seen_voices_<lever>.json`; a missing or unreadable one is a one-line error.
"""
import argparse
import json
import os
import re
import sys

from srcframework.common.files import write_text_atomic


def lever_of(path: str) -> str:
    found = re.fullmatch(r"seen_voices_(\w+)\.json", os.path.basename(path))
    if not found:
        raise SystemExit(f"error: {path}: expected a file named seen_voices_<lever>.json")
    return found.group(1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("evaluations", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    levers = {}
    for path in args.evaluations:
        try:
            with open(path, encoding="utf-8") as handle:
                metrics = json.load(handle)
        except (OSError, json.JSONDecodeError) as err:
            raise SystemExit(f"error: {path}: cannot read it ({err})")
        if not {"wer", "cer"} <= set(metrics):
            raise SystemExit(f"error: {path}: no wer and cer (an `allennlp evaluate` output of a speecht5_ctc archive?)")
        levers[lever_of(path)] = {"wer": 100 * metrics["wer"], "cer": 100 * metrics["cer"], "source": path}
    record = {"set": "the training voices' reading of the held-out articles (runs/spoken_ctc/train9/fid2qid_heldout.csv)",
              "levers": levers}
    write_text_atomic(args.output, json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(json.dumps({lever: round(v["wer"], 1) for lever, v in levers.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
